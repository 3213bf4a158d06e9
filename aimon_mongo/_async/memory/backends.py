"""The in-memory bundle (async flavour; the sync twin is generated)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from aimon_mongo._async.bundle import AsyncClosingBundle
from aimon_mongo._async.memory.idempotency import AsyncMemoryIdempotencyDriver
from aimon_mongo._async.memory.inbox import AsyncMemoryInboxDriver
from aimon_mongo._async.memory.leases import AsyncMemoryLeaseDriver
from aimon_mongo._async.memory.records import AsyncMemoryRecordDriver
from aimon_mongo._async.memory.segments import AsyncMemorySegmentDriver
from aimon_mongo._async.memory.signals import AsyncMemorySignalDriver
from aimon_mongo._async.memory.tasks import AsyncMemoryTaskDriver
from aimon_mongo._async.ports import AsyncSessionBackends
from aimon_mongo._async.services.idempotency import AsyncIdempotency
from aimon_mongo._async.services.inbox import AsyncInbox
from aimon_mongo._async.services.leases import AsyncLeaseStore
from aimon_mongo._async.services.records import AsyncRecordStore
from aimon_mongo._async.services.segments import AsyncSegmentStore
from aimon_mongo._async.services.signals import AsyncSignalBus
from aimon_mongo._async.services.tasks import AsyncTaskStore
from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.exported import exported_from
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.validate import require_id


@exported_from("aimon_mongo.memory")
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
        storage, idempotency = self.storage, self.storage.idempotency
        self.inbox: Final = AsyncInbox(AsyncMemoryInboxDriver(storage))
        self.leases: Final = AsyncLeaseStore(AsyncMemoryLeaseDriver(storage))
        self.signals: Final = AsyncSignalBus(AsyncMemorySignalDriver(storage, self.node_id))
        self.idempotency: Final = AsyncIdempotency(AsyncMemoryIdempotencyDriver(idempotency), idempotency.done_ttl)
        self.tasks: Final = AsyncTaskStore(AsyncMemoryTaskDriver(storage), clock)
        self.records: Final = AsyncRecordStore(AsyncMemoryRecordDriver(storage))
        self.segments: Final = AsyncSegmentStore(AsyncMemorySegmentDriver(storage))

    async def close(self) -> None:
        """Drop this node's signal subscriptions (the storage stays)."""
        await self.signals.close()


if TYPE_CHECKING:  # the bundle satisfies the contract
    _bundle: AsyncSessionBackends = AsyncMemorySessionBackends("node")
