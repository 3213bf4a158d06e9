# GENERATED from aimon_mongo/memory/_async/stores.py by scripts/gen_sync.py; do not edit.
"""The in-memory stores (generated from the ``_async`` source). Thin: the logic lives in the tables
of :mod:`aimon_mongo.memory`, which are shared by both flavours; these check arguments and delegate."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from pydantic import JsonValue

from aimon_mongo.clock import Clock
from aimon_mongo.errors import SessionInboxError
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import (
    BackgroundTask,
    CollectedBatch,
    IdempotencyEntry,
    InboundMessage,
    Lease,
    Priority,
    PutResult,
    TaskQuery,
    TaskState,
    TurnResult,
)
from aimon_mongo.model.record import (
    LogSegment,
    QuarantinedEntry,
    SegmentInfo,
    SegmentScanPage,
    SessionRecord,
    SessionTotals,
)
from aimon_mongo.validate import (
    optional_budget_override,
    optional_id,
    require_aware,
    require_id,
    require_instance,
    require_lease,
    require_limit,
    require_message,
    require_messages,
    require_positive,
    require_token,
)

log = logging.getLogger(__name__)


class MemorySessionInbox:
    """Entries are kept as objects, so none is ever unreadable: the quarantine stays empty."""

    batch_limit: int | None = None
    """No batch bound: ``collect`` returns every eligible entry."""

    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.inbox

    def deliver(self, message: InboundMessage) -> str:
        return self._table.deliver(require_message(message))

    def deliver_many(self, messages: Sequence[InboundMessage]) -> list[str]:
        return self._table.deliver_many(require_messages(messages))

    def collect(self, session_id: str, max_priority: Priority = Priority.LATER) -> CollectedBatch:
        require_id(session_id, "session_id")
        require_instance(max_priority, Priority, "max_priority")
        return self._table.take(session_id, max_priority, None, remove=True)

    def peek(self, session_id: str, limit: int = 64) -> CollectedBatch:
        require_id(session_id, "session_id")
        return self._table.take(session_id, Priority.LATER, require_limit(limit), remove=False)

    def is_empty(self, session_id: str) -> bool:
        return self._table.is_empty(require_id(session_id, "session_id"))

    def purge(self, session_id: str) -> None:
        self._table.purge(require_id(session_id, "session_id"))

    def list_quarantined(self, session_id: str | None = None, limit: int = 100) -> list[QuarantinedEntry]:
        optional_id(session_id, "session_id")
        require_limit(limit)
        return []

    def replay_quarantined(self, quarantine_id: str, raw: Any = None) -> str:
        require_id(quarantine_id, "quarantine_id")
        raise SessionInboxError(f"no quarantined entry {quarantine_id!r}")

    def delete_quarantined(self, quarantine_id: str) -> bool:
        require_id(quarantine_id, "quarantine_id")
        return False


class MemorySessionLeaseStore:
    resurrects_lapsed = True
    holder_id_forbidden_chars = ""

    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.leases

    def try_acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Lease | None:
        return self._table.try_acquire(
            require_id(session_id, "session_id"), require_id(holder_id, "holder_id"), require_positive(ttl, "ttl")
        )

    def extend(self, lease: Lease, ttl: timedelta) -> bool:
        return self._table.extend(require_lease(lease), require_positive(ttl, "ttl"))

    def release(self, lease: Lease) -> None:
        self._table.release(require_lease(lease))

    def find_holder(self, session_id: str) -> Lease | None:
        return self._table.find_holder(require_id(session_id, "session_id"))


class MemoryIdempotencyStore:
    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.idempotency

    def put_if_absent(self, entry: IdempotencyEntry, ttl: timedelta) -> PutResult:
        require_instance(entry, IdempotencyEntry, "entry")
        return self._table.put_if_absent(entry, require_positive(ttl, "ttl"))

    def mark_done(self, key: str, result: TurnResult) -> None:
        require_id(key, "key")
        if not self._table.mark_done(key, require_instance(result, TurnResult, "result")):
            log.warning("mark_done: no live idempotency entry %r", key)

    def touch(self, key: str, holder_id: str) -> bool:
        return self._table.touch(require_id(key, "key"), require_id(holder_id, "holder_id"))

    def release_holder(self, key: str, expected_holder: str, ttl: timedelta) -> bool:
        return self._table.release_holder(
            require_id(key, "key"), require_id(expected_holder, "expected_holder"), require_positive(ttl, "ttl")
        )

    def acquire_holder(self, key: str, holder_id: str, ttl: timedelta) -> bool:
        return self._table.acquire_holder(
            require_id(key, "key"), require_id(holder_id, "holder_id"), require_positive(ttl, "ttl")
        )

    def discard_reservation(self, key: str) -> bool:
        return self._table.discard_reservation(require_id(key, "key"))

    def compare_and_reset(self, key: str, expected_holder: str) -> bool:
        return self._table.compare_and_reset(require_id(key, "key"), require_id(expected_holder, "expected_holder"))

    def find_stale_in_flight(self, cutoff: datetime, limit: int = 256) -> list[IdempotencyEntry]:
        return self._table.find_stale_in_flight(require_aware(cutoff, "cutoff"), require_limit(limit))

    def find(self, key: str) -> IdempotencyEntry | None:
        return self._table.find(require_id(key, "key"))


class MemoryBackgroundTaskStore:
    def __init__(self, storage: MemoryStorage, clock: Clock) -> None:
        self._table = storage.tasks
        self._clock = clock

    def put(self, task: BackgroundTask) -> None:
        self._table.put(require_instance(task, BackgroundTask, "task"))

    def find(self, task_id: str) -> BackgroundTask | None:
        return self._table.find(require_id(task_id, "task_id"))

    def remove(self, task_id: str) -> bool:
        return self._table.remove(require_id(task_id, "task_id"))

    def transition(self, task_id: str, to: TaskState) -> BackgroundTask | None:
        require_id(task_id, "task_id")
        return self._table.transition(task_id, require_instance(to, TaskState, "to"), self._clock())

    def heartbeat(self, task_id: str, at: datetime) -> BackgroundTask | None:
        return self._table.heartbeat(require_id(task_id, "task_id"), require_aware(at, "at"))

    def list(self, query: TaskQuery | None = None) -> list[BackgroundTask]:
        if query is not None:
            require_instance(query, TaskQuery, "query")
        return self._table.list(query)


class MemorySessionRecordStore:
    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.records

    def merge_transcript(self, session_id: str, transcript: str, fencing_token: int) -> None:
        require_id(session_id, "session_id")
        require_instance(transcript, str, "transcript")
        self._table.merge_transcript(session_id, transcript, require_token(fencing_token))

    def provision(self, session_id: str, agent_ref: str | None, fencing_token: int) -> SessionRecord:
        require_id(session_id, "session_id")
        return self._table.provision(session_id, optional_id(agent_ref, "agent_ref"), require_token(fencing_token))

    def set_totals_and_budget_override(
        self,
        session_id: str,
        totals: SessionTotals,
        budget_override: dict[str, JsonValue] | None,
        fencing_token: int,
    ) -> None:
        require_id(session_id, "session_id")
        require_instance(totals, SessionTotals, "totals")
        budget_override = optional_budget_override(budget_override)
        self._table.set_totals_and_budget_override(session_id, totals, budget_override, require_token(fencing_token))

    def increment_compaction_failure_count(self, session_id: str, fencing_token: int) -> int:
        return self._table.increment_compaction_failure_count(
            require_id(session_id, "session_id"), require_token(fencing_token)
        )

    def reset_compaction_failure_count(self, session_id: str, fencing_token: int) -> None:
        self._table.reset_compaction_failure_count(require_id(session_id, "session_id"), require_token(fencing_token))

    def load(self, session_id: str) -> SessionRecord | None:
        return self._table.load(require_id(session_id, "session_id"))

    def exists(self, session_id: str) -> bool:
        return self._table.load(require_id(session_id, "session_id")) is not None

    def list_session_ids(self) -> list[str]:
        return self._table.list_session_ids()

    def delete(self, session_id: str, fencing_token: int) -> None:
        self._table.delete(require_id(session_id, "session_id"), require_token(fencing_token))


class MemorySessionLogSegmentStore:
    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.records

    def put(self, segment: LogSegment, fencing_token: int) -> None:
        self._table.put_segment(require_instance(segment, LogSegment, "segment"), require_token(fencing_token))

    def get(self, session_id: str, segment_id: str) -> LogSegment | None:
        return self._table.get_segment(require_id(session_id, "session_id"), require_id(segment_id, "segment_id"))

    def list(self, session_id: str) -> list[SegmentInfo]:
        return self._table.list_segments(require_id(session_id, "session_id"))

    def delete(self, session_id: str, segment_id: str, fencing_token: int) -> None:
        self._table.delete_segment(
            require_id(session_id, "session_id"), require_id(segment_id, "segment_id"), require_token(fencing_token)
        )

    def delete_all(self, session_id: str, fencing_token: int) -> None:
        self._table.delete_all_segments(require_id(session_id, "session_id"), require_token(fencing_token))

    def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage:
        return self._table.scan_sessions(
            require_aware(created_before, "created_before"), optional_id(cursor, "cursor"), require_limit(limit)
        )
