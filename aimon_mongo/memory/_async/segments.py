"""The in-memory log-segment store (async flavour; the sync twin is generated)."""

from __future__ import annotations

import logging
from datetime import datetime

from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model.record import (
    LogSegment,
    SegmentInfo,
    SegmentScanPage,
)
from aimon_mongo.validate import (
    optional_id,
    require_aware,
    require_id,
    require_instance,
    require_limit,
    require_token,
)

log = logging.getLogger(__name__)


class AsyncMemorySessionLogSegmentStore:
    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.records

    async def put(self, segment: LogSegment, fencing_token: int) -> None:
        self._table.put_segment(require_instance(segment, LogSegment, "segment"), require_token(fencing_token))

    async def get(self, session_id: str, segment_id: str) -> LogSegment | None:
        return self._table.get_segment(require_id(session_id, "session_id"), require_id(segment_id, "segment_id"))

    async def list(self, session_id: str) -> list[SegmentInfo]:
        return self._table.list_segments(require_id(session_id, "session_id"))

    async def delete(self, session_id: str, segment_id: str, fencing_token: int) -> None:
        self._table.delete_segment(
            require_id(session_id, "session_id"), require_id(segment_id, "segment_id"), require_token(fencing_token)
        )

    async def delete_all(self, session_id: str, fencing_token: int) -> None:
        self._table.delete_all_segments(require_id(session_id, "session_id"), require_token(fencing_token))

    async def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage:
        return self._table.scan_sessions(
            require_aware(created_before, "created_before"), optional_id(cursor, "cursor"), require_limit(limit)
        )
