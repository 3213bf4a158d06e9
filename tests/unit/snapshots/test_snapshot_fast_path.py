"""The codec's fast path (pydantic-core reads and writes whole documents) agrees with the careful one.

Whatever the fast reader accepts, the careful reader reads identically; whatever it declines (lenient
values, binary blocks, unknown keys) is left to the careful reader, which the codec then uses.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aimon_mongo.snapshots import JsonSessionSnapshotCodec, SessionLogFormat, SessionSnapshot
from aimon_mongo.snapshots import _json as j
from aimon_mongo.snapshots._message_codec import encode_message
from aimon_mongo.snapshots.codec import _decode_root, decode_fast
from aimon_mongo.snapshots.envelope import build_envelope, resume
from tests.unit.snapshots.snapshot_strategies import v1_snapshots, v2_snapshots

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=60)


def _careful_text(codec: JsonSessionSnapshotCodec, snapshot: SessionSnapshot) -> str:
    """The document as the careful writer writes it (messages encoded one by one, then ``j.dumps``)."""
    node = json.loads(codec.encode(snapshot))
    key = "entries" if node["version"] == 2 else "messages"
    carried = [entry.message for entry in snapshot.entries]
    if key == "messages":
        node[key] = [encode_message(message) for message in carried]
    else:
        node[key] = [{**entry, "message": encode_message(m)} for entry, m in zip(node[key], carried, strict=True)]
    return j.dumps(node)


@SETTINGS
@given(st.one_of(v1_snapshots(), v2_snapshots()), st.sampled_from(list(SessionLogFormat)))
def test_the_fast_writer_writes_the_careful_writers_bytes_and_the_fast_reader_agrees(
    snapshot: SessionSnapshot, fmt: SessionLogFormat
) -> None:
    codec = JsonSessionSnapshotCodec(fmt)
    text = codec.encode(snapshot)
    assert text == _careful_text(codec, snapshot)
    careful = _decode_root(j.loads(text))
    fast = decode_fast(text)
    if fast is not None:  # binary blocks and non-integer tool inputs are the careful reader's
        assert fast == careful
    assert codec.decode(text) == careful


def _v1(**message: Any) -> dict[str, Any]:
    base = {"role": "USER", "content": [{"type": "text", "text": "hi"}]}
    return {"version": 1, "conversationId": "s", "systemPrompt": None, "messages": [{**base, **message}]}


@pytest.mark.parametrize(
    "document",
    [
        _v1(toolResults=[{"toolUseId": "t", "content": "c", "isError": "true"}]),  # Jackson's asBoolean
        _v1(toolResults=[{"toolUseId": 7, "content": "c"}]),  # a number read as text
        _v1(artifacts=[{"path": "p", "fileName": "f", "size": "12"}]),  # numeric text read as a number
        _v1(toolUses=[{"id": "t", "name": "n", "input": None}]),  # null input: empty
        _v1(content=None),  # not an array: empty
        _v1(renderPayload="dropped"),  # unknown keys are ignored
        _v1(tool_uses=[{"id": "t", "name": "n"}]),  # the field name is no stored key: ignored
        _v1(content=[{"type": "image", "mimeType": "image/png", "source": "base64", "data": "aGk"}]),
        _v1(content=[{"type": "document", "mimeType": "text/plain", "data": "aGk="}]),
        {**_v1(), "version": "1"},
        {**_v1(), "compactionFailureCount": 3},
    ],
    ids=[
        "is-error-text",
        "id-number",
        "size-text",
        "null-input",
        "content-null",
        "unknown-key",
        "snake-key",
        "image",
        "document",
        "version-text",
        "retired-key",
    ],
)
def test_lenient_documents_are_left_to_the_careful_reader(document: dict[str, Any]) -> None:
    text = json.dumps(document)
    careful = _decode_root(j.loads(text))
    fast = decode_fast(text)
    assert fast is None or fast == careful
    assert JsonSessionSnapshotCodec().decode(text) == careful
    if "tool_uses" in document["messages"][0]:
        assert careful.entries[0].message.tool_uses == ()


def test_trailing_text_and_refusals_go_the_careful_way() -> None:
    text = json.dumps(_v1()) + " trailing"
    assert decode_fast(text) is None
    assert JsonSessionSnapshotCodec().decode(text) == _decode_root(j.loads(json.dumps(_v1())))


@SETTINGS
@given(v1_snapshots(), st.none() | st.just("agent:a"), st.just("agent:"))
def test_a_stored_envelope_resumes_the_same_both_ways(
    snapshot: SessionSnapshot, runtime_id: str | None, malformed: str
) -> None:
    codec = JsonSessionSnapshotCodec()
    data = build_envelope(codec, "sub", runtime_id, snapshot).encode("utf-8")
    resumed = resume(codec, "t", data)
    assert resumed is not None and resumed.snapshot == _decode_root(j.loads(codec.encode(snapshot)))
    assert resumed.agent_runtime_id == runtime_id and resumed.subagent_name == "sub"
    tampered = json.loads(data)
    tampered["contextId"] = malformed
    again = resume(codec, "t", json.dumps(tampered).encode("utf-8"))
    assert again is not None and again.agent_runtime_id is None


def test_plain_transcripts_take_the_fast_path() -> None:
    for fmt in SessionLogFormat:
        text = JsonSessionSnapshotCodec(fmt).encode(
            JsonSessionSnapshotCodec().decode(json.dumps(_v1(toolUses=[{"id": "t", "name": "n", "input": {"a": 1}}])))
        )
        assert decode_fast(text) is not None
