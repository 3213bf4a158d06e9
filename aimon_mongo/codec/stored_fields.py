"""Field readers of stored shapes, shared by every backend's codecs and document layouts (on top of
:mod:`aimon_mongo.codec._fields`; JSON text is :mod:`aimon_mongo.codec.json_text`).

Every helper refuses with :class:`CodecError` naming the field and the type it found, never the stored
value itself. Instants are accepted in both stored forms: a BSON date (``datetime``) or ISO-8601 text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeVar

from pydantic import JsonValue

from aimon_mongo.codec._fields import clip, json_type, optional_str, required_str
from aimon_mongo.codec.instant import as_utc, format_instant, parse_instant
from aimon_mongo.codec.json_text import parse_json
from aimon_mongo.errors import CodecError

E = TypeVar("E")

MAX_JSON_DEPTH = 64
"""Deepest nesting accepted when a stored BSON value is turned into a JSON value."""


def require_object(value: object, what: str) -> Mapping[str, Any]:
    """``value`` if it is an object (a dict / BSON document); else :class:`CodecError`."""
    if isinstance(value, Mapping):
        return value
    raise CodecError(f"{what} must be an object, got {json_type(value)}")


def enum_member(value: object, members: Mapping[str, E], what: str) -> E:
    """The member stored under its name ``value``; an unknown or non-text name refuses (named, clipped)."""
    found = members.get(value) if isinstance(value, str) else None
    if found is None:
        shown = repr(clip(value)) if isinstance(value, str) else json_type(value)
        raise CodecError(f"Unknown {what}: {shown}")
    return found


def required_id(obj: Mapping[str, Any], key: str) -> str:
    """A required, non-blank string field (an id)."""
    value = required_str(obj, key)
    if not value.strip():
        raise CodecError(f"field '{key}' must not be blank")
    return value


def required_bool(obj: Mapping[str, Any], key: str) -> bool:
    value = obj.get(key)
    if isinstance(value, bool):
        return value
    if value is None:
        raise CodecError(f"Missing required field '{key}'")
    raise CodecError(f"field '{key}' must be a boolean, got {json_type(value)}")


def optional_bool(obj: Mapping[str, Any], key: str, default: bool) -> bool:
    value = obj.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    raise CodecError(f"field '{key}' must be a boolean, got {json_type(value)}")


def optional_int(obj: Mapping[str, Any], key: str, default: int) -> int:
    """An integer field (JSON numbers may come back as floats: an integral float is accepted)."""
    value = obj.get(key)
    if value is None:
        return default
    return integer(value, key)


def integer(value: object, field: str) -> int:
    """``value`` as an ``int``: ints (BSON int32/int64) and integral floats; booleans refuse."""
    if isinstance(value, bool):
        raise CodecError(f"field '{field}' must be a number, got boolean")
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    raise CodecError(f"field '{field}' must be an integer, got {json_type(value)}")


def instant(value: object, field: str) -> datetime:
    """An instant stored as a BSON date (a naive one is UTC) or as ISO-8601 text."""
    if isinstance(value, datetime):
        return as_utc(value)
    if value is None:
        raise CodecError(f"Missing required field '{field}'")
    return parse_instant(value, field)


def optional_instant(obj: Mapping[str, Any], key: str) -> datetime | None:
    value = obj.get(key)
    return None if value is None else instant(value, key)


def json_value(value: object, field: str, depth: int = 0) -> JsonValue:
    """A stored value as a JSON value.

    JSON scalars, objects and arrays stay (object keys become text); BSON-only values a foreign writer may
    have stored become text the way the reference's encoder writes them (a date as its ISO instant,
    anything else its string form). NaN and Infinity refuse (JSON cannot carry them).
    """
    if depth > MAX_JSON_DEPTH:
        raise CodecError(f"field '{field}' is nested deeper than {MAX_JSON_DEPTH} levels")
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CodecError(f"field '{field}' holds NaN or Infinity, which JSON cannot carry")
        return value
    if isinstance(value, Mapping):
        return {str(k): json_value(v, field, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(v, field, depth + 1) for v in value]
    if isinstance(value, datetime):
        return format_instant(instant(value, field))
    return str(value)


def json_object(value: object, field: str) -> dict[str, JsonValue]:
    """An optional JSON object field: absent or null is ``{}``; a non-object refuses."""
    if value is None:
        return {}
    converted = json_value(require_object(value, f"field '{field}'"), field)
    assert isinstance(converted, dict)
    return converted


def parse_json_object(text: object, what: str) -> Mapping[str, Any]:
    """Parse JSON text (or UTF-8 bytes) that must hold an object; refuses with :class:`CodecError` only."""
    return require_object(parse_json(text, what), what)


__all__ = [
    "enum_member",
    "instant",
    "integer",
    "json_object",
    "json_type",
    "json_value",
    "optional_bool",
    "optional_instant",
    "optional_int",
    "optional_str",
    "parse_json_object",
    "require_object",
    "required_bool",
    "required_id",
    "required_str",
]
