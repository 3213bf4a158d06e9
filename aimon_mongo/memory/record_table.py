"""In-memory session records and log segments, fenced by one per-session highest token."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

from pydantic import JsonValue

from aimon_mongo.clock import Clock
from aimon_mongo.errors import SessionLogSegmentStoreError, StaleFencingTokenError
from aimon_mongo.model.record import LogSegment, SegmentInfo, SegmentScanPage, SessionRecord, SessionTotals


class RecordTable:
    """Records, segments and the fence they share.

    Every fenced write checks and raises the session's highest accepted token under the same lock as the
    write itself, so a write with a lower token than one already accepted never lands (no window).
    """

    def __init__(self, lock: threading.Lock, clock: Clock) -> None:
        self._lock = lock
        self._clock = clock
        self._fences: dict[str, int] = {}
        self._records: dict[str, SessionRecord] = {}
        self._segments: dict[str, dict[str, LogSegment]] = {}

    # --- fence -------------------------------------------------------------------------------------

    def _fence(self, session_id: str, token: int) -> None:
        highest = self._fences.get(session_id)
        if highest is not None and token < highest:
            raise StaleFencingTokenError(session_id, token, highest)
        self._fences[session_id] = token

    # --- records -----------------------------------------------------------------------------------

    def merge_transcript(self, session_id: str, transcript: str, token: int) -> None:
        with self._lock:
            self._fence(session_id, token)
            self._write(session_id, {"transcript": transcript}, create=True)

    def provision(self, session_id: str, agent_ref: str | None, token: int) -> SessionRecord:
        with self._lock:
            self._fence(session_id, token)
            current = self._records.get(session_id)
            bound = current.agent_ref if current is not None and current.agent_ref is not None else agent_ref
            return self._write(session_id, {"agent_ref": bound}, create=True)

    def set_totals_and_budget_override(
        self, session_id: str, totals: SessionTotals, budget_override: dict[str, JsonValue] | None, token: int
    ) -> None:
        with self._lock:
            self._fence(session_id, token)
            self._write(session_id, {"session_totals": totals, "budget_override": budget_override}, create=False)

    def increment_compaction_failure_count(self, session_id: str, token: int) -> int:
        with self._lock:
            self._fence(session_id, token)
            current = self._records.get(session_id)
            if current is None:
                return 0
            count = current.compaction_failure_count + 1
            self._write(session_id, {"compaction_failure_count": count}, create=False)
            return count

    def reset_compaction_failure_count(self, session_id: str, token: int) -> None:
        with self._lock:
            self._fence(session_id, token)
            self._write(session_id, {"compaction_failure_count": 0}, create=False)

    def load(self, session_id: str) -> SessionRecord | None:
        with self._lock:
            return self._records.get(session_id)

    def list_session_ids(self) -> list[str]:
        with self._lock:
            return sorted(self._records)

    def delete(self, session_id: str, token: int) -> None:
        with self._lock:
            self._fence(session_id, token)
            self._records.pop(session_id, None)

    def _write(self, session_id: str, update: dict[str, Any], *, create: bool) -> SessionRecord:
        current = self._records.get(session_id)
        if current is None:
            if not create:
                return SessionRecord(session_id=session_id)
            current = SessionRecord(session_id=session_id)
        record = current.model_copy(update={**update, "updated_at": self._clock()})
        self._records[session_id] = record
        return record

    # --- segments ----------------------------------------------------------------------------------

    def put_segment(self, segment: LogSegment, token: int) -> None:
        with self._lock:
            self._fence(segment.session_id, token)
            segments = self._segments.setdefault(segment.session_id, {})
            if segment.segment_id in segments:
                raise SessionLogSegmentStoreError(
                    f"segment {segment.segment_id!r} of session {segment.session_id!r} already exists"
                )
            segments[segment.segment_id] = segment

    def get_segment(self, session_id: str, segment_id: str) -> LogSegment | None:
        with self._lock:
            return self._segments.get(session_id, {}).get(segment_id)

    def list_segments(self, session_id: str) -> list[SegmentInfo]:
        with self._lock:
            segments = list(self._segments.get(session_id, {}).values())
        segments.sort(key=lambda s: (s.created_at, s.segment_id))
        return [SegmentInfo(segment_id=s.segment_id, created_at=s.created_at) for s in segments]

    def delete_segment(self, session_id: str, segment_id: str, token: int) -> None:
        with self._lock:
            self._fence(session_id, token)
            segments = self._segments.get(session_id, {})
            segments.pop(segment_id, None)
            if not segments:
                self._segments.pop(session_id, None)

    def delete_all_segments(self, session_id: str, token: int) -> None:
        with self._lock:
            self._fence(session_id, token)
            self._segments.pop(session_id, None)

    def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage:
        with self._lock:
            matching = sorted(
                sid
                for sid, segments in self._segments.items()
                if (cursor is None or sid > cursor) and any(s.created_at < created_before for s in segments.values())
            )
        page = matching[:limit]
        more = len(matching) > limit
        return SegmentScanPage(session_ids=tuple(page), next_cursor=page[-1] if more else None)
