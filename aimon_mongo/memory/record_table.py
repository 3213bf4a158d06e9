"""In-memory session records and log segments, fenced by one per-session highest token (the state the
in-memory record and segment drivers share; policy is the services')."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from aimon_mongo.clock import Clock
from aimon_mongo.model.record import LogSegment, SegmentInfo, SegmentScanPage, SessionRecord
from aimon_mongo.services.fencing import Stale

T = TypeVar("T")


class RecordTable:
    """Records, segments and the fence they share.

    Every fenced write checks and raises the session's highest accepted token under the same lock as the
    write itself (:meth:`fenced`), so a write with a lower token than one already accepted never lands
    (no window).
    """

    def __init__(self, lock: threading.Lock, clock: Clock) -> None:
        self._lock = lock
        self._clock = clock
        self._fences: dict[str, int] = {}
        self.records: dict[str, SessionRecord] = {}
        self.segments: dict[str, dict[str, LogSegment]] = {}

    def fenced(self, session_id: str, token: int, write: Callable[[], T]) -> T | Stale:
        """Run ``write`` as ``token``'s write to the session, or :class:`Stale` (nothing run)."""
        with self._lock:
            highest = self._fences.get(session_id)
            if highest is not None and token < highest:
                return Stale(highest)
            self._fences[session_id] = token
            return write()

    def raise_fence(self, session_id: str, token: int) -> None:
        """Raise the session's fence to ``token`` unless it is higher (call under the lock: a lease grant)."""
        if token > self._fences.get(session_id, 0):
            self._fences[session_id] = token

    def read(self, read: Callable[[], T]) -> T:
        """Run ``read`` under the lock."""
        with self._lock:
            return read()

    # --- records (call under the lock: from fenced / read) -----------------------------------------

    def write(self, session_id: str, update: dict[str, Any], *, create: bool = False) -> None:
        """Apply ``update`` (and the update time) to the record; a missing one only when ``create``."""
        current = self.records.get(session_id)
        if current is not None or create:
            base = current or SessionRecord(session_id=session_id)
            self.records[session_id] = base.model_copy(update={**update, "updated_at": self._clock()})

    def provision(self, session_id: str, agent_ref: str | None) -> SessionRecord:
        """Create the record when missing; bind ``agent_ref`` when it has no binding."""
        current = self.records.get(session_id)
        bound = agent_ref if current is None or current.agent_ref is None else current.agent_ref
        self.write(session_id, {"agent_ref": bound}, create=True)
        return self.records[session_id]

    def increment(self, session_id: str) -> int:
        """Add one to an existing record's failure count; the new count, else 0."""
        current = self.records.get(session_id)
        count = 0 if current is None else current.compaction_failure_count + 1
        self.write(session_id, {"compaction_failure_count": count})
        return count

    def delete(self, session_id: str) -> None:
        self.records.pop(session_id, None)

    # --- segments (call under the lock) ------------------------------------------------------------

    def add_segment(self, segment: LogSegment) -> bool:
        """Store ``segment`` unless its id exists in its session."""
        segments = self.segments.setdefault(segment.session_id, {})
        if segment.segment_id in segments:
            return False
        segments[segment.segment_id] = segment
        return True

    def remove_segments(self, session_id: str) -> None:
        self.segments.pop(session_id, None)

    def remove_segment(self, session_id: str, segment_id: str) -> None:
        segments = self.segments.get(session_id, {})
        segments.pop(segment_id, None)
        if not segments:
            self.segments.pop(session_id, None)

    def segment_infos(self, session_id: str) -> list[SegmentInfo]:
        segments = self.segments.get(session_id, {}).values()
        return [SegmentInfo(segment_id=s.segment_id, created_at=s.created_at) for s in segments]

    def segment_infos_page(self, session_id: str, after: str | None, limit: int) -> list[SegmentInfo]:
        """The first ``limit`` of the session's segments with an id above ``after``, in code-point order."""
        segments = self.segments.get(session_id, {})
        ids = sorted(seg for seg in segments if after is None or seg > after)[:limit]
        return [SegmentInfo(segment_id=seg, created_at=segments[seg].created_at) for seg in ids]

    def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage:
        matching = sorted(
            sid
            for sid, segments in self.segments.items()
            if (cursor is None or sid > cursor) and any(s.created_at < created_before for s in segments.values())
        )
        page = matching[:limit]
        return SegmentScanPage(session_ids=tuple(page), next_cursor=page[-1] if len(matching) > limit else None)
