"""The in-memory leases store (async flavour; the sync twin is generated)."""

from __future__ import annotations

import logging
from datetime import timedelta

from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import (
    Lease,
)
from aimon_mongo.validate import (
    require_id,
    require_lease,
    require_positive,
)

log = logging.getLogger(__name__)


class AsyncMemorySessionLeaseStore:
    resurrects_lapsed = True
    holder_id_forbidden_chars = ""

    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.leases

    async def try_acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Lease | None:
        return self._table.try_acquire(
            require_id(session_id, "session_id"), require_id(holder_id, "holder_id"), require_positive(ttl, "ttl")
        )

    async def extend(self, lease: Lease, ttl: timedelta) -> bool:
        return self._table.extend(require_lease(lease), require_positive(ttl, "ttl"))

    async def release(self, lease: Lease) -> None:
        self._table.release(require_lease(lease))

    async def find_holder(self, session_id: str) -> Lease | None:
        return self._table.find_holder(require_id(session_id, "session_id"))
