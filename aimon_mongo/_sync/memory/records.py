# GENERATED from aimon_mongo/_async/memory/records.py by scripts/gen_sync.py; do not edit.
"""The in-memory session-record store (generated from the ``_async`` source): the record service over
:class:`~aimon_mongo.memory.record_table.RecordTable` (stored records are the models themselves)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aimon_mongo._sync.services.records import RecordStore
from aimon_mongo.codec.totals import decode_totals
from aimon_mongo.exported import exported_from
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model.record import SessionRecord
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures, no_failures
from aimon_mongo.services.fencing import Stale
from aimon_mongo.stored.session_record import SessionTotalsJson


@exported_from("aimon_mongo.memory")
class MemoryRecordDriver:
    """Each primitive one call of the table under its lock."""

    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.records
        self.failures: Failures = no_failures

    def __repr__(self) -> str:
        return located(self)

    def merge_transcript(self, session_id: str, transcript: str, token: int) -> Stale | None:
        return self._table.fenced(
            session_id, token, lambda: self._table.write(session_id, {"transcript": transcript}, create=True)
        )

    def provision(self, session_id: str, agent_ref: str | None, token: int) -> SessionRecord | Stale:
        return self._table.fenced(session_id, token, lambda: self._table.provision(session_id, agent_ref))

    def set_totals(
        self, session_id: str, totals: SessionTotalsJson, override: dict[str, Any] | None, token: int
    ) -> Stale | None:
        update = {"session_totals": decode_totals(totals), "budget_override": override}
        return self._table.fenced(session_id, token, lambda: self._table.write(session_id, update))

    def increment_failures(self, session_id: str, token: int) -> int | Stale:
        return self._table.fenced(session_id, token, lambda: self._table.increment(session_id))

    def reset_failures(self, session_id: str, token: int) -> Stale | None:
        return self._table.fenced(
            session_id, token, lambda: self._table.write(session_id, {"compaction_failure_count": 0})
        )

    def delete(self, session_id: str, token: int) -> Stale | None:
        return self._table.fenced(session_id, token, lambda: self._table.delete(session_id))

    def load(self, session_id: str) -> SessionRecord | None:
        return self._table.read(lambda: self._table.records.get(session_id))

    def load_many(self, session_ids: Sequence[str]) -> list[tuple[str, SessionRecord]]:
        def read() -> list[tuple[str, SessionRecord]]:
            records = self._table.records
            return [(sid, records[sid]) for sid in session_ids if sid in records]

        return self._table.read(read)

    def decode(self, raw: SessionRecord, session_id: str) -> SessionRecord:
        return raw

    def exists(self, session_id: str) -> bool:
        return self._table.read(lambda: session_id in self._table.records)

    def list_session_ids(self) -> list[str]:
        return self._table.read(lambda: sorted(self._table.records))


@exported_from("aimon_mongo.memory")
def MemorySessionRecordStore(storage: MemoryStorage) -> RecordStore[SessionRecord]:
    """Session records of a :class:`MemoryStorage` (fenced by the storage's per-session fence).

    A factory: the :class:`~aimon_mongo.services.RecordStore` service over :class:`MemoryRecordDriver`."""
    return RecordStore(MemoryRecordDriver(storage))
