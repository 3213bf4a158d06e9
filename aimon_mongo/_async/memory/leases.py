"""The in-memory lease store (async flavour; the sync twin is generated): the lease service over the
storage's :class:`~aimon_mongo.memory.lease_table.LeaseTable`."""

from __future__ import annotations

from datetime import timedelta

from aimon_mongo._async.services.leases import AsyncLeaseStore
from aimon_mongo.exported import exported_from
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import Lease
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures, no_failures
from aimon_mongo.services.leases import Granted, Held


@exported_from("aimon_mongo.memory")
class AsyncMemoryLeaseDriver:
    """The lease primitives on the in-memory table (each one step under the storage lock)."""

    failures: Failures = no_failures
    resurrects_lapsed = True
    holder_id_forbidden_chars = ""

    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.leases

    def __repr__(self) -> str:
        return located(self)

    async def acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Granted | None:
        return self._table.acquire(session_id, holder_id, ttl)

    async def extend(self, lease: Lease, ttl: timedelta) -> bool:
        return self._table.extend(lease, ttl)

    async def release(self, lease: Lease) -> None:
        self._table.release(lease)

    async def find(self, session_id: str) -> Held | None:
        return self._table.find(session_id)


@exported_from("aimon_mongo.memory")
def AsyncMemorySessionLeaseStore(storage: MemoryStorage) -> AsyncLeaseStore:
    """Holder election with fencing tokens, in memory (the lease service over the table).

    A factory: the :class:`~aimon_mongo.services.AsyncLeaseStore` service over :class:`AsyncMemoryLeaseDriver`."""
    return AsyncLeaseStore(AsyncMemoryLeaseDriver(storage))
