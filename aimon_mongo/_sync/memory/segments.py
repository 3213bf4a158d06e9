# GENERATED from aimon_mongo/_async/memory/segments.py by scripts/gen_sync.py; do not edit.
"""The in-memory log-segment store (generated from the ``_async`` source): the segment service over
:class:`~aimon_mongo.memory.record_table.RecordTable` (stored segments are the models themselves)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from aimon_mongo._sync.services.segments import SegmentStore
from aimon_mongo.exported import exported_from
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model.record import LogSegment, SegmentInfo, SegmentScanPage
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures, no_failures
from aimon_mongo.services.fencing import Stale


@exported_from("aimon_mongo.memory")
class MemorySegmentDriver:
    """Each primitive one call of the table under its lock."""

    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.records
        self.failures: Failures = no_failures

    def __repr__(self) -> str:
        return located(self)

    def put(self, segment: LogSegment, token: int) -> bool | Stale:
        return self._table.fenced(segment.session_id, token, lambda: self._table.add_segment(segment))

    def get(self, session_id: str, segment_id: str) -> LogSegment | None:
        return self._table.read(lambda: self._table.segments.get(session_id, {}).get(segment_id))

    def get_many(self, session_id: str, segment_ids: Sequence[str]) -> list[LogSegment]:
        def read() -> list[LogSegment]:
            stored = self._table.segments.get(session_id, {})
            return [stored[seg] for seg in segment_ids if seg in stored]

        return self._table.read(read)

    def decode(self, raw: LogSegment) -> LogSegment:
        return raw

    def infos(self, session_id: str) -> list[SegmentInfo]:
        return self._table.read(lambda: self._table.segment_infos(session_id))

    def infos_page(self, session_id: str, after: str | None, limit: int) -> list[SegmentInfo]:
        return self._table.read(lambda: self._table.segment_infos_page(session_id, after, limit))

    def delete(self, session_id: str, segment_id: str, token: int) -> Stale | None:
        return self._table.fenced(session_id, token, lambda: self._table.remove_segment(session_id, segment_id))

    def delete_all(self, session_id: str, token: int) -> Stale | None:
        return self._table.fenced(session_id, token, lambda: self._table.remove_segments(session_id))

    def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage:
        return self._table.read(lambda: self._table.scan_sessions(created_before, cursor, limit))


@exported_from("aimon_mongo.memory")
def MemorySessionLogSegmentStore(storage: MemoryStorage) -> SegmentStore[LogSegment]:
    """Log segments of a :class:`MemoryStorage` (fenced by the storage's per-session fence).

    A factory: the :class:`~aimon_mongo.services.SegmentStore` service over :class:`MemorySegmentDriver`."""
    return SegmentStore(MemorySegmentDriver(storage))
