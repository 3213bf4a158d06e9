# GENERATED from aimon_mongo/redis/_async/segments.py by scripts/gen_sync.py; do not edit.
"""Sealed session-log segments on Redis: two hashes per session sharing the hash tag ``{s:<id>}``.

``<segments>:{s:<id>}:data`` maps segment id → segment JSON, ``…:created`` maps segment id → creation
time (epoch millis). Writes are fenced like records (the write fence shares the same hash tag, so every
segment script touches one cluster slot). ``put`` never overwrites: a duplicate id is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from aimon_mongo.errors import InvalidArgumentError, SessionLogSegmentStoreError
from aimon_mongo.model.record import LogSegment, SegmentInfo, SegmentScanPage
from aimon_mongo.redis._sync.connection import Arg, RedisIO
from aimon_mongo.redis.keys import RedisKeys
from aimon_mongo.redis.layout import segment_from_json, segment_to_json
from aimon_mongo.redis.replies import from_millis, pairs, text, to_millis
from aimon_mongo.validate import require_aware, require_id, require_instance, require_limit, require_token

SCAN_COUNT = 256


class RedisSessionLogSegmentStore:
    """Per-session segment hashes with fenced writes (see the module text)."""

    def __init__(self, io: RedisIO, keys: RedisKeys) -> None:
        self._io = io
        self._keys = keys

    def _fenced_keys(self, sid: str) -> list[str]:
        return [self._keys.write_fence(sid), self._keys.segment_data(sid), self._keys.segment_created(sid)]

    def put(self, segment: LogSegment, fencing_token: int) -> None:
        require_instance(segment, LogSegment, "segment")
        token = require_token(fencing_token)
        sid = require_id(segment.session_id, "segment.session_id")
        seg_id = require_id(segment.segment_id, "segment.segment_id")
        args: list[Arg] = [token, seg_id, segment_to_json(segment), to_millis(segment.created_at)]
        with self._io.guard(SessionLogSegmentStoreError, f"segment put of session {sid!r}"):
            stored = self._io.fenced_script("segment_put", sid, token, self._fenced_keys(sid), args)
        if int(stored) == 0:
            raise SessionLogSegmentStoreError(f"segment {seg_id!r} of session {sid!r} already exists")

    def get(self, session_id: str, segment_id: str) -> LogSegment | None:
        sid = require_id(session_id, "session_id")
        seg_id = require_id(segment_id, "segment_id")
        with self._io.guard(SessionLogSegmentStoreError, f"segment get of session {sid!r}"):
            raw = self._io.call("HGET", self._keys.segment_data(sid), seg_id)
        return None if raw is None else segment_from_json(raw)

    def list(self, session_id: str) -> list[SegmentInfo]:
        sid = require_id(session_id, "session_id")
        with self._io.guard(SessionLogSegmentStoreError, f"segment list of session {sid!r}"):
            reply = self._io.call("HGETALL", self._keys.segment_created(sid))
        infos = [
            SegmentInfo(segment_id=seg_id, created_at=from_millis(int(millis)))
            for seg_id, millis in pairs(reply or {}).items()
        ]
        return sorted(infos, key=lambda info: (info.created_at, info.segment_id))

    def delete(self, session_id: str, segment_id: str, fencing_token: int) -> None:
        sid = require_id(session_id, "session_id")
        seg_id = require_id(segment_id, "segment_id")
        token = require_token(fencing_token)
        with self._io.guard(SessionLogSegmentStoreError, f"segment delete of session {sid!r}"):
            self._io.fenced_script("segment_delete", sid, token, self._fenced_keys(sid), [token, seg_id])

    def delete_all(self, session_id: str, fencing_token: int) -> None:
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        with self._io.guard(SessionLogSegmentStoreError, f"segment delete of session {sid!r}"):
            self._io.fenced_script("fenced_delete", sid, token, self._fenced_keys(sid), [token])

    def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage:
        """Sessions with a segment created before ``created_before``, by ``SCAN`` over the created hashes.

        The cursor is ``"<scan cursor>"`` or ``"<scan cursor>|<last session id returned>"`` (a page cut
        short by ``limit`` resumes at the same SCAN position and skips what it already returned).
        """
        created_before = require_aware(created_before, "created_before")
        require_limit(limit)
        scan_at, after = _parse_cursor(cursor)
        cutoff = to_millis(created_before)
        found: list[str] = []
        pattern = self._keys.segment_created_pattern()
        with self._io.guard(SessionLogSegmentStoreError, "segment scan"):
            while True:
                page_start = scan_at
                next_at, batch = self._io.scan(scan_at, pattern, SCAN_COUNT)
                qualifying = self._qualifying(batch, cutoff)
                page = sorted(sid for sid in qualifying if after is None or sid > after)
                after = None
                if len(found) + len(page) > limit:
                    taken = page[: limit - len(found)]
                    found += taken
                    return SegmentScanPage(session_ids=tuple(found), next_cursor=f"{page_start}|{taken[-1]}")
                found += page
                scan_at = int(next_at)
                if scan_at == 0:
                    return SegmentScanPage(session_ids=tuple(found), next_cursor=None)
                if len(found) == limit:
                    return SegmentScanPage(session_ids=tuple(found), next_cursor=str(scan_at))

    def _qualifying(self, batch: Sequence[bytes], cutoff: int) -> set[str]:
        sessions: dict[str, bytes] = {}
        for raw in batch:
            sid = self._keys.session_of_segment_created(text(raw, "segment key"))
            if sid is not None:
                sessions[sid] = raw
        if not sessions:
            return set()
        pipe = self._io.pipeline()
        for raw in sessions.values():
            self._io.queue(pipe, "HVALS", raw)
        replies = pipe.execute()
        return {
            sid
            for sid, values in zip(sessions, replies, strict=True)
            if any(int(millis) < cutoff for millis in values or [])
        }


def _parse_cursor(cursor: str | None) -> tuple[int, str | None]:
    if cursor is None:
        return 0, None
    if not isinstance(cursor, str):
        raise InvalidArgumentError(f"cursor must be a str or None, got {type(cursor).__name__}")
    position, sep, after = cursor.partition("|")
    if not position.isdigit():
        raise InvalidArgumentError(f"cursor {cursor!r} was not returned by scan_sessions")
    return int(position), (after if sep else None)
