"""Round trips per public operation of the MongoDB stores, counted with CommandLog and asserted, so cost
growth is visible in review. Every command is also checked by the router check (targeted)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pymongo import MongoClient

from aimon_mongo.model import (
    BackgroundTask,
    IdempotencyEntry,
    IdempotencyStatus,
    SessionSignal,
    SignalKind,
    TaskState,
    TurnResult,
)
from aimon_mongo.model.idempotency import CompletionReason
from aimon_mongo.model.record import LogSegment
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema
from aimon_mongo.mongo.command_log import CommandLog
from tests.conformance.helpers import message
from tests.fixtures.mongo import CLIENT_OPTIONS
from tests.router_check import violations

TTL = timedelta(seconds=30)


class Counter:
    def __init__(self, log: CommandLog, bundle: MongoSessionBackends) -> None:
        self.log, self.bundle = log, bundle

    def __call__(self, operation: Callable[[], Any]) -> int:
        with self.log.recording() as seen:
            operation()
        assert violations(seen) == []
        return seen.round_trips


@pytest.fixture
def count(mongo_uri: str, mongo_db_name: str) -> Iterator[Counter]:
    log = CommandLog(origins=True)
    client: MongoClient[Any] = MongoClient(mongo_uri, event_listeners=[log], **CLIENT_OPTIONS)
    ensure_schema(client[mongo_db_name])
    bundle = MongoSessionBackends(client[mongo_db_name], "node-rt", signal_mode="poll")
    bundle.inbox.deliver(message("warm-up"))  # the one-time schema check before the first write
    yield Counter(log, bundle)
    bundle.close()
    client.close()


def test_inbox(count: Counter) -> None:
    inbox = count.bundle.inbox
    assert count(lambda: inbox.deliver(message("s-1"))) == 1
    for _ in range(2):
        inbox.deliver(message("s-1"))
    assert count(lambda: inbox.peek("s-1")) == 1
    assert count(lambda: inbox.is_empty("s-1")) == 1
    assert count(lambda: inbox.collect("s-1")) <= 3 + 1  # per entry, plus the miss that ends the batch
    assert count(lambda: inbox.collect("s-1")) <= 1  # an empty inbox
    assert count(lambda: inbox.purge("s-1")) == 1


def test_leases(count: Counter) -> None:
    leases = count.bundle.leases
    held: list[Any] = []
    # steal misses, cold start, write fence raised
    assert count(lambda: held.append(leases.try_acquire("s-2", "a", TTL))) == 3
    assert count(lambda: leases.try_acquire("s-2", "b", TTL)) == 2  # steal misses, cold start refused
    assert count(lambda: leases.extend(held[0], TTL)) == 1
    assert count(lambda: leases.find_holder("s-2")) == 1
    assert count(lambda: leases.release(held[0])) == 1
    assert count(lambda: leases.try_acquire("s-2", "b", TTL)) == 2  # steal of an expired lease, fence raised
    assert count(lambda: leases.try_acquire("s-2", "b", TTL)) == 2  # the holder re-acquires: steal, fence


def test_fenced_records_and_segments(count: Counter) -> None:
    records, segments = count.bundle.records, count.bundle.segments
    assert count(lambda: records.provision("s-3", "agent", 1)) == 2  # fence + upsert
    assert count(lambda: records.merge_transcript("s-3", "t", 1)) == 2
    assert count(lambda: records.increment_compaction_failure_count("s-3", 1)) == 2
    assert count(lambda: records.load("s-3")) == 1
    assert count(lambda: records.exists("s-3")) == 1
    assert count(lambda: records.list_session_ids()) == 1  # one page
    segment = LogSegment(
        session_id="s-3", segment_id="g", from_seq=0, to_seq=1, entry_count=1, payload="[]", created_at=_now()
    )
    assert count(lambda: segments.put(segment, 1)) == 3  # fence, insert, fence re-check
    assert count(lambda: segments.get("s-3", "g")) == 1
    assert count(lambda: segments.list("s-3")) == 1
    assert count(lambda: segments.delete("s-3", "g", 1)) == 2
    assert count(lambda: records.delete("s-3", 1)) == 2


def test_idempotency_tasks_signals(count: Counter) -> None:
    idem, tasks, signals = count.bundle.idempotency, count.bundle.tasks, count.bundle.signals
    now = _now()
    entry = IdempotencyEntry(
        key="k-1",
        session_id="s-4",
        input_hash="h",
        status=IdempotencyStatus.IN_FLIGHT,
        holder_id="a",
        created_at=now,
        last_touched_at=now,
    )
    assert count(lambda: idem.put_if_absent(entry, TTL)) == 1
    assert count(lambda: idem.put_if_absent(entry, TTL)) == 3  # insert refused, takeover misses, read
    assert count(lambda: idem.touch("k-1", "a")) == 1
    assert count(lambda: idem.find("k-1")) == 1
    result = TurnResult(success=True, completion_reason=CompletionReason.COMPLETED)
    assert count(lambda: idem.mark_done("k-1", result)) == 1
    task = BackgroundTask(task_id="t-1", subagent_name="sub", state=TaskState.RUNNING, start_time=now)
    assert count(lambda: tasks.put(task)) == 1
    assert count(lambda: tasks.find("t-1")) == 1
    assert count(lambda: tasks.heartbeat("t-1", now)) == 1
    assert count(lambda: tasks.transition("t-1", TaskState.COMPLETED)) == 1
    assert count(lambda: tasks.list()) == 1
    signal = SessionSignal(session_id="s-4", kind=SignalKind.INTERRUPT, origin_node_id="node-rt")
    assert count(lambda: signals.publish(signal)) == 1


def _now() -> datetime:
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)
