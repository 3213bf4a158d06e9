# GENERATED from aimon_mongo/memory/_async/backends.py by scripts/gen_sync.py; do not edit.
"""The in-memory bundle (generated from the ``_async`` source)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from aimon_mongo._sync.bundle import ClosingBundle
from aimon_mongo._sync.ports import SessionBackends
from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.memory._sync.idempotency import MemoryIdempotencyStore
from aimon_mongo.memory._sync.inbox import MemorySessionInbox
from aimon_mongo.memory._sync.leases import MemorySessionLeaseStore
from aimon_mongo.memory._sync.records import MemorySessionRecordStore
from aimon_mongo.memory._sync.segments import MemorySessionLogSegmentStore
from aimon_mongo.memory._sync.signals import MemorySessionSignalBus
from aimon_mongo.memory._sync.tasks import MemoryBackgroundTaskStore
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.validate import require_id


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
        self.inbox: Final = MemorySessionInbox(self.storage)
        self.leases: Final = MemorySessionLeaseStore(self.storage)
        self.signals: Final = MemorySessionSignalBus(self.storage, self.node_id)
        self.idempotency: Final = MemoryIdempotencyStore(self.storage)
        self.tasks: Final = MemoryBackgroundTaskStore(self.storage, clock)
        self.records: Final = MemorySessionRecordStore(self.storage)
        self.segments: Final = MemorySessionLogSegmentStore(self.storage)

    def close(self) -> None:
        """Drop this node's signal subscriptions (the storage stays)."""
        self.signals.close()


if TYPE_CHECKING:  # the bundle satisfies the contract
    _bundle: SessionBackends = MemorySessionBackends("node")
