# GENERATED from aimon_mongo/_async/memory/leases.py by scripts/gen_sync.py; do not edit.
"""The in-memory lease store (generated from the ``_async`` source): the lease service over the
storage's :class:`~aimon_mongo.memory.lease_table.LeaseTable`."""

from __future__ import annotations

from datetime import timedelta

from aimon_mongo._sync.services.leases import LeaseStore
from aimon_mongo.exported import exported_from
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import Lease
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures, no_failures
from aimon_mongo.services.leases import Granted, Held


@exported_from("aimon_mongo.memory")
class MemoryLeaseDriver:
    """The lease primitives on the in-memory table (each one step under the storage lock)."""

    failures: Failures = no_failures
    resurrects_lapsed = True
    holder_id_forbidden_chars = ""

    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.leases

    def __repr__(self) -> str:
        return located(self)

    def acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Granted | None:
        return self._table.acquire(session_id, holder_id, ttl)

    def extend(self, lease: Lease, ttl: timedelta) -> bool:
        return self._table.extend(lease, ttl)

    def release(self, lease: Lease) -> None:
        self._table.release(lease)

    def find(self, session_id: str) -> Held | None:
        return self._table.find(session_id)


@exported_from("aimon_mongo.memory")
def MemorySessionLeaseStore(storage: MemoryStorage) -> LeaseStore:
    """Holder election with fencing tokens, in memory (the lease service over the table).

    A factory: the :class:`~aimon_mongo.services.LeaseStore` service over :class:`MemoryLeaseDriver`."""
    return LeaseStore(MemoryLeaseDriver(storage))
