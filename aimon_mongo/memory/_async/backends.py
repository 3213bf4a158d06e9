"""The in-memory bundle (async flavour; the sync twin is generated)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from aimon_mongo._async.bundle import AsyncClosingBundle
from aimon_mongo._async.ports import AsyncSessionBackends
from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.memory._async.idempotency import AsyncMemoryIdempotencyStore
from aimon_mongo.memory._async.inbox import AsyncMemorySessionInbox
from aimon_mongo.memory._async.leases import AsyncMemorySessionLeaseStore
from aimon_mongo.memory._async.records import AsyncMemorySessionRecordStore
from aimon_mongo.memory._async.segments import AsyncMemorySessionLogSegmentStore
from aimon_mongo.memory._async.signals import AsyncMemorySessionSignalBus
from aimon_mongo.memory._async.tasks import AsyncMemoryBackgroundTaskStore
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.validate import require_id


class AsyncMemorySessionBackends(AsyncClosingBundle):
    """All seven in-memory stores of one node.

    ``storage`` is the shared state (create one :class:`MemoryStorage` and pass it to several bundles to
    simulate nodes sharing a database; a new one is made when omitted, with ``clock`` as its clock).
    ``clock`` stamps what this node writes itself (a terminal task's ``end_time``).
    """

    def __init__(self, node_id: str, storage: MemoryStorage | None = None, clock: Clock | None = None) -> None:
        self.node_id = require_id(node_id, "node_id")
        self.storage = storage if storage is not None else MemoryStorage(clock)
        clock = clock or system_clock
        self.inbox: Final = AsyncMemorySessionInbox(self.storage)
        self.leases: Final = AsyncMemorySessionLeaseStore(self.storage)
        self.signals: Final = AsyncMemorySessionSignalBus(self.storage, self.node_id)
        self.idempotency: Final = AsyncMemoryIdempotencyStore(self.storage)
        self.tasks: Final = AsyncMemoryBackgroundTaskStore(self.storage, clock)
        self.records: Final = AsyncMemorySessionRecordStore(self.storage)
        self.segments: Final = AsyncMemorySessionLogSegmentStore(self.storage)

    async def close(self) -> None:
        """Drop this node's signal subscriptions (the storage stays)."""
        await self.signals.close()


if TYPE_CHECKING:  # the bundle satisfies the contract
    _bundle: AsyncSessionBackends = AsyncMemorySessionBackends("node")
