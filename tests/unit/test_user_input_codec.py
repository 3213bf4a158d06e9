"""UserInputCodec: shapes, renderings, the nesting bound, strict base64, and the inbox degrade rule."""

from __future__ import annotations

import json
import logging

import pytest

from aimon_mongo.codec import user_input as codec
from aimon_mongo.errors import CodecError
from aimon_mongo.model import AudioInput, FileInput, ImageInput, MultimodalInput, TextInput
from tests.strategies import nested_input

PNG = b"\x89PNG\r\n\x1a\n\x00\x01"


@pytest.mark.parametrize(
    ("inp", "shape"),
    [
        (TextInput(text="héllo"), {"type": "text", "text": "héllo"}),
        (
            ImageInput(mime_type="image/png", data=PNG),
            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgoAAQ=="},
        ),
        (
            AudioInput(mime_type="audio/ogg", data=b"OggS"),
            {"type": "audio", "mimeType": "audio/ogg", "data": "T2dnUw=="},
        ),
        (
            FileInput(mime_type="application/pdf", file_name="a.pdf", data=b"%PDF"),
            {"type": "file", "mimeType": "application/pdf", "fileName": "a.pdf", "data": "JVBERg=="},
        ),
        (
            MultimodalInput(inputs=(TextInput(text="a"), ImageInput(mime_type="image/gif", data=b""))),
            {
                "type": "multimodal",
                "inputs": [
                    {"type": "text", "text": "a"},
                    {"type": "image", "mimeType": "image/gif", "data": ""},
                ],
            },
        ),
    ],
)
def test_every_type_encodes_to_its_frozen_shape_and_back(inp: object, shape: dict[str, object]) -> None:
    encoded = codec.encode(inp)  # type: ignore[arg-type]
    assert encoded == shape
    assert list(encoded) == list(shape)  # key order is part of the shape
    assert codec.decode(shape) == inp
    text = codec.encode_to_string(inp)  # type: ignore[arg-type]
    assert text == json.dumps(shape, separators=(",", ":"), ensure_ascii=False)
    assert codec.decode_from_string(text) == inp


@pytest.mark.parametrize(
    ("inp", "rendering"),
    [
        (TextInput(text="plain words"), "plain words"),
        (ImageInput(mime_type="image/png", data=PNG), "[Image: image/png, 10 bytes]"),
        (AudioInput(mime_type="audio/wav", data=b"RIFF"), "[Audio: audio/wav, 4 bytes]"),
        (FileInput(mime_type="text/markdown", file_name="n.md", data="# Grüße\n".encode()), "# Grüße\n"),
        (FileInput(mime_type="text/plain", file_name="bad.txt", data=b"a\xffb"), "a\ufffdb"),
        (
            FileInput(mime_type="application/zip", file_name="x.zip", data=b"PK"),
            "[File: x.zip, application/zip, 2 bytes]",
        ),
        (
            MultimodalInput(
                inputs=(
                    TextInput(text="see"),
                    MultimodalInput(inputs=(ImageInput(mime_type="image/jpeg", data=b"123"),)),
                    TextInput(text="end"),
                )
            ),
            "see [Image: image/jpeg, 3 bytes] end",
        ),
    ],
)
def test_as_text_renderings(inp: object, rendering: str) -> None:
    assert inp.as_text() == rendering  # type: ignore[attr-defined]


def test_nesting_32_is_read_and_33_is_refused() -> None:
    deepest_allowed = nested_input(32)
    assert codec.decode(codec.encode(deepest_allowed)) == deepest_allowed
    too_deep = {"type": "text", "text": "leaf"}
    for _ in range(33):
        too_deep = {"type": "multimodal", "inputs": [too_deep]}
    with pytest.raises(CodecError, match="nested deeper than 32"):
        codec.decode(too_deep)
    with pytest.raises(CodecError, match="nested deeper than 32"):
        codec.decode_from_string(json.dumps(too_deep))


def test_encode_refuses_what_no_reader_could_decode() -> None:
    with pytest.raises(CodecError, match="nested deeper than 32"):
        codec.encode(nested_input(33))


