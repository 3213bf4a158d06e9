"""Every public operation of a sync session bundle, once each, in an order where each one has work to do.

Used by the MongoDB session benchmark to count the round trips per operation (``CommandLog``). The model
builders are the conformance suite's (``tests/conformance``), so the values are the ones the suite checks.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

from aimon_mongo.model import TaskQuery, TaskState
from aimon_mongo.model.record import SessionTotals
from tests.conformance.helpers import message, now_ms, signal
from tests.conformance.test_idempotency import RESULT, entry
from tests.conformance.test_records import segment
from tests.conformance.test_tasks import task

TTL = timedelta(seconds=30)
BATCH = 64


def session_operations(bundle: Any) -> Iterator[tuple[str, Callable[[], object]]]:
    """``(operation, call)`` pairs; a call may depend on the ones before it (run them in order)."""
    session = f"ops-{uuid.uuid4().hex[:8]}"
    held: dict[str, Any] = {}
    inbox, leases, signals, idem = bundle.inbox, bundle.leases, bundle.signals, bundle.idempotency
    records, segments, tasks = bundle.records, bundle.segments, bundle.tasks

    yield "inbox.deliver", lambda: inbox.deliver(message(session))
    yield f"inbox.deliver_many ({BATCH} messages)", lambda: inbox.deliver_many([message(session) for _ in range(BATCH)])
    yield "inbox.peek", lambda: inbox.peek(session)
    yield "inbox.is_empty", lambda: inbox.is_empty(session)
    yield f"inbox.collect ({BATCH} entries)", lambda: inbox.collect(session)
    yield "inbox.collect (the last entry)", lambda: inbox.collect(session)
    yield "inbox.collect (empty)", lambda: inbox.collect(session)
    yield "inbox.purge", lambda: inbox.purge(session)
    yield "inbox.list_quarantined", lambda: inbox.list_quarantined(session)
    yield "inbox.delete_quarantined (unknown id)", lambda: inbox.delete_quarantined("000000000000000000000000")

    def acquire() -> None:
        held["lease"] = leases.try_acquire(session, "count-node", TTL)
        assert held["lease"] is not None

    yield "leases.try_acquire", acquire
    yield "leases.extend", lambda: leases.extend(held["lease"], TTL)
    yield "leases.find_holder", lambda: leases.find_holder(session)
    yield "leases.release", lambda: leases.release(held["lease"])
    yield "leases.try_acquire (again)", acquire

    yield "signals.publish", lambda: signals.publish(signal(session, "count-node"))
    yield (
        "signals.publish_all (8 signals)",
        lambda: signals.publish_all([signal(session, "count-node") for _ in range(8)]),
    )

    key = f"key-{uuid.uuid4().hex[:8]}"
    yield "idempotency.put_if_absent", lambda: idem.put_if_absent(entry(key, session=session), TTL)
    yield "idempotency.find", lambda: idem.find(key)
    yield "idempotency.touch", lambda: idem.touch(key, "node-a/t/1")
    yield "idempotency.release_holder", lambda: idem.release_holder(key, "node-a/t/1", TTL)
    yield "idempotency.acquire_holder", lambda: idem.acquire_holder(key, "node-b/t/1", TTL)
    yield "idempotency.find_stale_in_flight", lambda: idem.find_stale_in_flight(now_ms() - TTL)
    yield "idempotency.mark_done", lambda: idem.mark_done(key, RESULT)
    held_key = f"key-{uuid.uuid4().hex[:8]}"
    yield "idempotency.put_if_absent (held)", lambda: idem.put_if_absent(entry(held_key, "node-c/t/1"), TTL)
    yield "idempotency.compare_and_reset", lambda: idem.compare_and_reset(held_key, "node-c/t/1")
    other = f"key-{uuid.uuid4().hex[:8]}"
    yield "idempotency.put_if_absent (reservation)", lambda: idem.put_if_absent(entry(other, None), TTL)
    yield "idempotency.discard_reservation", lambda: idem.discard_reservation(other)

    token = lambda: held["lease"].fencing_token  # noqa: E731
    yield "records.provision", lambda: records.provision(session, "assistant", token())
    yield "records.merge_transcript", lambda: records.merge_transcript(session, '[{"seq":1}]', token())
    yield (
        "records.set_totals_and_budget_override",
        lambda: records.set_totals_and_budget_override(session, SessionTotals(turn_count=1), None, token()),
    )
    yield (
        "records.increment_compaction_failure_count",
        lambda: records.increment_compaction_failure_count(session, token()),
    )
    yield "records.reset_compaction_failure_count", lambda: records.reset_compaction_failure_count(session, token())
    yield "records.load", lambda: records.load(session)
    yield "records.load_many", lambda: records.load_many([session, "another-session"])
    yield "records.exists", lambda: records.exists(session)
    yield "records.list_session_ids", lambda: records.list_session_ids()

    yield "segments.put", lambda: segments.put(segment(session, "seg-1"), token())
    yield "segments.get", lambda: segments.get(session, "seg-1")
    yield "segments.get_many", lambda: segments.get_many(session, ["seg-1", "seg-2"])
    yield "segments.list", lambda: segments.list(session)
    yield "segments.list_page", lambda: segments.list_page(session, None, 10)
    yield "segments.scan_sessions", lambda: segments.scan_sessions(now_ms() + TTL, None, 10)
    yield "segments.delete", lambda: segments.delete(session, "seg-1", token())
    yield "segments.delete_all", lambda: segments.delete_all(session, token())
    yield "records.delete", lambda: records.delete(session, token())

    task_id = f"task-{uuid.uuid4().hex[:8]}"
    yield "tasks.put", lambda: tasks.put(task(task_id))
    yield "tasks.find", lambda: tasks.find(task_id)
    yield "tasks.transition", lambda: tasks.transition(task_id, TaskState.RUNNING)
    yield "tasks.heartbeat", lambda: tasks.heartbeat(task_id, now_ms())
    yield "tasks.list", lambda: tasks.list(TaskQuery(state=TaskState.RUNNING))
    yield "tasks.remove", lambda: tasks.remove(task_id)
    yield "leases.release (end)", lambda: leases.release(held["lease"])
