"""Property tests: random snapshots round-trip through encode/decode (version-1 shaped and version 2), and
fuzzed documents raise nothing but ``SnapshotCodecError``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from snapshot_strategies import json_values, messages, v1_snapshots, v2_snapshots

from aimon_mongo.errors import SnapshotCodecError
from aimon_mongo.snapshots import (
    JsonSessionSnapshotCodec,
    LogEntry,
    SessionLogFormat,
    SessionSnapshot,
    decode_entries,
    encode_entries,
)

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
V1 = JsonSessionSnapshotCodec()
V2 = JsonSessionSnapshotCodec(SessionLogFormat.V2)


@SETTINGS
@given(v1_snapshots())
def test_v1_shaped_snapshots_round_trip_through_both_formats(snapshot: SessionSnapshot) -> None:
    text = V1.encode(snapshot)
    assert json.loads(text)["version"] == 1
    assert V1.decode(text) == snapshot
    as_v2 = V2.decode(V2.encode(snapshot))
    assert as_v2.format is SessionLogFormat.V2
    assert as_v2.model_copy(update={"format": SessionLogFormat.V1}) == snapshot


@SETTINGS
@given(v2_snapshots())
def test_v2_snapshots_round_trip_and_are_never_written_as_v1(snapshot: SessionSnapshot) -> None:
    for codec in (V1, V2):
        text = codec.encode(snapshot)
        assert json.loads(text)["version"] == 2
        decoded = codec.decode(text)
        assert decoded == snapshot
        assert codec.encode(decoded) == text


@SETTINGS
@given(v2_snapshots())
def test_a_v1_state_with_gaps_is_written_as_positions(snapshot: SessionSnapshot) -> None:
    # Strip the version-2 parts; what stays is a V1-format state whose seqs may have gaps.
    state = SessionSnapshot(
        session_id=snapshot.session_id,
        next_seq=snapshot.next_seq,
        floor_seq=snapshot.floor_seq,
        entries=snapshot.entries,
        rewind_point=snapshot.rewind_point,
    )
    decoded = V1.decode(V1.encode(state))
    assert decoded.messages == state.messages
    assert [e.seq for e in decoded.entries] == list(range(state.message_count))
    assert decoded.rewind_message_count == state.rewind_message_count


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 2**62), messages), max_size=4))
def test_segment_payloads_round_trip(items: list[tuple[int, Any]]) -> None:
    entries = tuple(LogEntry(seq=seq, message=message) for seq, message in items)
    assert decode_entries(encode_entries(entries)) == entries


# --- fuzzing -------------------------------------------------------------------------------------------


def _decode_or_refuse(text: str) -> None:
    try:
        result = V1.decode(text)
    except SnapshotCodecError:
        return
    assert isinstance(result, SessionSnapshot)


@SETTINGS
@given(json_values)
def test_random_json_is_decoded_or_refused(value: Any) -> None:
    _decode_or_refuse(json.dumps(value))


@SETTINGS
@given(st.text(max_size=40))
def test_random_text_is_decoded_or_refused(text: str) -> None:
    _decode_or_refuse(text)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, child in node.items():
            out += _paths(child, (*prefix, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            out += _paths(child, (*prefix, index))
    return out


@SETTINGS
@given(st.one_of(v1_snapshots(), v2_snapshots()), st.data())
def test_right_keys_with_wrong_values_are_decoded_or_refused(snapshot: SessionSnapshot, data: st.DataObject) -> None:
    doc = json.loads(V1.encode(snapshot))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = _paths(doc)
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(json_values)
    _decode_or_refuse(json.dumps(doc))


@SETTINGS
@given(st.one_of(v1_snapshots(), v2_snapshots()), st.data())
def test_truncated_documents_are_refused(snapshot: SessionSnapshot, data: st.DataObject) -> None:
    text = V1.encode(snapshot)
    cut = data.draw(st.integers(0, len(text) - 1))
    with pytest.raises(SnapshotCodecError):
        V1.decode(text[:cut])


def _nested(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


@pytest.mark.parametrize(
    "text",
    [
        _nested(100_000),
        '{"version":1,"conversationId":"s","messages":' + _nested(50_000) + "}",
        '{"version":1,"conversationId":"s","messages":[{"role":"USER","toolUses":[{"id":"a","name":"b",'
        '"input":{"x":' + _nested(900) + "}}]}]}",
        '{"version":1,"conversationId":"s","messages":[{"role":"USER","toolUses":[{"id":"a","name":"b",'
        '"input":' + '{"x":' * 20_000 + "1" + "}" * 20_000 + "}]}]}",
        '{"version":2,"conversationId":"s","nextSeq":1,"floorSeq":0,"viewState":'
        + '{"summarySpan":' * 5000
        + "null"
        + "}" * 5000
        + "}",
    ],
    ids=["deep-array", "deep-messages", "deep-tool-input-900", "deep-tool-input-20000", "deep-view-state"],
)
def test_deep_nesting_is_decoded_or_refused(text: str) -> None:
    _decode_or_refuse(text)


def test_a_deeply_nested_rewind_input_drops_the_rewind_point() -> None:
    deep = '{"type":"text","text":"x"}'
    for _ in range(40):
        deep = '{"type":"multimodal","inputs":[' + deep + "]}"
    doc = '{"version":1,"conversationId":"s","messages":[],"rewindPoint":{"messageCount":0,"userInput":' + deep + "}}"
    assert V1.decode(doc).rewind_point is None


def test_a_deep_tool_input_that_decoded_encodes_back() -> None:
    doc = (
        '{"version":1,"conversationId":"s","systemPrompt":null,"messages":[{"role":"USER","content":[],'
        '"toolUses":[{"id":"a","name":"b","input":{"x":' + _nested(200) + "}}]}]}"
    )
    assert V1.encode(V1.decode(doc)) == doc
