"""The in-memory log-segment store (async flavour; the sync twin is generated): the segment service over
:class:`~aimon_mongo.memory.record_table.RecordTable` (stored segments are the models themselves)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from aimon_mongo._async.services.segments import AsyncSegmentStore
from aimon_mongo.exported import exported_from
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model.record import LogSegment, SegmentInfo, SegmentScanPage
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures, no_failures
from aimon_mongo.services.fencing import Stale


@exported_from("aimon_mongo.memory")
class AsyncMemorySegmentDriver:
    """Each primitive one call of the table under its lock."""

    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.records
        self.failures: Failures = no_failures

    def __repr__(self) -> str:
        return located(self)

    async def put(self, segment: LogSegment, token: int) -> bool | Stale:
        return self._table.fenced(segment.session_id, token, lambda: self._table.add_segment(segment))

    async def get(self, session_id: str, segment_id: str) -> LogSegment | None:
        return self._table.read(lambda: self._table.segments.get(session_id, {}).get(segment_id))

    async def get_many(self, session_id: str, segment_ids: Sequence[str]) -> list[LogSegment]:
        def read() -> list[LogSegment]:
            stored = self._table.segments.get(session_id, {})
            return [stored[seg] for seg in segment_ids if seg in stored]

        return self._table.read(read)

    def decode(self, raw: LogSegment) -> LogSegment:
        return raw

    async def infos(self, session_id: str) -> list[SegmentInfo]:
        return self._table.read(lambda: self._table.segment_infos(session_id))

    async def infos_page(self, session_id: str, after: str | None, limit: int) -> list[SegmentInfo]:
        return self._table.read(lambda: self._table.segment_infos_page(session_id, after, limit))

    async def delete(self, session_id: str, segment_id: str, token: int) -> Stale | None:
        return self._table.fenced(session_id, token, lambda: self._table.remove_segment(session_id, segment_id))

    async def delete_all(self, session_id: str, token: int) -> Stale | None:
        return self._table.fenced(session_id, token, lambda: self._table.remove_segments(session_id))

    async def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage:
        return self._table.read(lambda: self._table.scan_sessions(created_before, cursor, limit))


@exported_from("aimon_mongo.memory")
def AsyncMemorySessionLogSegmentStore(storage: MemoryStorage) -> AsyncSegmentStore[LogSegment]:
    """Log segments of a :class:`MemoryStorage` (fenced by the storage's per-session fence).

    A factory: the :class:`~aimon_mongo.services.AsyncSegmentStore` service over :class:`AsyncMemorySegmentDriver`."""
    return AsyncSegmentStore(AsyncMemorySegmentDriver(storage))
