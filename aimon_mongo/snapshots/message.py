"""The messages of a stored transcript: role, content blocks, tool calls and results, artifacts, reasoning.

These are values (pydantic v2, frozen). The snapshot codec writes them as the frozen message objects of
``JsonSessionSnapshotCodec`` (see :mod:`aimon_mongo.snapshots.codec`); nothing here knows the stored
spelling except the enum values, which are the stored names.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Field, JsonValue, model_validator

from aimon_mongo import names as n
from aimon_mongo.model._base import Frozen


class Role(StrEnum):
    """Who speaks. There is no SYSTEM role: the system prompt is kept beside the messages."""

    USER = n.SNAP_ROLE_USER
    ASSISTANT = n.SNAP_ROLE_ASSISTANT
    TOOL = n.SNAP_ROLE_TOOL


class ImageSource(StrEnum):
    """Where an image's bytes are: inline (base64 in the stored form) or behind a URL."""

    BASE64 = n.SNAP_IMAGE_SOURCE_BASE64
    URL = n.SNAP_IMAGE_SOURCE_URL


class TextBlock(Frozen):
    """A text content block."""

    type: Literal["text"] = "text"
    text: str


class ImageBlock(Frozen):
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


class DocumentBlock(Frozen):
    """A document content block (inline bytes), optionally with its file name."""

    type: Literal["document"] = "document"
    mime_type: str
    data: bytes
    file_name: str | None = None


ContentBlock = Annotated[TextBlock | ImageBlock | DocumentBlock, Field(discriminator="type")]
"""Discriminated union of the content block kinds (discriminator: ``type``)."""


class ToolUse(Frozen):
    """A tool call the assistant made; ``input`` is an arbitrary JSON object."""

    id: str
    name: str
    input: dict[str, JsonValue] = Field(default_factory=dict)


class ToolResult(Frozen):
    """The answer to a tool call. (The reference's render payload is never persisted, so not kept.)"""

    tool_use_id: str
    content: str
    is_error: bool = False


class Artifact(Frozen):
    """A file a message refers to (stored in the virtual filesystem, not in the transcript)."""

    path: str
    file_name: str
    size: int = 0
    mime_type: str | None = None
    tool_use_id: str | None = None
    download_token: str | None = None


class ReasoningTrace(Frozen):
    """A provider's opaque reasoning record, kept so a resumed turn can hand it back to that provider."""

    provider: str
    payload: str
    tool_use_id: str | None = None


class Message(Frozen):
    """One message of a transcript."""

    role: Role
    content: tuple[ContentBlock, ...] = ()
    tool_uses: tuple[ToolUse, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    artifacts: tuple[Artifact, ...] = ()
    reasoning: tuple[ReasoningTrace, ...] = ()

    @classmethod
    def text(cls, role: Role, text: str, **parts: Any) -> Message:
        """A message whose content is one text block (``parts`` fills the other fields)."""
        return cls(role=role, content=(TextBlock(text=text),), **parts)

    def text_content(self) -> str:
        """The text blocks joined by newlines (other blocks are left out)."""
        return "\n".join(block.text for block in self.content if isinstance(block, TextBlock))
