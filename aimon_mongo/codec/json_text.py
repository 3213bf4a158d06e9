"""The one JSON reader and writer of stored shapes, and binary carried as base64 text.

:func:`compact_json` / :data:`encode_compact` write compact JSON (``,`` and ``:``, non-ASCII kept, NaN and
infinities refused); :func:`parse_json` / :data:`DECODER` read strict JSON (``NaN`` / ``Infinity`` literals
refused). The session codecs use the ``CodecError`` forms; the snapshot codec (which reads and writes the
way the reference's Jackson does, :mod:`aimon_mongo.snapshots._json`) builds on the raw ones.
"""

from __future__ import annotations

import binascii
import json
from collections.abc import Callable
from typing import Final

import pydantic_core

from aimon_mongo.errors import CodecError


def base64_text(data: bytes) -> str:
    """``data`` as standard base64 text (padded, no line breaks)."""
    return binascii.b2a_base64(data, newline=False).decode("ascii")


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


encode_compact: Final = _make_encoder()
"""Compact JSON text of a value (``,`` and ``:``, non-ASCII kept): the one JSON writer. Raises ``ValueError``
for NaN and infinities, ``TypeError`` for a value JSON cannot carry, ``RecursionError`` for a cycle;
:func:`compact_json` names these as :class:`CodecError`."""


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
        return encode_compact(value)
    except ValueError:
        raise CodecError("value holds NaN or Infinity, which JSON cannot carry") from None
    except TypeError as exc:
        raise CodecError(f"value cannot be written as JSON: {exc}") from None
    except RecursionError:
        raise CodecError("value is nested too deeply (or refers to itself) to be written as JSON") from None


class NonStandardNumber(ValueError):
    """JSON text holds ``NaN``, ``Infinity`` or ``-Infinity`` (:attr:`literal`), which JSON does not allow."""

    def __init__(self, literal: str) -> None:
        self.literal = literal
        super().__init__(f"non-standard number literal {literal}")


def _refuse_constant(name: str) -> object:
    raise NonStandardNumber(name)


DECODER: Final = json.JSONDecoder(parse_constant=_refuse_constant)
"""The strict JSON decoder: the json module's, refusing ``NaN`` / ``Infinity`` with :class:`NonStandardNumber`
(``DECODER.decode`` for a whole text, ``DECODER.raw_decode`` for its first value)."""


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
        return DECODER.decode(text)
    except NonStandardNumber as exc:
        raise CodecError(f"JSON text holds {exc.literal}, which JSON does not allow") from None
    except RecursionError:
        raise CodecError(f"{what} is nested too deeply to parse") from None
    except json.JSONDecodeError as exc:
        raise CodecError(f"{what} is not valid JSON ({exc.msg} at position {exc.pos})") from None
    except ValueError:  # an integer literal longer than Python's digit limit
        raise CodecError(f"{what} holds a number that cannot be read") from None
