"""``UserInputCodec``: the frozen JSON shape of a user input.

Shapes (keys in write order)::

    {"type": "text", "text": ...}
    {"type": "image", "mimeType": ..., "data": <base64>}
    {"type": "audio", "mimeType": ..., "data": <base64>}
    {"type": "file", "mimeType": ..., "fileName": ..., "data": <base64>}
    {"type": "multimodal", "inputs": [<input>, ...]}

The same encoding is in inbox entries (an object in Redis/PostgreSQL, the same JSON as *text* in
MongoDB) and in stored transcripts. :func:`decode` is strict; :func:`decode_or_text` is the inbox's
forward-compatibility rule: only the encoded field degrades, to the plain text beside it.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from aimon_mongo import names as n
from aimon_mongo.errors import CodecError
from aimon_mongo.model.user_input import (
    MAX_NESTING,
    AudioInput,
    FileInput,
    ImageInput,
    MultimodalInput,
    TextInput,
    UserInput,
)

log = logging.getLogger(__name__)

TYPE_TAGS = frozenset({n.UI_TAG_TEXT, n.UI_TAG_IMAGE, n.UI_TAG_AUDIO, n.UI_TAG_FILE, n.UI_TAG_MULTIMODAL})


def encode(inp: UserInput) -> dict[str, Any]:
    """The JSON object of ``inp`` (keys in the frozen write order)."""
    if isinstance(inp, TextInput):
        return {n.UI_TYPE: n.UI_TAG_TEXT, n.UI_TEXT: inp.text}
    if isinstance(inp, ImageInput):
        return {n.UI_TYPE: n.UI_TAG_IMAGE, n.UI_MIME_TYPE: inp.mime_type, n.UI_DATA: _b64(inp.data)}
    if isinstance(inp, AudioInput):
        return {n.UI_TYPE: n.UI_TAG_AUDIO, n.UI_MIME_TYPE: inp.mime_type, n.UI_DATA: _b64(inp.data)}
    if isinstance(inp, FileInput):
        return {
            n.UI_TYPE: n.UI_TAG_FILE,
            n.UI_MIME_TYPE: inp.mime_type,
            n.UI_FILE_NAME: inp.file_name,
            n.UI_DATA: _b64(inp.data),
        }
    if isinstance(inp, MultimodalInput):
        return {n.UI_TYPE: n.UI_TAG_MULTIMODAL, n.UI_INPUTS: [encode(child) for child in inp.inputs]}
    raise CodecError(f"cannot encode user input of type {type(inp).__name__}")


def encode_to_string(inp: UserInput) -> str:
    """Compact JSON text of :func:`encode` (the MongoDB form of ``userInputEncoded``)."""
    return json.dumps(encode(inp), separators=(",", ":"), ensure_ascii=False)


def decode(obj: object) -> UserInput:
    """Strictly decode a JSON object into a :data:`UserInput`; refuses with :class:`CodecError`."""
    return _decode(obj, 0)


def decode_from_string(text: str) -> UserInput:
    """Strictly decode the JSON text form; refuses with :class:`CodecError`."""
    if not isinstance(text, str):
        raise CodecError(f"encoded user input must be a JSON string, got {type(text).__name__}")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CodecError(f"encoded user input is not valid JSON ({exc.msg} at position {exc.pos})") from None
    except RecursionError:
        raise CodecError(f"encoded user input nested deeper than {MAX_NESTING} levels") from None
    return _decode(obj, 0)


def decode_or_text(encoded: object, text: str, where: str | None) -> UserInput:
    """The inbox rule: read ``encoded`` if it is readable, else fall back to ``TextInput(text)``.

    ``encoded`` is the ``userInputEncoded`` value: a JSON object (Redis/PostgreSQL), JSON text (MongoDB),
    or ``None`` when absent. Absent → ``TextInput(text)`` silently. Anything raised while reading a present
    value → one WARN naming ``where`` (the session id; ``"unattributed"`` when ``None``) and the reason,
    never the payload, and ``TextInput(text)``.
    """
    if encoded is None:
        return TextInput(text=text)
    try:
        return decode_from_string(encoded) if isinstance(encoded, str) else decode(encoded)
    except Exception as exc:  # the line is the field, not the kind of failure
        log.warning(
            "unreadable userInputEncoded for session %s; using its text rendering instead: %s",
            where if where is not None else "unattributed",
            _reason(exc),
        )
        return TextInput(text=text)


def _reason(exc: Exception) -> str:
    if isinstance(exc, CodecError):
        return str(exc)
    return type(exc).__name__


def _decode(obj: object, depth: int) -> UserInput:
    if depth > MAX_NESTING:
        raise CodecError(f"user input nested deeper than {MAX_NESTING} levels")
    if not isinstance(obj, Mapping):
        raise CodecError(f"user input must be a JSON object, got {_json_type(obj)}")
    tag = _required_text(obj, n.UI_TYPE)
    try:
        if tag == n.UI_TAG_TEXT:
            return TextInput(text=_required_text(obj, n.UI_TEXT))
        if tag == n.UI_TAG_IMAGE:
            return ImageInput(mime_type=_required_text(obj, n.UI_MIME_TYPE), data=_data(obj))
        if tag == n.UI_TAG_AUDIO:
            return AudioInput(mime_type=_required_text(obj, n.UI_MIME_TYPE), data=_data(obj))
        if tag == n.UI_TAG_FILE:
            return FileInput(
                mime_type=_required_text(obj, n.UI_MIME_TYPE),
                file_name=_required_text(obj, n.UI_FILE_NAME),
                data=_data(obj),
            )
        if tag == n.UI_TAG_MULTIMODAL:
            inputs = obj.get(n.UI_INPUTS)
            if not isinstance(inputs, list) or not inputs:
                raise CodecError("multimodal input needs a non-empty 'inputs' array")
            return MultimodalInput(inputs=tuple(_decode(child, depth + 1) for child in inputs))
    except ValidationError as exc:
        raise CodecError(f"cannot reconstruct the {tag} input: {_first_error(exc)}") from None
    raise CodecError(f"Unknown user input type: {_clip(tag)}")


def _required_text(obj: Mapping[str, Any], field: str) -> str:
    """A required leaf: any JSON scalar reads as text (as in the reference); null, missing, objects refuse."""
    value = obj.get(field)
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    raise CodecError(f"Missing or non-textual field '{field}'")


def _data(obj: Mapping[str, Any]) -> bytes:
    text = _required_text(obj, n.UI_DATA)
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise CodecError("Invalid base64 payload in field 'data'") from None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors(include_input=False, include_url=False)
    if not errors:
        return "invalid value"
    first = errors[0]
    loc = ".".join(str(part) for part in first.get("loc", ()))
    return f"{loc}: {first.get('msg', 'invalid value')}" if loc else str(first.get("msg", "invalid value"))


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def _clip(value: str, limit: int = 40) -> str:
    return value if len(value) <= limit else value[:limit] + "…"
