"""Freeze tests: the documents the MongoDB stores write, read back raw with PyMongo, against literals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from bson import ObjectId
from bson.int64 import Int64
from pymongo.synchronous.database import Database

from aimon_mongo.model import (
    CompletionReason,
    IdempotencyEntry,
    IdempotencyStatus,
    InboundMessage,
    Principal,
    Priority,
    SessionSignal,
    SignalKind,
    TextInput,
    TurnResult,
)
from aimon_mongo.model.record import LogSegment, SessionTotals
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema

T0 = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)


@pytest.fixture
def backends(mongo_db: Database[dict[str, Any]]) -> Any:
    ensure_schema(mongo_db)
    bundle = MongoSessionBackends(mongo_db, "node-a", clock=lambda: T0)
    yield bundle
    bundle.close()


def _near_now(value: Any) -> bool:
    return isinstance(value, datetime) and abs(value - datetime.now(UTC)) < timedelta(minutes=5)


def test_text_submission_inbox_document(backends: Any, mongo_db: Database[dict[str, Any]]) -> None:
    message = InboundMessage(
        session_id="s-1",
        turn_id="t-1",
        agent_ref="assistant",
        user_input=TextInput(text="hello"),
        priority=Priority.NEXT,
        initiator=Principal.user("u-1", "Ann"),
        delivered_at=T0,
        metadata={"k": "v"},
    )
    entry_id = backends.inbox.deliver(message)
    stored = mongo_db["conversation_inbox"].find_one({})
    assert stored is not None
    server_time = stored.pop("deliveredAt")
    assert _near_now(server_time)  # the server's $$NOW, not the envelope's instant
    assert stored == {
        "_id": ObjectId(entry_id),
        "conversationId": "s-1",
        "priority": 1,
        "payload": {
            "agentRef": "assistant",
            "contextDiscriminator": None,
            "userInput": "hello",
            "turnId": "t-1",
            "idempotencyKey": None,
            "initiator": {"type": "USER", "id": "u-1", "displayName": "Ann"},
            "deliveredAt": T0,
            "metadata": {"k": "v"},
        },
    }
    assert list(mongo_db["conversation_inbox"].find_one({}) or {}) == [
        "_id", "conversationId", "priority", "deliveredAt", "payload",
    ]  # fmt: skip


def test_dollar_strings_are_stored_literally(backends: Any, mongo_db: Database[dict[str, Any]]) -> None:
    message = InboundMessage(
        session_id="$$NOW",
        turn_id="$where",
        agent_ref="$agent",
        user_input=TextInput(text="$literal"),
        initiator=Principal.user("$u", "$name"),
        delivered_at=T0,
    )
    backends.inbox.deliver(message)
    stored = mongo_db["conversation_inbox"].find_one({})
    assert stored is not None
    assert (stored["conversationId"], stored["payload"]["turnId"], stored["payload"]["userInput"]) == (
        "$$NOW",
        "$where",
        "$literal",
    )
    [collected] = backends.inbox.collect("$$NOW").messages
    assert collected.agent_ref == "$agent" and collected.initiator.display_name == "$name"


def test_quarantine_document(backends: Any, mongo_db: Database[dict[str, Any]]) -> None:
    damaged = {"_id": ObjectId(), "conversationId": "s-q", "priority": 1, "deliveredAt": T0, "payload": "not a doc"}
    mongo_db["conversation_inbox"].insert_one(dict(damaged))
    batch = backends.inbox.collect("s-q")
    assert len(batch.unreadable) == 1
    stored = mongo_db["conversation_inbox_quarantine"].find_one({})
    assert stored is not None
    assert list(stored) == ["_id", "rawDocument", "error", "conversationId", "quarantinedAt"]
    assert stored["rawDocument"] == damaged
    assert stored["conversationId"] == "s-q"
    assert stored["quarantinedAt"] == T0
    assert "payload" in stored["error"]


def test_lease_document(backends: Any, mongo_db: Database[dict[str, Any]]) -> None:
    lease = backends.leases.try_acquire("s-l", "$holder", timedelta(seconds=30))
    stored = mongo_db["conversation_locks"].find_one({"_id": "s-l"})
    assert stored is not None
    assert set(stored) == {"_id", "holderId", "fencingToken", "acquiredAt", "leaseExpiresAt"}
    assert stored["holderId"] == "$holder"
    assert stored["fencingToken"] == lease.fencing_token and type(stored["fencingToken"]) is Int64
    assert stored["leaseExpiresAt"] - stored["acquiredAt"] == timedelta(seconds=30)
    backends.leases.release(lease)
    released = mongo_db["conversation_locks"].find_one({"_id": "s-l"})
    assert released is not None and released["holderId"] is None and released["fencingToken"] == lease.fencing_token
    again = backends.leases.try_acquire("s-l", "node-b", timedelta(seconds=30))
    assert again.fencing_token > lease.fencing_token
    stored = mongo_db["conversation_locks"].find_one({"_id": "s-l"})
    assert stored is not None and type(stored["fencingToken"]) is Int64


def test_idempotency_document(backends: Any, mongo_db: Database[dict[str, Any]]) -> None:
    entry = IdempotencyEntry(
        key="k-1",
        session_id="s-1",
        input_hash="ab12",
        status=IdempotencyStatus.IN_FLIGHT,
        holder_id="node-a/t/1",
        created_at=T0,
        last_touched_at=T0,
    )
    backends.idempotency.put_if_absent(entry, timedelta(seconds=30))
    stored = mongo_db["idempotency_entries"].find_one({"_id": "k-1"})
    assert stored is not None
    expires = stored.pop("expiresAt")
    assert _near_now(expires - timedelta(seconds=30))
    assert stored == {
        "_id": "k-1",
        "conversationId": "s-1",
        "inputHash": "ab12",
        "status": "IN_FLIGHT",
        "holderId": "node-a/t/1",
        "createdAt": T0,
        "lastTouchedAt": T0,
        "result": None,
        "ttlMillis": 30000,
    }
    backends.idempotency.release_holder("k-1", "node-a/t/1", timedelta(minutes=5))
    released = mongo_db["idempotency_entries"].find_one({"_id": "k-1"})
    assert released is not None and "holderId" not in released and released["ttlMillis"] == 300000
    backends.idempotency.acquire_holder("k-1", "h2", timedelta(seconds=30))
    result = TurnResult(success=False, error_message="boom", completion_reason=CompletionReason.ERROR)
    backends.idempotency.mark_done("k-1", result)
    done = mongo_db["idempotency_entries"].find_one({"_id": "k-1"})
    assert done is not None
    assert (done["status"], done["holderId"], done["ttlMillis"]) == ("DONE", None, 86400000)
    assert done["result"] == {
        "success": False,
        "finalAnswer": None,
        "errorMessage": "boom",
        "completionReason": "ERROR",
        "wasStreamed": False,
    }


def test_signal_document(backends: Any, mongo_db: Database[dict[str, Any]]) -> None:
    backends.signals.publish(
        SessionSignal(session_id="s-1", kind=SignalKind.EVICT, origin_node_id="node-a", payload={"reason": "X"})
    )
    stored = mongo_db["conversation_signals"].find_one({}, projection={"_id": 0})
    assert stored == {"conversationId": "s-1", "kind": "EVICT", "originNodeId": "node-a", "payload": {"reason": "X"}}


def test_record_segment_and_fence_documents(backends: Any, mongo_db: Database[dict[str, Any]]) -> None:
    backends.records.provision("s-r", "assistant", 3)
    backends.records.merge_transcript("s-r", "[]", 3)
    backends.records.set_totals_and_budget_override("s-r", SessionTotals(turn_count=1), {"max": 5}, 3)
    backends.records.increment_compaction_failure_count("s-r", 4)
    record = mongo_db["session_records"].find_one({"_id": "s-r"})
    assert record is not None
    assert _near_now(record.pop("updatedAt"))
    assert record == {
        "_id": "s-r",
        "agentRef": "assistant",
        "fencingToken": 4,
        "transcript": "[]",
        "sessionTotals": {
            "turnCount": 1, "iterations": 0, "promptTokens": 0, "completionTokens": 0, "totalTokens": 0,
            "reasoningTokens": 0,
        },
        "budgetOverride": {"max": 5},
        "compactionFailureCount": 1,
    }  # fmt: skip
    assert mongo_db["session_fences"].find_one({"_id": "s-r"}) == {"_id": "s-r", "highestToken": 4}

    backends.segments.put(
        LogSegment(
            session_id="s-r", segment_id="g-1", from_seq=0, to_seq=9, entry_count=10, payload="[]", created_at=T0
        ),
        4,
    )
    segment = mongo_db["session_log_segments"].find_one({})
    assert segment == {
        "_id": {"sessionId": "s-r", "segmentId": "g-1"},
        "sessionId": "s-r",
        "segmentId": "g-1",
        "fromSeq": 0,
        "toSeq": 9,
        "entryCount": 10,
        "payload": "[]",
        "createdAt": T0,
        "fencingToken": 4,
    }
    assert list(segment) == [
        "_id", "sessionId", "segmentId", "fromSeq", "toSeq", "entryCount", "payload", "createdAt", "fencingToken",
    ]  # fmt: skip
