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

import binascii
import logging
from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from aimon_mongo import names as n
from aimon_mongo.codec._fields import clip, coerce_text, json_type, log_name
from aimon_mongo.codec.json_text import base64_text, compact_json, parse_json
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
from aimon_mongo.stored.user_input import UserInputJson

log = logging.getLogger(__name__)

_ADAPTER: TypeAdapter[UserInput] = TypeAdapter(UserInput)

TYPE_TAGS = frozenset({n.UI_TAG_TEXT, n.UI_TAG_IMAGE, n.UI_TAG_AUDIO, n.UI_TAG_FILE, n.UI_TAG_MULTIMODAL})


def encode(inp: UserInput) -> UserInputJson:
    """The JSON object of ``inp`` (keys in the frozen write order).

    Refuses a multimodal input nested deeper than :data:`MAX_NESTING` with :class:`CodecError`: no reader
    could decode it, so it is refused before anything is stored.
    """
    return _encode(inp, 0)


def _encode(inp: UserInput, depth: int) -> UserInputJson:
    if isinstance(inp, TextInput):
        return {n.UI_TYPE: n.UI_TAG_TEXT, n.UI_TEXT: inp.text}
    if isinstance(inp, ImageInput):
        return {n.UI_TYPE: n.UI_TAG_IMAGE, n.UI_MIME_TYPE: inp.mime_type, n.UI_DATA: base64_text(inp.data)}
    if isinstance(inp, AudioInput):
        return {n.UI_TYPE: n.UI_TAG_AUDIO, n.UI_MIME_TYPE: inp.mime_type, n.UI_DATA: base64_text(inp.data)}
    if isinstance(inp, FileInput):
        return {
            n.UI_TYPE: n.UI_TAG_FILE,
            n.UI_MIME_TYPE: inp.mime_type,
            n.UI_FILE_NAME: inp.file_name,
            n.UI_DATA: base64_text(inp.data),
        }
    if isinstance(inp, MultimodalInput):
        if depth >= MAX_NESTING:
            raise CodecError(f"user input nested deeper than {MAX_NESTING} levels")
        children = [_encode(child, depth + 1) for child in inp.inputs]
        return {n.UI_TYPE: n.UI_TAG_MULTIMODAL, n.UI_INPUTS: children}
    raise CodecError(f"cannot encode user input of type {type(inp).__name__}")


def encode_to_string(inp: UserInput) -> str:
    """Compact JSON text of :func:`encode` (the MongoDB form of ``userInputEncoded``)."""
    return compact_json(encode(inp), only_text=True)


def decode(obj: object) -> UserInput:
    """Strictly decode a JSON object into a :data:`UserInput`; refuses with :class:`CodecError`."""
    tree = _fields_tree(obj, 0)
    try:
        return _ADAPTER.validate_python(tree, strict=True)
    except ValidationError as exc:
        raise CodecError(f"cannot reconstruct the user input: {_first_error(exc)}") from None


def decode_from_string(text: str) -> UserInput:
    """Strictly decode the JSON text form; refuses with :class:`CodecError`."""
    return decode(parse_json(text, "encoded user input"))


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
        return decode_encoded(encoded)
    except Exception as exc:  # the line is the field, not the kind of failure
        warn_unreadable(exc, where)
        return TextInput(text=text)


def decode_encoded(encoded: object) -> UserInput:
    """Strictly read a present ``userInputEncoded`` value: JSON text (MongoDB) or a JSON object."""
    return decode_from_string(encoded) if isinstance(encoded, str) else decode(encoded)


def warn_unreadable(exc: Exception, where: str | None) -> None:
    """The one WARN of the degrade rule: names ``where`` (a session id) and the reason, never the payload."""
    log.warning(
        "unreadable userInputEncoded for session %s; using its text rendering instead: %s",
        log_name(where),
        _reason(exc),
    )


def _reason(exc: Exception) -> str:
    if isinstance(exc, CodecError):
        return str(exc)
    return type(exc).__name__


def _fields_tree(obj: object, depth: int) -> dict[str, Any]:
    """Check the stored shape and return the model fields, for one validation of the whole tree."""
    if depth > MAX_NESTING:
        raise CodecError(f"user input nested deeper than {MAX_NESTING} levels")
    if not isinstance(obj, Mapping):
        raise CodecError(f"user input must be a JSON object, got {json_type(obj)}")
    tag = _required_text(obj, n.UI_TYPE)
    if tag == n.UI_TAG_TEXT:
        return {"type": "text", "text": _required_text(obj, n.UI_TEXT)}
    if tag == n.UI_TAG_IMAGE or tag == n.UI_TAG_AUDIO:
        return {"type": tag, "mime_type": _required_text(obj, n.UI_MIME_TYPE), "data": _data(obj)}
    if tag == n.UI_TAG_FILE:
        return {
            "type": "file",
            "mime_type": _required_text(obj, n.UI_MIME_TYPE),
            "file_name": _required_text(obj, n.UI_FILE_NAME),
            "data": _data(obj),
        }
    if tag == n.UI_TAG_MULTIMODAL:
        inputs = obj.get(n.UI_INPUTS)
        if not isinstance(inputs, list) or not inputs:
            raise CodecError("multimodal input needs a non-empty 'inputs' array")
        return {"type": "multimodal", "inputs": tuple(_fields_tree(child, depth + 1) for child in inputs)}
    raise CodecError(f"Unknown user input type: {clip(tag)!r}")


def _required_text(obj: Mapping[str, Any], field: str) -> str:
    """A required leaf: any JSON scalar reads as text (as in the reference); null, missing, objects refuse."""
    value = obj.get(field)
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return coerce_text(value)
    raise CodecError(f"Missing or non-textual field '{field}'")


def _data(obj: Mapping[str, Any]) -> bytes:
    text = _required_text(obj, n.UI_DATA)
    try:  # standard alphabet, padding required, nothing after it, no line breaks
        return binascii.a2b_base64(text, strict_mode=True)
    except (binascii.Error, ValueError):
        raise CodecError("Invalid base64 payload in field 'data'") from None


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors(include_input=False, include_url=False)
    if not errors:
        return "invalid value"
    first = errors[0]
    loc = ".".join(str(part) for part in first.get("loc", ()))
    message = clip(str(first.get("msg", "invalid value")), 160)
    return f"{loc}: {message}" if loc else message
