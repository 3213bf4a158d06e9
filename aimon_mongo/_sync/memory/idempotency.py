# GENERATED from aimon_mongo/_async/memory/idempotency.py by scripts/gen_sync.py; do not edit.
"""The in-memory idempotency store (generated from the ``_async`` source): the service over
:class:`~aimon_mongo.memory.idempotency_table.IdempotencyTable`."""

from __future__ import annotations

from datetime import datetime, timedelta

from aimon_mongo._sync.services.idempotency import Idempotency
from aimon_mongo.exported import exported_from
from aimon_mongo.memory.idempotency_table import IdempotencyTable
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import IdempotencyEntry, TurnResult
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures, no_failures


@exported_from("aimon_mongo.memory")
class MemoryIdempotencyDriver:
    """The table's primitives, awaitable; entries are kept as models (``decode`` is the identity)."""

    failures: Failures = no_failures
    holder_id_forbidden_chars = ""

    def __init__(self, table: IdempotencyTable) -> None:
        self._table = table

    def __repr__(self) -> str:
        return located(self)

    def decode(self, raw: IdempotencyEntry) -> IdempotencyEntry:
        return raw

    def put(self, entry: IdempotencyEntry, ttl: timedelta) -> tuple[bool, IdempotencyEntry | None]:
        existing = self._table.put(entry, ttl)
        return existing is None, existing

    def mark_done(self, key: str, result: TurnResult, ttl: timedelta) -> bool:
        return self._table.mark_done(key, result, ttl)

    def touch(self, key: str, holder_id: str) -> bool:
        return self._table.touch(key, holder_id)

    def rehold(self, key: str, expected: str | None, holder_id: str | None, ttl: timedelta) -> bool:
        return self._table.rehold(key, expected, holder_id, ttl)

    def delete_held(self, key: str, expected: str | None) -> bool:
        return self._table.delete_held(key, expected)

    def stale_candidates(self, cutoff: datetime, limit: int) -> list[tuple[str, IdempotencyEntry]]:
        return [(entry.key, entry) for entry in self._table.live()]

    def find(self, key: str) -> IdempotencyEntry | None:
        return self._table.find(key)


@exported_from("aimon_mongo.memory")
def MemoryIdempotencyStore(storage: MemoryStorage) -> Idempotency:
    """Client-key de-duplication on a :class:`MemoryStorage` (its clock decides expiry).

    A factory: the :class:`~aimon_mongo.services.Idempotency` service over
    :class:`MemoryIdempotencyDriver`."""
    return Idempotency(MemoryIdempotencyDriver(storage.idempotency), storage.idempotency.done_ttl)
