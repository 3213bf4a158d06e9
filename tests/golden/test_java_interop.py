"""Stored forms "written by a Java node" of the reference system, read and written back by every codec.

Each literal is what a reference node writes: instants with nine fraction digits (``java.time.Instant``
keeps nanoseconds), the LLM-call principal as a ``{type, id, displayName}`` object. Decoding keeps every
part; encoding the decoded value gives the reference's bytes back wherever the reference asserts bytes (the
JSON forms: the Redis stream field ``p``, the PostgreSQL ``payload`` text, the Redis task, idempotency and
segment values, snapshot documents) and the same document (keys in order) for the MongoDB forms. The string
form of ``llmCallMetadata.principal`` that earlier builds of this library wrote is still read.
"""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime, timedelta

import pytest

from aimon_mongo.codec import submit_options as submit_options_codec
from aimon_mongo.codec.idempotency import entry_from_json, entry_to_json
from aimon_mongo.codec.inbound import from_json_envelope, from_mongo_document, to_json_envelope, to_mongo_document
from aimon_mongo.codec.instant import format_instant
from aimon_mongo.codec.task import task_from_json, task_from_mongo, task_to_json, task_to_mongo
from aimon_mongo.errors import CodecError
from aimon_mongo.model import LlmCallMetadata, Principal, PrincipalType
from aimon_mongo.redis.layout import segment_from_json, segment_to_json
from aimon_mongo.snapshots import JsonSessionSnapshotCodec
from tests.golden.java_written import (
    CALL_PRINCIPAL,
    EXPECTED_OPTIONS,
    JAVA_ENVELOPE,
    JAVA_OPTIONS,
    MONGO_AT,
    NANO_INSTANT,
    OID,
    java_mongo_document,
)

# --- inbox: JSON envelope (Redis stream field "p", PostgreSQL payload) ---------------------------------


def test_java_envelope_decodes_with_nanoseconds_and_the_call_principal() -> None:
    msg = from_json_envelope(JAVA_ENVELOPE, "1751883330123-0")
    assert msg.delivered_at == NANO_INSTANT
    assert isinstance(msg.delivered_at, datetime) and msg.delivered_at.nanosecond == 123456789
    assert msg.submit_options == EXPECTED_OPTIONS
    call = msg.submit_options.llm_call_metadata
    assert call is not None and call.principal is not None
    assert (call.principal.type, call.principal.id, call.principal.display_name) == (
        PrincipalType.SERVICE,
        "svc-billing",
        "Billing",
    )


def test_java_envelope_is_written_back_byte_for_byte() -> None:
    assert to_json_envelope(from_json_envelope(JAVA_ENVELOPE, "1-0")) == JAVA_ENVELOPE


def test_postgres_jsonb_reordered_java_payload_reads_the_same() -> None:
    """PostgreSQL's jsonb keeps no key order: the payload comes back reordered, and reads the same."""
    reordered = json.dumps(json.loads(JAVA_ENVELOPE), sort_keys=True)
    msg = from_json_envelope(reordered, "17")
    assert msg.delivered_at == NANO_INSTANT and msg.submit_options == EXPECTED_OPTIONS
    # the envelope's own keys go back into the frozen order; map contents keep the order they were read in
    assert list(json.loads(to_json_envelope(msg))) == list(json.loads(JAVA_ENVELOPE))
    assert json.loads(to_json_envelope(msg)) == json.loads(JAVA_ENVELOPE)


# --- inbox: MongoDB document ---------------------------------------------------------------------------


def test_java_mongo_document_decodes_with_the_call_principal() -> None:
    msg = from_mongo_document(java_mongo_document())
    assert msg.id == str(OID)
    assert msg.submit_options == EXPECTED_OPTIONS
    assert msg.delivered_at == MONGO_AT


