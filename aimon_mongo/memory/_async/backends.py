"""The in-memory bundle (async flavour; the sync twin is generated)."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
        self._inbox = AsyncMemorySessionInbox(self.storage)
        self._leases = AsyncMemorySessionLeaseStore(self.storage)
        self._signals = AsyncMemorySessionSignalBus(self.storage, self.node_id)
        self._idempotency = AsyncMemoryIdempotencyStore(self.storage)
        self._tasks = AsyncMemoryBackgroundTaskStore(self.storage, clock)
        self._records = AsyncMemorySessionRecordStore(self.storage)
        self._segments = AsyncMemorySessionLogSegmentStore(self.storage)

    @property
    def inbox(self) -> AsyncMemorySessionInbox:
        return self._inbox

    @property
    def leases(self) -> AsyncMemorySessionLeaseStore:
        return self._leases

    @property
    def signals(self) -> AsyncMemorySessionSignalBus:
        return self._signals

    @property
    def idempotency(self) -> AsyncMemoryIdempotencyStore:
        return self._idempotency

    @property
    def tasks(self) -> AsyncMemoryBackgroundTaskStore:
        return self._tasks

    @property
    def records(self) -> AsyncMemorySessionRecordStore:
        return self._records

    @property
    def segments(self) -> AsyncMemorySessionLogSegmentStore:
        return self._segments

    async def close(self) -> None:
        """Drop this node's signal subscriptions (the storage stays)."""
        await self._signals.close()


if TYPE_CHECKING:  # the bundle satisfies the contract
    _bundle: AsyncSessionBackends = AsyncMemorySessionBackends("node")
