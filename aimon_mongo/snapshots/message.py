"""The messages of a stored transcript: role, content blocks, tool calls and results, artifacts, reasoning.

These are values (pydantic v2, frozen). The snapshot codec writes them as the frozen message objects of
``JsonSessionSnapshotCodec`` (see :mod:`aimon_mongo.snapshots.codec`). So that pydantic-core can read and
write whole documents without Python code per field, each field also answers to its camel-case name
(``tool_use_id`` / ``toolUseId``: the stored spelling), fields that are stored only when set are left out
of dumps when empty, and the two binary blocks dump their stored form when serialised with
:data:`WIRE_CONTEXT`. Plain construction and ``model_dump`` otherwise work as usual.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    JsonValue,
    PlainSerializer,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

from aimon_mongo import names as n
from aimon_mongo.model._base import Frozen

WIRE_CONTEXT = {"aimon_mongo.snapshot_wire": True}
"""Serialisation context under which the blocks dump the stored form (base64 data, image ``source``)."""

_CAMEL = ConfigDict(alias_generator=to_camel, validate_by_name=True, validate_by_alias=False)
"""Aliases are the stored (camel-case) names: a codec validates and dumps with ``by_alias=True``; plain
construction takes the field names only."""


_empty: Callable[[Any], bool] = operator.not_
"""``not value``: a builtin, so pydantic-core's call per field runs no Python frame."""
_absent: Callable[[Any], bool] = functools.partial(operator.is_, None)
"""``value is None`` (``None is value``), likewise without a Python frame."""


def _wire(info: SerializationInfo | ValidationInfo) -> bool:
    context = info.context
    return isinstance(context, dict) and bool(context.get("aimon_mongo.snapshot_wire"))


class Role(StrEnum):
    """Who speaks. There is no SYSTEM role: the system prompt is kept beside the messages."""

    USER = n.SNAP_ROLE_USER
    ASSISTANT = n.SNAP_ROLE_ASSISTANT
    TOOL = n.SNAP_ROLE_TOOL


AS_TEXT = PlainSerializer(str, return_type=str, when_used="json")
"""Writes a text enum member (a ``StrEnum``: ``str`` of it is its value) in JSON without the enum
serializer's Python-level ``.value`` lookup per member; Python dumps keep the member."""


class ImageSource(StrEnum):
    """Where an image's bytes are: inline (base64 in the stored form) or behind a URL."""

    BASE64 = n.SNAP_IMAGE_SOURCE_BASE64
    URL = n.SNAP_IMAGE_SOURCE_URL


class TextBlock(Frozen):
    """A text content block."""

    model_config = _CAMEL

    type: Literal["text"] = "text"
    text: str


class _BinaryBlock(Frozen):
    """A block holding bytes: in the stored form they are base64 text (and an image names its source),
    which only the codec's careful reader and writer handle (:mod:`aimon_mongo.snapshots._message_codec`)."""

    model_config = _CAMEL

    @model_validator(mode="before")
    @classmethod
    def _not_from_the_stored_form(cls, value: Any, info: ValidationInfo) -> Any:
        if _wire(info):
            raise ValueError("binary content blocks are read by the careful reader")
        return value

    @model_serializer(mode="wrap")
    def _stored_form(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        if not _wire(info):
            return handler(self)
        from aimon_mongo.snapshots._message_codec import encode_block  # the stored spelling, written once

        return encode_block(self)  # type: ignore[arg-type]


class ImageBlock(_BinaryBlock):
    """An image content block: either inline ``data`` or a ``url``, never both."""

    type: Literal["image"] = "image"
    mime_type: str
    data: bytes | None = None
    url: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> ImageBlock:
        if (self.data is None) == (self.url is None):
            raise ValueError("an image block holds exactly one of data and url")
        return self

    @property
    def source(self) -> ImageSource:
        """``BASE64`` for inline bytes, ``URL`` otherwise."""
        return ImageSource.BASE64 if self.data is not None else ImageSource.URL

    @classmethod
    def of_bytes(cls, data: bytes, mime_type: str) -> ImageBlock:
        """An inline image."""
        return cls(mime_type=mime_type, data=data)

    @classmethod
    def of_url(cls, url: str, mime_type: str) -> ImageBlock:
        """An image behind a URL."""
        return cls(mime_type=mime_type, url=url)


class DocumentBlock(_BinaryBlock):
    """A document content block (inline bytes), optionally with its file name."""

    type: Literal["document"] = "document"
    mime_type: str
    data: bytes
    file_name: str | None = None


ContentBlock = Annotated[TextBlock | ImageBlock | DocumentBlock, Field(discriminator="type")]
"""Discriminated union of the content block kinds (discriminator: ``type``)."""


class ToolUse(Frozen):
    """A tool call the assistant made; ``input`` is an arbitrary JSON object."""

    model_config = _CAMEL

    id: str
    name: str
    input: dict[str, JsonValue] = Field(default_factory=dict)


class ToolResult(Frozen):
    """The answer to a tool call. (The reference's render payload is never persisted, so not kept.)"""

    model_config = _CAMEL

    tool_use_id: str
    content: str
    is_error: bool = False


class Artifact(Frozen):
    """A file a message refers to (stored in the virtual filesystem, not in the transcript)."""

    model_config = _CAMEL

    path: str
    file_name: str
    size: int = 0
    mime_type: str | None = Field(default=None, exclude_if=_absent)
    tool_use_id: str | None = Field(default=None, exclude_if=_absent)
    download_token: str | None = Field(default=None, exclude_if=_absent)


class ReasoningTrace(Frozen):
    """A provider's opaque reasoning record, kept so a resumed turn can hand it back to that provider."""

    model_config = _CAMEL

    provider: str
    payload: str
    tool_use_id: str | None = Field(default=None, exclude_if=_absent)


class Message(Frozen):
    """One message of a transcript."""

    model_config = _CAMEL

    role: Annotated[Role, AS_TEXT]
    content: tuple[ContentBlock, ...] = ()
    tool_uses: tuple[ToolUse, ...] = Field(default=(), exclude_if=_empty)
    tool_results: tuple[ToolResult, ...] = Field(default=(), exclude_if=_empty)
    artifacts: tuple[Artifact, ...] = Field(default=(), exclude_if=_empty)
    reasoning: tuple[ReasoningTrace, ...] = Field(default=(), exclude_if=_empty)

    @classmethod
    def text(cls, role: Role, text: str, **parts: Any) -> Message:
        """A message whose content is one text block (``parts`` fills the other fields)."""
        return cls(role=role, content=(TextBlock(text=text),), **parts)

    def text_content(self) -> str:
        """The text blocks joined by newlines (other blocks are left out)."""
        return "\n".join(block.text for block in self.content if isinstance(block, TextBlock))
