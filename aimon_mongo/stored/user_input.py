"""``UserInputCodec``: the frozen JSON of a user input (inbox ``userInputEncoded``, rewind points).

Every leaf is a string; ``data`` is standard base64; ``inputs`` is a non-empty array nested at most 32
levels (neither bound is a shape, so neither is declared here).
"""

from __future__ import annotations

from typing import Final, Literal, TypedDict

from aimon_mongo.stored.declare import Base64, Family, StoredRoot

FORMAT_VERSION: Final = 1
FAMILY: Final = Family("user-input", FORMAT_VERSION)


class TextInputJson(TypedDict):
    type: Literal["text"]
    text: str


class ImageInputJson(TypedDict):
    type: Literal["image"]
    mimeType: str
    data: Base64


class AudioInputJson(TypedDict):
    type: Literal["audio"]
    mimeType: str
    data: Base64


class FileInputJson(TypedDict):
    type: Literal["file"]
    mimeType: str
    fileName: str
    data: Base64


class MultimodalInputJson(TypedDict):
    type: Literal["multimodal"]
    inputs: list[UserInputJson]


UserInputJson = TextInputJson | ImageInputJson | AudioInputJson | FileInputJson | MultimodalInputJson

USER_INPUT: Final = StoredRoot("user-input", FAMILY, UserInputJson)
