"""The shared state of the in-memory backend (what a database is to the other backends)."""

from __future__ import annotations

import threading
from datetime import timedelta

from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.memory.idempotency_table import DEFAULT_DONE_TTL, IdempotencyTable
from aimon_mongo.memory.inbox_table import InboxTable
from aimon_mongo.memory.lease_table import LeaseTable
from aimon_mongo.memory.record_table import RecordTable
from aimon_mongo.memory.task_table import DEFAULT_MAX_TERMINAL_TASKS, TaskTable
from aimon_mongo.signal_hub import SignalHub


class MemoryStorage:
    """Everything the seven in-memory stores keep, behind one lock.

    ``clock`` is the storage's own clock: it decides expiry and stamps what a server would stamp (lease
    expiry, idempotency touches, record ``updated_at``), as ``$$NOW`` does for MongoDB. Bundles built on
    the same storage behave like nodes sharing one database.
    """

    def __init__(
        self,
        clock: Clock | None = None,
        *,
        done_ttl: timedelta = DEFAULT_DONE_TTL,
        max_terminal_tasks: int = DEFAULT_MAX_TERMINAL_TASKS,
    ) -> None:
        self.clock: Clock = clock or system_clock
        lock = threading.Lock()
        self.inbox = InboxTable(lock, self.clock)
        self.leases = LeaseTable(lock, self.clock)
        self.signals = SignalHub(lock)
        self.idempotency = IdempotencyTable(lock, self.clock, done_ttl)
        self.tasks = TaskTable(lock, max_terminal_tasks)
        self.records = RecordTable(lock, self.clock)
