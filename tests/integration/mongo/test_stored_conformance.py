"""Every document the MongoDB stores write conforms to its declared root (aimon_mongo/stored/), read back
raw from the server after each kind of write; the shared JSON codecs' outputs conform to theirs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bson import ObjectId
from pymongo.synchronous.database import Database

from aimon_mongo.codec.idempotency import entry_to_json
from aimon_mongo.codec.signal import signal_to_json
from aimon_mongo.codec.task import task_to_json
from aimon_mongo.model import (
    BackgroundTask,
    CompletionReason,
    IdempotencyEntry,
    IdempotencyStatus,
    ImageInput,
    InboundMessage,
    MultimodalInput,
    Principal,
    Priority,
    SessionSignal,
    SignalKind,
    SubmitOptions,
    TaskState,
    TextInput,
    TurnResult,
)
from aimon_mongo.model.record import LogSegment, SessionTotals
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema
from aimon_mongo.schema_gate import assert_conforms

T0 = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
TTL = timedelta(seconds=30)


def _all(db: Database[dict[str, Any]], collection: str) -> list[dict[str, Any]]:
    return list(db[collection].find({}))


def test_every_written_document_conforms(mongo_db: Database[dict[str, Any]]) -> None:
    ensure_schema(mongo_db)
    node = MongoSessionBackends(mongo_db, "node-a")
    try:
        plain = InboundMessage(
            session_id="s", agent_ref="a", user_input=TextInput(text="hi"), initiator=Principal.system(),
            delivered_at=T0,
        )  # fmt: skip
        rich = plain.model_copy(
            update={
                "turn_id": "t", "idempotency_key": "k", "context_discriminator": "c", "priority": Priority.NOW,
                "user_input": MultimodalInput(inputs=(TextInput(text="x"), ImageInput(mime_type="image/png", data=b"\x89"))),  # noqa: E501
                "submit_options": SubmitOptions(principal=Principal.user("u"), execution_attributes={"n": 1}),
            }
        )  # fmt: skip
        node.inbox.deliver(plain)
        node.inbox.deliver(rich)
        for doc in _all(mongo_db, "conversation_inbox"):
            assert_conforms("mongo.inbox.document", doc)
        mongo_db["conversation_inbox"].insert_one({"_id": ObjectId(), "conversationId": "s", "priority": 1})
        assert len(node.inbox.collect("s").unreadable) == 1
        [quarantined] = _all(mongo_db, "conversation_inbox_quarantine")
        assert_conforms("mongo.inbox.quarantine-document", quarantined)

        lease = node.leases.try_acquire("s", "node-a", TTL)
        assert_conforms("mongo.lease.document", _all(mongo_db, "conversation_locks")[0])
        assert lease is not None
        node.leases.release(lease)
        assert_conforms("mongo.lease.document", _all(mongo_db, "conversation_locks")[0])
        node.leases.try_acquire("s", "node-a", TTL)
        assert_conforms("mongo.lease.document", _all(mongo_db, "conversation_locks")[0])

        entry = IdempotencyEntry(
            key="k", session_id="s", input_hash="h", status=IdempotencyStatus.IN_FLIGHT, holder_id="h1",
            created_at=T0, last_touched_at=T0,
        )  # fmt: skip
        steps = [
            lambda: node.idempotency.put_if_absent(entry, TTL),
            lambda: node.idempotency.touch("k", "h1"),
            lambda: node.idempotency.release_holder("k", "h1", TTL),
            lambda: node.idempotency.acquire_holder("k", "h2", TTL),
            lambda: node.idempotency.mark_done("k", TurnResult(success=True, completion_reason=CompletionReason.ERROR)),
        ]  # fmt: skip
        for step in steps:
            step()
            assert_conforms("mongo.idempotency.document", _all(mongo_db, "idempotency_entries")[0])

        status = SessionSignal(session_id="s", kind=SignalKind.STATUS, origin_node_id="node-a", payload={"a": [1]})
        node.signals.publish(status)
        assert_conforms("mongo.signal.document", _all(mongo_db, "conversation_signals")[0])

        full = BackgroundTask(
            task_id="t1", subagent_name="w", state=TaskState.RUNNING, start_time=T0, owner=Principal.system(),
            agent_runtime_id="agent:w", last_heartbeat=T0,
        )  # fmt: skip
        node.tasks.put(full)
        node.tasks.put(BackgroundTask(task_id="t2", subagent_name="w", state=TaskState.PENDING, start_time=T0))
        node.tasks.transition("t1", TaskState.COMPLETED)
        node.tasks.heartbeat("t2", T0)
        for doc in _all(mongo_db, "background_task"):
            assert_conforms("mongo.background-task.document", doc)

        node.records.provision("r0", None, 1)
        node.records.provision("r1", "agent", 1)
        node.records.merge_transcript("r1", "[]", 1)
        node.records.set_totals_and_budget_override("r1", SessionTotals(turn_count=2), {"x": 1}, 2)
        node.records.increment_compaction_failure_count("r1", 2)
        node.records.merge_transcript("r2", "[]", 1)
        for doc in _all(mongo_db, "session_records"):
            assert_conforms("mongo.session-record.document", doc)
        for doc in _all(mongo_db, "session_fences"):
            assert_conforms("mongo.session-fence.document", doc)

        sealed = LogSegment(
            session_id="r1", segment_id="g", from_seq=0, to_seq=0, entry_count=1, payload='{"version":2,"entries":[]}',
            created_at=T0,
        )  # fmt: skip
        node.segments.put(sealed, 2)
        assert_conforms("mongo.log-segment.document", _all(mongo_db, "session_log_segments")[0])
    finally:
        node.close()


def test_json_codec_outputs_conform() -> None:
    entry = IdempotencyEntry(
        key="k", session_id="s", input_hash="h", status=IdempotencyStatus.DONE, created_at=T0, last_touched_at=T0,
        result=TurnResult(success=False, error_message="e", completion_reason=CompletionReason.ERROR),
    )  # fmt: skip
    assert_conforms("redis.idempotency.value", entry_to_json(entry, TTL))
    assert_conforms("redis.idempotency.value", entry_to_json(entry.model_copy(update={"result": None}), TTL))
    signal = SessionSignal(session_id="s", kind=SignalKind.TURN_RESULT, origin_node_id="n", payload={"turn": "t"})
    assert_conforms("redis.signal.message", signal_to_json(signal))
    task = BackgroundTask(task_id="t", subagent_name="w", state=TaskState.KILLED, start_time=T0, end_time=T0)
    assert_conforms("redis.background-task.value", task_to_json(task))
    full = task.model_copy(update={"owner": Principal.user("u"), "agent_runtime_id": "agent:w", "last_heartbeat": T0})
    assert_conforms("redis.background-task.value", task_to_json(full))
