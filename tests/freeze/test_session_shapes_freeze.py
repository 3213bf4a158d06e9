"""Freeze tests: the stored shapes of signals, idempotency entries, tasks and totals, against literals.

Every expectation is a hard-coded literal (never a constant from ``names.py``): encoder and decoder share
the constants, so a rename would move both sides while every round trip stays green.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bson.int64 import Int64

from aimon_mongo.codec import idempotency as idem
from aimon_mongo.codec import signal as sig
from aimon_mongo.codec import task as task_codec
from aimon_mongo.codec import totals as totals_codec
from aimon_mongo.model import (
    BackgroundTask,
    CompletionReason,
    IdempotencyEntry,
    IdempotencyStatus,
    Principal,
    SessionSignal,
    SignalKind,
    TaskState,
    TurnResult,
)
from aimon_mongo.model.record import SessionTotals

T0 = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
T1 = datetime(2026, 1, 2, 3, 4, 6, tzinfo=UTC)


def test_signal_shape() -> None:
    signal = SessionSignal(
        session_id="s-1", kind=SignalKind.INTERRUPT, origin_node_id="node-a", payload={"reason": "USER_SIGINT"}
    )
    doc = sig.encode_signal(signal)
    assert list(doc) == ["conversationId", "kind", "originNodeId", "payload"]
    assert doc == {
        "conversationId": "s-1",
        "kind": "INTERRUPT",
        "originNodeId": "node-a",
        "payload": {"reason": "USER_SIGINT"},
    }
    assert sig.signal_to_json(signal) == (
        '{"conversationId":"s-1","kind":"INTERRUPT","originNodeId":"node-a","payload":{"reason":"USER_SIGINT"}}'
    )
    assert [k.value for k in SignalKind] == [
        "INTERRUPT", "EVICT", "YIELD", "MESSAGE_ENQUEUED", "EVENT", "TURN_RESULT", "STATUS",
    ]  # fmt: skip


def _entry(**changes: object) -> IdempotencyEntry:
    fields: dict[str, object] = {
        "key": "k-1",
        "session_id": "s-1",
        "input_hash": "ab12",
        "status": IdempotencyStatus.IN_FLIGHT,
        "holder_id": "node-a/t/1",
        "created_at": T0,
        "last_touched_at": T1,
    }
    fields.update(changes)
    return IdempotencyEntry.model_validate(fields)


def test_idempotency_redis_value_exact_text() -> None:
    assert idem.entry_to_json(_entry(), timedelta(seconds=30)) == (
        '{"key":"k-1","conversationId":"s-1","inputHash":"ab12","status":"IN_FLIGHT","holderId":"node-a/t/1",'
        '"createdAt":"2026-01-02T03:04:05.678Z","lastTouchedAt":"2026-01-02T03:04:06Z","ttlMillis":30000,'
        '"result":null}'
    )
    done = _entry(
        status=IdempotencyStatus.DONE,
        holder_id=None,
        result=TurnResult(success=True, final_answer="42", completion_reason=CompletionReason.COMPLETED),
    )
    assert idem.entry_to_json(done, timedelta(hours=24)) == (
        '{"key":"k-1","conversationId":"s-1","inputHash":"ab12","status":"DONE","holderId":null,'
        '"createdAt":"2026-01-02T03:04:05.678Z","lastTouchedAt":"2026-01-02T03:04:06Z","ttlMillis":86400000,'
        '"result":{"success":true,"finalAnswer":"42","errorMessage":null,"completionReason":"COMPLETED",'
        '"wasStreamed":false}}'
    )


def test_idempotency_mongo_fields() -> None:
    doc = idem.entry_to_mongo(_entry())
    assert list(doc) == [
        "_id", "conversationId", "inputHash", "status", "holderId", "createdAt", "lastTouchedAt", "result",
    ]  # fmt: skip
    assert doc["_id"] == "k-1" and doc["createdAt"] == T0 and doc["result"] is None


def test_task_mongo_document_and_redis_value() -> None:
    task = BackgroundTask(
        task_id="t-1",
        subagent_name="researcher",
        description="find things",
        state=TaskState.COMPLETED,
        start_time=T0,
        end_time=T1,
        output_offset=12,
        owner=Principal.user("u-1", "Ann"),
        agent_runtime_id="agent:researcher:x",
        last_heartbeat=T1,
    )
    doc = task_codec.task_to_mongo(task)
    assert list(doc) == [
        "_id", "subagentName", "description", "state", "startTime", "outputOffset", "endTime", "owner",
        "contextId", "lastHeartbeat",
    ]  # fmt: skip
    assert doc == {
        "_id": "t-1",
        "subagentName": "researcher",
        "description": "find things",
        "state": "COMPLETED",
        "startTime": T0,
        "outputOffset": Int64(12),
        "endTime": T1,
        "owner": {"type": "USER", "id": "u-1", "displayName": "Ann"},
        "contextId": "agent:researcher:x",
        "lastHeartbeat": T1,
    }
    assert type(doc["outputOffset"]) is Int64
    assert task_codec.task_to_json(task) == (
        '{"taskId":"t-1","subagentName":"researcher","state":"COMPLETED","startTime":"2026-01-02T03:04:05.678Z",'
        '"endTime":"2026-01-02T03:04:06Z","outputOffset":12,"description":"find things",'
        '"owner":{"type":"USER","id":"u-1","displayName":"Ann"},"contextId":"agent:researcher:x",'
        '"lastHeartbeat":"2026-01-02T03:04:06Z"}'
    )


def test_task_optional_keys_are_omitted() -> None:
    task = BackgroundTask(task_id="t-2", subagent_name="w", state=TaskState.PENDING, start_time=T0)
    assert task_codec.task_to_mongo(task) == {
        "_id": "t-2",
        "subagentName": "w",
        "description": "",
        "state": "PENDING",
        "startTime": T0,
        "outputOffset": Int64(0),
    }
    assert task_codec.task_to_json(task) == (
        '{"taskId":"t-2","subagentName":"w","state":"PENDING","startTime":"2026-01-02T03:04:05.678Z",'
        '"outputOffset":0,"description":""}'
    )


def test_totals_shape() -> None:
    totals = SessionTotals(
        turn_count=1, iterations=2, prompt_tokens=3, completion_tokens=4, total_tokens=7, reasoning_tokens=5
    )
    assert totals_codec.totals_to_json(totals) == (
        '{"turnCount":1,"iterations":2,"promptTokens":3,"completionTokens":4,"totalTokens":7,"reasoningTokens":5}'
    )
