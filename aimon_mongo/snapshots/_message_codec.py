"""The frozen message object, shared by snapshot documents (both versions) and sealed segment payloads.

Shape (keys in write order; the four arrays after ``content`` only when non-empty)::

    {"role": "USER"|"ASSISTANT"|"TOOL",
     "content": [{"type":"text","text"} | {"type":"image","mimeType","source":"base64","data"}
                 | {"type":"image","mimeType","source":"url","url"}
                 | {"type":"document","mimeType","data","fileName"?}],
     "toolUses": [{"id","name","input":{...}}],
     "toolResults": [{"toolUseId","content","isError"}],
     "artifacts": [{"path","fileName","size","mimeType"?,"toolUseId"?,"downloadToken"?}],
     "reasoning": [{"provider","payload","toolUseId"?}]}
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from aimon_mongo import names as n
from aimon_mongo.codec.json_text import base64_text
from aimon_mongo.errors import SnapshotCodecError
from aimon_mongo.snapshots import _json as j
from aimon_mongo.snapshots.message import (
    Artifact,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    Message,
    ReasoningTrace,
    Role,
    TextBlock,
    ToolResult,
    ToolUse,
)

_ROLES = {role.value: role for role in Role}
_BASE64 = re.compile(r"([A-Za-z0-9+/]*)(={0,2})\Z")
_CLIP = 40


def encode_message(message: Message) -> dict[str, Any]:
    """The stored object of ``message``."""
    out: dict[str, Any] = {
        n.SNAP_MSG_ROLE: message.role.value,
        n.SNAP_MSG_CONTENT: [encode_block(block) for block in message.content],
    }
    if message.tool_uses:
        out[n.SNAP_MSG_TOOL_USES] = [
            {n.SNAP_TOOL_USE_ID: t.id, n.SNAP_TOOL_USE_NAME: t.name, n.SNAP_TOOL_USE_INPUT: t.input}
            for t in message.tool_uses
        ]
    if message.tool_results:
        out[n.SNAP_MSG_TOOL_RESULTS] = [
            {
                n.SNAP_RESULT_TOOL_USE_ID: r.tool_use_id,
                n.SNAP_RESULT_CONTENT: r.content,
                n.SNAP_RESULT_IS_ERROR: r.is_error,
            }
            for r in message.tool_results
        ]
    if message.artifacts:
        out[n.SNAP_MSG_ARTIFACTS] = [_encode_artifact(a) for a in message.artifacts]
    if message.reasoning:
        out[n.SNAP_MSG_REASONING] = [_encode_reasoning(r) for r in message.reasoning]
    return out


def decode_message(node: object) -> Message:
    """Read a stored message object.

    Refuses with :class:`SnapshotCodecError` (the reference's own messages) or, for what the reference
    reports as a wrapped failure, :class:`~aimon_mongo.snapshots._json.MalformedError` /
    ``ValidationError``; the caller adds its "Failed to decode ..." prefix.
    """
    if not isinstance(node, dict):
        raise SnapshotCodecError("Message entry is not a JSON object")
    role_name = j.required_text(node, n.SNAP_MSG_ROLE)
    role = _ROLES.get(role_name)
    if role is None:
        raise SnapshotCodecError(f"Unknown message role: {clip(role_name)}")
    # Only the parts present are passed on: most messages carry one or two of them.
    parts: dict[str, Any] = {"role": role}
    for key, attr, decode_part in _PARTS:
        items = node.get(key)
        if isinstance(items, list) and items:
            parts[attr] = tuple(decode_part(item) for item in items)
    return Message(**parts)


def encode_block(block: ContentBlock) -> dict[str, Any]:
    """The stored object of a content block."""
    if isinstance(block, TextBlock):
        return {n.SNAP_BLOCK_TYPE: n.SNAP_BLOCK_TAG_TEXT, n.SNAP_BLOCK_TEXT: block.text}
    if isinstance(block, ImageBlock):
        if block.data is not None:
            return {
                n.SNAP_BLOCK_TYPE: n.SNAP_BLOCK_TAG_IMAGE,
                n.SNAP_BLOCK_MIME_TYPE: block.mime_type,
                n.SNAP_BLOCK_SOURCE: n.SNAP_IMAGE_SOURCE_BASE64,
                n.SNAP_BLOCK_DATA: base64_text(block.data),
            }
        return {
            n.SNAP_BLOCK_TYPE: n.SNAP_BLOCK_TAG_IMAGE,
            n.SNAP_BLOCK_MIME_TYPE: block.mime_type,
            n.SNAP_BLOCK_SOURCE: n.SNAP_IMAGE_SOURCE_URL,
            n.SNAP_BLOCK_URL: block.url,
        }
    out = {
        n.SNAP_BLOCK_TYPE: n.SNAP_BLOCK_TAG_DOCUMENT,
        n.SNAP_BLOCK_MIME_TYPE: block.mime_type,
        n.SNAP_BLOCK_DATA: base64_text(block.data),
    }
    if block.file_name is not None:
        out[n.SNAP_BLOCK_FILE_NAME] = block.file_name
    return out


def _decode_block(node: object) -> ContentBlock:
    if not isinstance(node, dict):
        raise SnapshotCodecError("Content block entry is not a JSON object")
    tag = j.required_text(node, n.SNAP_BLOCK_TYPE)
    if tag == n.SNAP_BLOCK_TAG_TEXT:
        return TextBlock(text=j.required_text(node, n.SNAP_BLOCK_TEXT))
    if tag == n.SNAP_BLOCK_TAG_IMAGE:
        mime = j.required_text(node, n.SNAP_BLOCK_MIME_TYPE)
        source = j.required_text(node, n.SNAP_BLOCK_SOURCE)
        if source == n.SNAP_IMAGE_SOURCE_BASE64:
            return ImageBlock(mime_type=mime, data=decode_base64(j.required_text(node, n.SNAP_BLOCK_DATA)))
        if source == n.SNAP_IMAGE_SOURCE_URL:
            return ImageBlock(mime_type=mime, url=j.required_text(node, n.SNAP_BLOCK_URL))
        raise SnapshotCodecError(f"Unknown image source: {clip(source)}")
    if tag == n.SNAP_BLOCK_TAG_DOCUMENT:
        mime = j.required_text(node, n.SNAP_BLOCK_MIME_TYPE)
        data = decode_base64(j.required_text(node, n.SNAP_BLOCK_DATA))
        return DocumentBlock(mime_type=mime, data=data, file_name=j.optional_text(node, n.SNAP_BLOCK_FILE_NAME))
    raise SnapshotCodecError(f"Unknown content block type: {clip(tag)}")


def _decode_tool_use(node: object) -> ToolUse:
    tool_id = j.required_text(node, n.SNAP_TOOL_USE_ID)
    name = j.required_text(node, n.SNAP_TOOL_USE_NAME)
    raw = j.field(node, n.SNAP_TOOL_USE_INPUT)
    if raw is None:
        raw = {}
    elif not isinstance(raw, dict):
        raise j.MalformedError("tool input 'input' is not a JSON object")
    return ToolUse(id=tool_id, name=name, input=raw)


def _decode_tool_result(node: object) -> ToolResult:
    return ToolResult(
        tool_use_id=j.required_text(node, n.SNAP_RESULT_TOOL_USE_ID),
        content=j.required_text(node, n.SNAP_RESULT_CONTENT),
        is_error=j.as_bool(j.field(node, n.SNAP_RESULT_IS_ERROR), False),
    )


def _encode_artifact(artifact: Artifact) -> dict[str, Any]:
    out: dict[str, Any] = {
        n.SNAP_ARTIFACT_PATH: artifact.path,
        n.SNAP_ARTIFACT_FILE_NAME: artifact.file_name,
        n.SNAP_ARTIFACT_SIZE: artifact.size,
    }
    if artifact.mime_type is not None:
        out[n.SNAP_ARTIFACT_MIME_TYPE] = artifact.mime_type
    if artifact.tool_use_id is not None:
        out[n.SNAP_ARTIFACT_TOOL_USE_ID] = artifact.tool_use_id
    if artifact.download_token is not None:
        out[n.SNAP_ARTIFACT_DOWNLOAD_TOKEN] = artifact.download_token
    return out


def _decode_artifact(node: object) -> Artifact:
    return Artifact(
        path=j.required_text(node, n.SNAP_ARTIFACT_PATH),
        file_name=j.required_text(node, n.SNAP_ARTIFACT_FILE_NAME),
        size=j.as_int(j.field(node, n.SNAP_ARTIFACT_SIZE), 0),
        mime_type=j.optional_text(node, n.SNAP_ARTIFACT_MIME_TYPE),
        tool_use_id=j.optional_text(node, n.SNAP_ARTIFACT_TOOL_USE_ID),
        download_token=j.optional_text(node, n.SNAP_ARTIFACT_DOWNLOAD_TOKEN),
    )


def _encode_reasoning(trace: ReasoningTrace) -> dict[str, Any]:
    out = {n.SNAP_REASONING_PROVIDER: trace.provider, n.SNAP_REASONING_PAYLOAD: trace.payload}
    if trace.tool_use_id is not None:
        out[n.SNAP_REASONING_TOOL_USE_ID] = trace.tool_use_id
    return out


def _decode_reasoning(node: object) -> ReasoningTrace:
    if not isinstance(node, dict):
        raise SnapshotCodecError("Reasoning trace entry is not a JSON object")
    return ReasoningTrace(
        provider=j.required_text(node, n.SNAP_REASONING_PROVIDER),
        payload=j.required_text(node, n.SNAP_REASONING_PAYLOAD),
        tool_use_id=j.optional_text(node, n.SNAP_REASONING_TOOL_USE_ID),
    )


_PARTS: tuple[tuple[str, str, Callable[[object], Any]], ...] = (
    (n.SNAP_MSG_CONTENT, "content", _decode_block),
    (n.SNAP_MSG_TOOL_USES, "tool_uses", _decode_tool_use),
    (n.SNAP_MSG_TOOL_RESULTS, "tool_results", _decode_tool_result),
    (n.SNAP_MSG_ARTIFACTS, "artifacts", _decode_artifact),
    (n.SNAP_MSG_REASONING, "reasoning", _decode_reasoning),
)


def decode_base64(text: str) -> bytes:
    """Standard base64 as Java's basic decoder reads it: padding optional but, when present, complete."""
    match = _BASE64.match(text)
    if match is None:
        raise SnapshotCodecError("Invalid base64 payload: field 'data' holds a non-base64 character")
    body, padding = match.groups()
    if len(body) % 4 == 1 or (padding and (len(body) + len(padding)) % 4 != 0):
        raise SnapshotCodecError("Invalid base64 payload: field 'data' has an incomplete final unit")
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except binascii.Error:
        raise SnapshotCodecError("Invalid base64 payload: field 'data' is not standard base64") from None


def first_error(exc: ValidationError) -> str:
    """The first problem of a pydantic error: our own validator's message, or location and reason."""
    errors = exc.errors(include_input=False, include_url=False)
    if not errors:
        return "invalid value"
    first = errors[0]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, ValueError):
        return str(cause)
    loc = ".".join(str(part) for part in first.get("loc", ()))
    msg = str(first.get("msg", "invalid value"))
    return f"{loc}: {msg}" if loc else msg


def clip(value: str) -> str:
    """A stored tag or name shown in an error, cut to 40 characters."""
    return value if len(value) <= _CLIP else value[:_CLIP] + "…"
