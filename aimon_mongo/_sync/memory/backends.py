# GENERATED from aimon_mongo/_async/memory/backends.py by scripts/gen_sync.py; do not edit.
"""The in-memory bundle (generated from the ``_async`` source)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from aimon_mongo._sync.bundle import ClosingBundle
from aimon_mongo._sync.memory.idempotency import MemoryIdempotencyDriver
from aimon_mongo._sync.memory.inbox import MemoryInboxDriver
from aimon_mongo._sync.memory.leases import MemoryLeaseDriver
from aimon_mongo._sync.memory.records import MemoryRecordDriver
from aimon_mongo._sync.memory.segments import MemorySegmentDriver
from aimon_mongo._sync.memory.signals import MemorySignalDriver
from aimon_mongo._sync.memory.tasks import MemoryTaskDriver
from aimon_mongo._sync.ports import SessionBackends
from aimon_mongo._sync.services.idempotency import Idempotency
from aimon_mongo._sync.services.inbox import Inbox
from aimon_mongo._sync.services.leases import LeaseStore
from aimon_mongo._sync.services.records import RecordStore
from aimon_mongo._sync.services.segments import SegmentStore
from aimon_mongo._sync.services.signals import SignalBus
from aimon_mongo._sync.services.tasks import TaskStore
from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.exported import exported_from
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.validate import require_id


@exported_from("aimon_mongo.memory")
class MemorySessionBackends(ClosingBundle):
    """All seven in-memory stores of one node.

    ``storage`` is the shared state (create one :class:`MemoryStorage` and pass it to several bundles to
    simulate nodes sharing a database; a new one is made when omitted, with ``clock`` as its clock).
    ``clock`` stamps what this node writes itself (a terminal task's ``end_time``).
    """

    def __init__(self, node_id: str, storage: MemoryStorage | None = None, clock: Clock | None = None) -> None:
        self.node_id = require_id(node_id, "node_id")
        self.storage = storage if storage is not None else MemoryStorage(clock)
        clock = clock or system_clock
        storage, idempotency = self.storage, self.storage.idempotency
        self.inbox: Final = Inbox(MemoryInboxDriver(storage))
        self.leases: Final = LeaseStore(MemoryLeaseDriver(storage))
        self.signals: Final = SignalBus(MemorySignalDriver(storage, self.node_id))
        self.idempotency: Final = Idempotency(MemoryIdempotencyDriver(idempotency), idempotency.done_ttl)
        self.tasks: Final = TaskStore(MemoryTaskDriver(storage), clock)
        self.records: Final = RecordStore(MemoryRecordDriver(storage))
        self.segments: Final = SegmentStore(MemorySegmentDriver(storage))

    def close(self) -> None:
        """Drop this node's signal subscriptions (the storage stays)."""
        self.signals.close()


if TYPE_CHECKING:  # the bundle satisfies the contract
    _bundle: SessionBackends = MemorySessionBackends("node")