@pytest.mark.parametrize(
    "data",
    [
        "YQ",  # padding missing
        "YQ=",  # padding short
        "YQ==YQ==",  # data after padding
        "YQ==\n",  # line break
        "Y Q==",  # space
        "YQ_-",  # URL-safe alphabet
        "=YQ=",  # leading padding
        "Y===",
        "wqk€==",  # non-ASCII
    ],
)
def test_base64_is_strict_standard_with_padding(data: str) -> None:
    with pytest.raises(CodecError, match="Invalid base64"):
        codec.decode({"type": "image", "mimeType": "image/png", "data": data})


def test_base64_accepts_padded_standard_alphabet() -> None:
    assert codec.decode({"type": "audio", "mimeType": "audio/x", "data": "+/+/"}) == AudioInput(
        mime_type="audio/x", data=b"\xfb\xff\xbf"
    )
    assert codec.decode({"type": "image", "mimeType": "image/x", "data": ""}).data == b""  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"type": "video", "mimeType": "video/mp4", "data": ""}, "Unknown user input type: 'video'"),
        ({"type": "image", "mimeType": "video/mp4", "data": ""}, "image/\\* MIME type"),
        ({"type": "audio", "mimeType": "image/png", "data": ""}, "audio/\\* MIME type"),
        ({"type": "text"}, "Missing or non-textual field 'text'"),
        ({"type": "text", "text": None}, "Missing or non-textual field 'text'"),
        ({"type": "text", "text": {"nested": 1}}, "Missing or non-textual field 'text'"),
        ({"type": "file", "mimeType": "a/b", "data": ""}, "Missing or non-textual field 'fileName'"),
        ({"text": "no type"}, "Missing or non-textual field 'type'"),
        ({"type": "multimodal"}, "non-empty 'inputs'"),
        ({"type": "multimodal", "inputs": []}, "non-empty 'inputs'"),
        ({"type": "multimodal", "inputs": {"0": {}}}, "non-empty 'inputs'"),
        ([{"type": "text", "text": "x"}], "must be a JSON object, got array"),
        ("text", "must be a JSON object, got string"),
    ],
)
def test_strict_decode_refuses(obj: object, message: str) -> None:
    with pytest.raises(CodecError, match=message):
        codec.decode(obj)


def test_scalar_leaves_read_as_text_like_the_reference() -> None:
    assert codec.decode({"type": "text", "text": 42}) == TextInput(text="42")
    assert codec.decode({"type": "text", "text": True}) == TextInput(text="true")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[1, 2]",
        '{"type": "text", "text": NaN}',
        "[" * 10_000,
        '{"type":"text","text":' + "1" * 5000 + "}",
    ],
)
def test_decode_from_string_refuses_only_with_codec_error(text: str) -> None:
    with pytest.raises(CodecError):
        codec.decode_from_string(text)


def test_decode_or_text_without_encoding_is_silent(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        assert codec.decode_or_text(None, "just text", "s-1") == TextInput(text="just text")
    assert caplog.records == []


@pytest.mark.parametrize("encoded", [{"type": "video"}, '{"type":"video"}', "{not json", [1], 7])
def test_decode_or_text_degrades_with_one_warning_naming_where(
    encoded: object, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        assert codec.decode_or_text(encoded, "the rendering", "sess-77") == TextInput(text="the rendering")
    assert len(caplog.records) == 1
    record = caplog.records[0]
    assert record.levelno == logging.WARNING
    assert "sess-77" in record.getMessage()
    assert "the rendering" not in record.getMessage()


def test_decode_or_text_names_unattributed_when_where_is_none(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        codec.decode_or_text({"type": "video"}, "x", None)
    assert "unattributed" in caplog.records[0].getMessage()


def test_decode_or_text_reads_a_valid_encoding_silently(caplog: pytest.LogCaptureFixture) -> None:
    inp = MultimodalInput(inputs=(TextInput(text="a"), AudioInput(mime_type="audio/x", data=b"1")))
    with caplog.at_level(logging.DEBUG):
        assert codec.decode_or_text(codec.encode(inp), inp.as_text(), "s") == inp
        assert codec.decode_or_text(codec.encode_to_string(inp), inp.as_text(), "s") == inp
    assert caplog.records == []


def test_type_tags() -> None:
    assert frozenset({"text", "image", "audio", "file", "multimodal"}) == codec.TYPE_TAGS
