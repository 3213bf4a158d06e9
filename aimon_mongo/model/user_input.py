"""What a user submitted: text, image, audio, a file, or a mix of them.

``as_text()`` gives the rendering stored under the frozen ``userInput`` key of every inbox envelope, so an
older node that only knows text still finds something it can run.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from aimon_mongo.model._base import Frozen

MAX_NESTING = 32
"""Deepest allowed multimodal nesting: the top object is depth 0, a child at depth 33 is refused."""


class TextInput(Frozen):
    """Plain text."""

    type: Literal["text"] = "text"
    text: str

    def as_text(self) -> str:
        return self.text


class ImageInput(Frozen):
    """Image bytes; ``mime_type`` must start with ``image/``."""

    type: Literal["image"] = "image"
    mime_type: str
    data: bytes

    @field_validator("mime_type")
    @classmethod
    def _image_mime(cls, value: str) -> str:
        if not value.startswith("image/"):
            raise ValueError(f"image input needs an image/* MIME type, got {value!r}")
        return value

    def as_text(self) -> str:
        return f"[Image: {self.mime_type}, {len(self.data)} bytes]"


class AudioInput(Frozen):
    """Audio bytes; ``mime_type`` must start with ``audio/``."""

    type: Literal["audio"] = "audio"
    mime_type: str
    data: bytes

    @field_validator("mime_type")
    @classmethod
    def _audio_mime(cls, value: str) -> str:
        if not value.startswith("audio/"):
            raise ValueError(f"audio input needs an audio/* MIME type, got {value!r}")
        return value

    def as_text(self) -> str:
        return f"[Audio: {self.mime_type}, {len(self.data)} bytes]"


class FileInput(Frozen):
    """A file of any MIME type. A ``text/*`` file renders as its UTF-8 content."""

    type: Literal["file"] = "file"
    mime_type: str
    file_name: str
    data: bytes

    def as_text(self) -> str:
        if self.mime_type.startswith("text/"):
            return self.data.decode("utf-8", errors="replace")
        return f"[File: {self.file_name}, {self.mime_type}, {len(self.data)} bytes]"


class MultimodalInput(Frozen):
    """An ordered, non-empty list of inputs (which may nest, up to :data:`MAX_NESTING`)."""

    type: Literal["multimodal"] = "multimodal"
    inputs: tuple[UserInput, ...] = Field(min_length=1)

    def as_text(self) -> str:
        return " ".join(child.as_text() for child in self.inputs)


UserInput = Annotated[
    TextInput | ImageInput | AudioInput | FileInput | MultimodalInput,
    Field(discriminator="type"),
]
"""Discriminated union of every input kind (discriminator: ``type``)."""

MultimodalInput.model_rebuild()
