"""Shared by the codecs: reading fields out of stored shapes (parsed JSON objects, BSON documents), strict
JSON parsing and compact JSON writing, and naming ids in log lines.

Every reader refuses with :class:`CodecError` naming the field and the JSON type it found; the stored value
itself only for the non-payload envelope fields of :data:`aimon_mongo.codec._shown.VALUE_NAMED_FIELDS`
(clipped and escaped), never a payload value.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeVar, cast

import pydantic_core

from aimon_mongo.codec._shown import found
from aimon_mongo.codec._shown import json_type as json_type
from aimon_mongo.codec.instant import format_instant
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


def as_utc(value: datetime) -> datetime:
    """An aware UTC datetime; a naive one is read as UTC (how PyMongo returns BSON dates by default)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    if value.tzinfo is UTC:
        return value
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise CodecError("datetime is outside the representable UTC range") from None


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


def _not_json(value: object) -> object:
    raise TypeError(f"a {type(value).__name__} is not a JSON value")


def _make_encoder() -> Callable[[object], str]:
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # not CPython: the documented (slower) path
        return json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
    # CPython's C encoder, built once: JSONEncoder.encode builds it anew on every call. Arguments:
    # markers (no cycle check; a cycle ends in RecursionError), default, string encoder (non-ASCII kept),
    # indent, key separator, item separator, sort_keys, skipkeys, allow_nan.
    iterate = make(None, _not_json, json.encoder.encode_basestring, None, ":", ",", False, False, False)

    def encode(value: object) -> str:
        return "".join(iterate(value, 0))

    return encode


_encode = _make_encoder()


def compact_json(value: object, *, only_text: bool = False) -> str:
    """Compact JSON text: ``separators=(",", ":")``, non-ASCII kept, NaN/Infinity refused.

    ``only_text=True`` is a promise by the caller that ``value`` holds only strings, ``None`` and dicts or
    lists of them (no numbers): such values go through pydantic-core's serializer, which writes exactly the
    json module's bytes for them, about twice as fast. Refuses with :class:`CodecError` when ``value``
    holds something JSON cannot carry (NaN, Infinity, a non-JSON object, a cycle, a lone surrogate),
    naming only the kind of problem.
    """
    if only_text:
        try:
            return pydantic_core.to_json(value).decode()
        except pydantic_core.PydanticSerializationError:
            raise CodecError("value holds text that is not valid Unicode (a lone surrogate)") from None
    try:
        return _encode(value)
    except ValueError:
        raise CodecError("value holds NaN or Infinity, which JSON cannot carry") from None
    except TypeError as exc:
        raise CodecError(f"value cannot be written as JSON: {exc}") from None
    except RecursionError:
        raise CodecError("value is nested too deeply (or refers to itself) to be written as JSON") from None


def _refuse_constant(name: str) -> object:
    raise CodecError(f"JSON text holds {name}, which JSON does not allow")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def parse_json(text: object, what: str) -> object:
    """Parse strict JSON text (or UTF-8 bytes) describing ``what``; refuses with :class:`CodecError` only.

    Refused: non-text, invalid UTF-8, invalid JSON, NaN/Infinity, nesting too deep for the parser, integer
    literals beyond Python's digit limit. The message names ``what`` and the position, never the text.
    pydantic-core's parser reads the common case; whatever it refuses (or nests deeper than its limit of
    200) is read again by the json module, whose verdict and value count.
    """
    if type(text) is str or isinstance(text, bytes):
        try:
            return pydantic_core.from_json(text, allow_inf_nan=False, cache_strings="keys")
        except (ValueError, TypeError):  # TypeError: text with a lone surrogate has no UTF-8 form
            pass
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise CodecError(f"{what} is not UTF-8 text") from None
    if not isinstance(text, str):
        raise CodecError(f"{what} must be JSON text, got {type(text).__name__}")
    try:
        return _DECODER.decode(text)
    except RecursionError:
        raise CodecError(f"{what} is nested too deeply to parse") from None
    except json.JSONDecodeError as exc:
        raise CodecError(f"{what} is not valid JSON ({exc.msg} at position {exc.pos})") from None
    except ValueError:  # an integer literal longer than Python's digit limit
        raise CodecError(f"{what} holds a number that cannot be read") from None
