"""Shared by the codecs: reading fields out of stored shapes (parsed JSON objects, BSON documents) and naming
ids in log lines (JSON text itself is read and written by :mod:`aimon_mongo.codec.json_text`).

Every reader refuses with :class:`CodecError` naming the field and the JSON type it found; the stored value
itself only for the non-payload envelope fields of :data:`aimon_mongo.codec._shown.VALUE_NAMED_FIELDS`
(clipped and escaped), never a payload value.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar, cast

from aimon_mongo.codec._shown import found
from aimon_mongo.codec._shown import json_type as json_type
from aimon_mongo.codec.instant import as_utc, format_instant
from aimon_mongo.errors import CodecError

E = TypeVar("E", bound=StrEnum)


def stored_texts(members: type[E]) -> Mapping[E, E]:
    """Each member of a stored enum -> its value as a plain ``str``, typed as the member.

    The declarations (``aimon_mongo/stored``) type a stored enum field as the enum; the codecs write its
    plain text (what every stored form holds and what comes back). A ``StrEnum`` member *is* that text, so
    the stored dicts stay checked by mypy key by key while their values stay plain strings.
    """
    return cast("Mapping[E, E]", {member: member.value for member in members})


def clip(value: str, limit: int = 40) -> str:
    """``value`` cut to ``limit`` characters (for enum-like values named in an error message)."""
    return value if len(value) <= limit else value[:limit] + "…"


def log_name(value: str | None, limit: int = 200) -> str:
    """An id (session, entry) as it goes into a log line: quoted and escaped, so a stored id holding line
    breaks or control characters cannot forge log lines; ``unattributed`` when absent."""
    if value is None:
        return "unattributed"
    return repr(clip(value, limit))


def coerce_text(value: object) -> str:
    """A stored scalar as text, the way Jackson's ``asText()`` reads it.

    Strings stay, booleans are ``true``/``false``, numbers their decimal form, JSON null ``"null"``, objects
    and arrays ``""``. Other BSON values (dates, ObjectIds, ...) use their instant or string form.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Mapping | list | tuple):
        return ""
    if isinstance(value, datetime):
        return format_instant(as_utc(value))
    return str(value)


def required_str(obj: Mapping[str, Any], key: str) -> str:
    """A required string field; missing, null or any other type refuses."""
    value = obj.get(key)
    if isinstance(value, str):
        return value
    if value is None:
        raise CodecError(f"Missing required field '{key}'")
    raise CodecError(f"field '{key}' must be a string, got {found(value, key)}")


def optional_str(obj: Mapping[str, Any], key: str) -> str | None:
    """An optional string field: absent or null is ``None``; any other non-string refuses."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise CodecError(f"field '{key}' must be a string or absent, got {found(value, key)}")


def text_map(value: object, field: str) -> dict[str, str]:
    """A string→string map: absent or null is empty; values are coerced with :func:`coerce_text`."""
    if value is None:
        return {}
    if type(value) is not dict and not isinstance(value, Mapping):
        raise CodecError(f"field '{field}' must be an object, got {json_type(value)}")
    return {str(k): v if type(v) is str else coerce_text(v) for k, v in value.items()}