def test_java_mongo_document_is_written_back_unchanged() -> None:
    written = to_mongo_document(from_mongo_document(java_mongo_document()), OID)
    original = java_mongo_document()
    assert written == original
    assert list(written) == list(original)
    assert list(written["payload"]) == list(original["payload"])  # type: ignore[call-overload]
    options = written["payload"]["submitOptions"]
    assert list(options["llmCallMetadata"]) == [
        "component",
        "parentComponent",
        "feature",
        "principal",
        "traceId",
        "tags",
    ]
    assert options["llmCallMetadata"]["principal"] == {
        "type": "SERVICE",
        "id": "svc-billing",
        "displayName": "Billing",
    }


# --- the string form earlier builds of this library wrote ----------------------------------------------


def test_the_string_call_principal_earlier_builds_wrote_is_read_as_a_user() -> None:
    old = '{"llmCallMetadata":{"component":"router","principal":"ada@example.com","traceId":"t-1"}}'
    options = submit_options_codec.decode(json.loads(old))
    call = options.llm_call_metadata
    assert call is not None
    assert call.principal == Principal.user("ada@example.com")
    assert call.principal is not None and call.principal.display_name == "ada@example.com"
    # The next write stores the object form every reader understands.
    assert submit_options_codec.encode(options)["llmCallMetadata"] == {
        "component": "router",
        "principal": {"type": "USER", "id": "ada@example.com", "displayName": "ada@example.com"},
        "traceId": "t-1",
    }


@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_string_call_principal_reads_as_none(blank: str) -> None:
    options = submit_options_codec.decode({"llmCallMetadata": {"principal": blank, "feature": "f"}})
    assert options.llm_call_metadata == LlmCallMetadata(feature="f")


def test_a_store_holding_both_forms_reads_every_entry() -> None:
    old_envelope = JAVA_ENVELOPE.replace(CALL_PRINCIPAL, '"svc-billing"')
    new_msg = from_json_envelope(JAVA_ENVELOPE, "1-0")
    old_msg = from_json_envelope(old_envelope, "1-1")
    new_call = new_msg.submit_options.llm_call_metadata
    old_call = old_msg.submit_options.llm_call_metadata
    assert new_call is not None and old_call is not None
    assert new_call.principal == Principal(type=PrincipalType.SERVICE, id="svc-billing", display_name="Billing")
    assert old_call.principal == Principal.user("svc-billing")


@pytest.mark.parametrize(
    "damaged",
    [
        '{"type":"ROBOT","id":"x","displayName":"X"}',
        '{"type":"USER","id":"","displayName":"X"}',
        '{"type":"USER","id":7,"displayName":"X"}',
        "42",
        "[]",
    ],
)
def test_a_damaged_call_principal_refuses_like_the_reference(damaged: str) -> None:
    with pytest.raises(CodecError, match=r"llmCallMetadata\.principal|principal"):
        submit_options_codec.decode(json.loads(f'{{"llmCallMetadata":{{"principal":{damaged}}}}}'))


def test_the_model_still_accepts_a_string_with_a_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match="Principal"):
        call = LlmCallMetadata(principal="ada")  # type: ignore[arg-type]
    assert call.principal == Principal.user("ada")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert LlmCallMetadata(principal=Principal.system()).principal == Principal.system()


# --- tasks, idempotency, segments: Redis JSON values with nanosecond instants --------------------------

JAVA_TASK = (
    '{"taskId":"task-9","subagentName":"researcher","state":"RUNNING",'
    '"startTime":"2026-07-07T10:15:30.123456789Z","outputOffset":2048,"description":"crawl",'
    '"owner":{"type":"USER","id":"u-42","displayName":"Ada Lovelace"},"contextId":"ctx-1",'
    '"lastHeartbeat":"2026-07-07T10:16:00.000000001Z"}'
)


