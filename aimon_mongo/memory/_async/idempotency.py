"""The in-memory idempotency store (async flavour; the sync twin is generated)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import (
    IdempotencyEntry,
    PutResult,
    TurnResult,
)
from aimon_mongo.validate import (
    require_aware,
    require_id,
    require_instance,
    require_limit,
    require_positive,
)

log = logging.getLogger(__name__)


class AsyncMemoryIdempotencyStore:
    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.idempotency

    async def put_if_absent(self, entry: IdempotencyEntry, ttl: timedelta) -> PutResult:
        require_instance(entry, IdempotencyEntry, "entry")
        return self._table.put_if_absent(entry, require_positive(ttl, "ttl"))

    async def mark_done(self, key: str, result: TurnResult) -> None:
        require_id(key, "key")
        if not self._table.mark_done(key, require_instance(result, TurnResult, "result")):
            log.warning("mark_done: no live idempotency entry %r", key)

    async def touch(self, key: str, holder_id: str) -> bool:
        return self._table.touch(require_id(key, "key"), require_id(holder_id, "holder_id"))

    async def release_holder(self, key: str, expected_holder: str, ttl: timedelta) -> bool:
        return self._table.release_holder(
            require_id(key, "key"), require_id(expected_holder, "expected_holder"), require_positive(ttl, "ttl")
        )

    async def acquire_holder(self, key: str, holder_id: str, ttl: timedelta) -> bool:
        return self._table.acquire_holder(
            require_id(key, "key"), require_id(holder_id, "holder_id"), require_positive(ttl, "ttl")
        )

    async def discard_reservation(self, key: str) -> bool:
        return self._table.discard_reservation(require_id(key, "key"))

    async def compare_and_reset(self, key: str, expected_holder: str) -> bool:
        return self._table.compare_and_reset(require_id(key, "key"), require_id(expected_holder, "expected_holder"))

    async def find_stale_in_flight(self, cutoff: datetime, limit: int = 256) -> list[IdempotencyEntry]:
        return self._table.find_stale_in_flight(require_aware(cutoff, "cutoff"), require_limit(limit))

    async def find(self, key: str) -> IdempotencyEntry | None:
        return self._table.find(require_id(key, "key"))
