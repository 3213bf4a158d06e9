"""The fast path without per-field Python: what it still hands to the careful writer and reader.

The tool-input float check runs before the dump (not as a serializer callback), the enums are written
through ``str``, version-2 entries are validated straight into ``LogEntry``; each keeps the careful
path's bytes and refusals.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from aimon_mongo.errors import SnapshotCodecError
from aimon_mongo.snapshots import (
    JsonSessionSnapshotCodec,
    LogEntry,
    LogOrigin,
    Message,
    Role,
    SessionLogFormat,
    SessionSnapshot,
    ToolUse,
)
from aimon_mongo.snapshots import _json as j
from aimon_mongo.snapshots.codec import _decode_root, decode_fast


def _with_input(value: Any) -> SessionSnapshot:
    uses = (ToolUse(id="t", name="n", input={"plain": 1}), ToolUse(id="u", name="n", input={"deep": value}))
    return SessionSnapshot.of_messages(
        "s", [Message.text(Role.USER, "hi"), Message(role=Role.ASSISTANT, tool_uses=uses)]
    )


@pytest.mark.parametrize("fmt", list(SessionLogFormat))
@pytest.mark.parametrize("value", [1e20, [1, {"x": 2.5}], {"a": [[0.1]]}], ids=["exponent", "in-list", "nested"])
def test_a_float_anywhere_in_a_tool_input_is_written_by_the_careful_writer(fmt: SessionLogFormat, value: Any) -> None:
    text = JsonSessionSnapshotCodec(fmt).encode(_with_input(value))
    node = json.loads(text)
    messages = node["messages"] if fmt is SessionLogFormat.V1 else [e["message"] for e in node["entries"]]
    assert messages[1]["toolUses"][1]["input"] == {"deep": value}
    assert j.dumps(node) == text  # Python's spelling of floats, as the careful writer writes them
    if value == 1e20:
        assert '"deep":1e+20' in text


@pytest.mark.parametrize("fmt", list(SessionLogFormat))
@pytest.mark.parametrize("value", [float("nan"), [float("inf")], {"x": -float("inf")}], ids=["nan", "inf", "ninf"])
def test_nan_and_infinities_in_a_nested_tool_input_are_refused(fmt: SessionLogFormat, value: Any) -> None:
    with pytest.raises(SnapshotCodecError, match="a number is NaN or infinite"):
        JsonSessionSnapshotCodec(fmt).encode(_with_input(value))


def test_integers_and_booleans_in_tool_inputs_stay_on_the_fast_path() -> None:
    snapshot = _with_input({"n": 3, "ok": True, "list": [1, None, "x"]})
    text = JsonSessionSnapshotCodec().encode(snapshot)
    assert '"deep":{"n":3,"ok":true,"list":[1,null,"x"]}' in text
    assert decode_fast(text) == snapshot


def test_models_outside_the_codec_dump_floats_and_enum_members_as_before() -> None:
    use = ToolUse(id="t", name="n", input={"x": 1.5})
    message = Message(role=Role.TOOL, tool_uses=(use,))
    assert json.loads(message.model_dump_json())["tool_uses"][0]["input"] == {"x": 1.5}
    assert message.model_dump()["role"] is Role.TOOL
    assert message.model_dump(mode="json")["role"] == "TOOL"
    entry = LogEntry(seq=0, origin=LogOrigin.SYNTHETIC, message=message)
    assert entry.model_dump()["origin"] is LogOrigin.SYNTHETIC
    assert json.loads(entry.model_dump_json())["origin"] == "SYNTHETIC"


def _v2(**entry: Any) -> dict[str, Any]:
    base = {"seq": 0, "origin": "SYNTHETIC", "message": {"role": "USER", "content": [{"type": "text", "text": "hi"}]}}
    return {
        "version": 2,
        "conversationId": "s",
        "systemPrompt": None,
        "nextSeq": 1,
        "floorSeq": 0,
        "entries": [{**base, **entry}],
    }


def test_version_2_entries_are_read_whole_by_the_fast_reader() -> None:
    text = json.dumps(_v2(), separators=(",", ":"))
    fast = decode_fast(text)
    assert fast is not None and fast == _decode_root(j.loads(text))
    assert type(fast.entries[0]) is LogEntry and fast.entries[0].origin is LogOrigin.SYNTHETIC


def test_a_version_2_entry_without_its_origin_is_refused_not_defaulted() -> None:
    document = _v2()
    del document["entries"][0]["origin"]
    text = json.dumps(document)
    assert decode_fast(text) is None
    with pytest.raises(SnapshotCodecError, match="Missing or non-textual field 'origin'"):
        JsonSessionSnapshotCodec().decode(text)


@pytest.mark.parametrize(
    "entry",
    [{"extra": 1}, {"origin": "MEMORY"}, {"seq": -1}, {"seq": 2**63}, {"origin": 3}],
    ids=["unknown-key", "unknown-origin", "negative-seq", "seq-beyond-long", "origin-number"],
)
def test_unusual_version_2_entries_read_as_the_careful_reader_reads_them(entry: dict[str, Any]) -> None:
    text = json.dumps(_v2(**entry))
    codec = JsonSessionSnapshotCodec()
    fast = decode_fast(text)
    try:
        careful = codec.decode_object(j.loads(text))  # the careful reader alone
    except SnapshotCodecError as refusal:
        assert fast is None
        with pytest.raises(SnapshotCodecError) as refused:
            codec.decode(text)
        assert str(refused.value) == str(refusal)
        return
    assert fast is None or fast == careful
    assert codec.decode(text) == careful