def test_java_task_keeps_its_nanoseconds_through_a_read_and_rewrite() -> None:
    task = task_from_json(JAVA_TASK)
    assert task.start_time == NANO_INSTANT
    assert task_to_json(task) == JAVA_TASK
    # a transition rewrites the record: the start time keeps all nine digits
    finished = task.model_copy(update={"end_time": datetime(2026, 7, 7, 10, 20, tzinfo=UTC)})
    assert '"startTime":"2026-07-07T10:15:30.123456789Z"' in task_to_json(finished)
    assert '"lastHeartbeat":"2026-07-07T10:16:00.000000001Z"' in task_to_json(finished)


def test_java_mongo_task_round_trips_its_dates() -> None:
    doc = task_to_mongo(task_from_json(JAVA_TASK))
    assert doc["startTime"] == NANO_INSTANT  # handed to BSON, which stores milliseconds (documented)
    assert task_to_mongo(task_from_mongo(doc)) == doc


JAVA_IDEMPOTENCY = (
    '{"key":"idem-7","conversationId":"conv-java","inputHash":"sha256:ab12","status":"IN_FLIGHT",'
    '"holderId":"node-j","createdAt":"2026-07-07T10:15:30.123456789Z",'
    '"lastTouchedAt":"2026-07-07T10:15:31.987654321Z","ttlMillis":600000,"result":null}'
)


def test_java_idempotency_entry_keeps_its_nanoseconds() -> None:
    entry, ttl = entry_from_json(JAVA_IDEMPOTENCY)
    assert entry.created_at == NANO_INSTANT and ttl == 600000
    assert entry_to_json(entry, timedelta(milliseconds=600000)) == JAVA_IDEMPOTENCY


JAVA_SEGMENT = (
    '{"sessionId":"conv-java","segmentId":"seg-1","fromSeq":0,"toSeq":9,"entryCount":10,'
    '"payload":"opaque","createdAt":"2026-07-07T10:15:30.123456789Z"}'
)


def test_java_segment_keeps_its_nanoseconds() -> None:
    segment = segment_from_json(JAVA_SEGMENT)
    assert segment.created_at == NANO_INSTANT
    assert segment_to_json(segment) == JAVA_SEGMENT


@pytest.mark.parametrize(
    "text",
    ["2026-07-07T10:15:30.123456789Z", "2026-07-07T10:15:30.000000001Z", "2026-07-07T10:15:30.123456Z"],
)
def test_every_text_instant_writer_keeps_the_digits(text: str) -> None:
    envelope = JAVA_ENVELOPE.replace("2026-07-07T10:15:30.123456789Z", text)
    assert to_json_envelope(from_json_envelope(envelope, "1-0")) == envelope
    task = JAVA_TASK.replace("2026-07-07T10:15:30.123456789Z", text)
    assert task_to_json(task_from_json(task)) == task
    assert format_instant(from_json_envelope(envelope, "1-0").delivered_at) == text


# --- snapshots: a rewind point carrying the call principal ---------------------------------------------

JAVA_SNAPSHOT = (
    '{"version":2,"conversationId":"conv-java","systemPrompt":null,"nextSeq":2,"floorSeq":0,"entries":['
    '{"seq":0,"origin":"CONVERSATION","message":{"role":"USER","content":[{"type":"text","text":"Hi"}]}},'
    '{"seq":1,"origin":"CONVERSATION","message":{"role":"ASSISTANT","content":[{"type":"text","text":"Hello"}]}}],'
    '"rewindPoint":{"seq":1,"userInput":{"type":"text","text":"Hi"},"submitOptions":' + JAVA_OPTIONS + "}}"
)


def test_java_snapshot_keeps_its_rewind_point_and_round_trips_byte_for_byte() -> None:
    codec = JsonSessionSnapshotCodec()
    snapshot = codec.decode(JAVA_SNAPSHOT)
    assert snapshot.rewind_point is not None  # before the fix the principal object dropped the rewind point
    assert snapshot.rewind_point.submit_options == EXPECTED_OPTIONS
    assert codec.encode(snapshot) == JAVA_SNAPSHOT
