# GENERATED from aimon_mongo/_async/redis/segments.py by scripts/gen_sync.py; do not edit.
"""Sealed session-log segments on Redis (generated from the ``_async`` source).

Two hashes per session sharing the hash tag ``{s:<id>}``:
``<segments>:{s:<id>}:data`` maps segment id → segment JSON, ``…:created`` maps segment id → creation
time (epoch millis). Neither keeps the ids in order: a page of ids (``infos_page``) is cut on the server by a
script reading the created hash's field names, so only the page crosses the wire, at a server cost growing
with the session's segment count. Writes are fenced like records (the write fence shares the same hash tag, so every
segment script touches one cluster slot). ``put`` never overwrites: a duplicate id is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from aimon_mongo._sync.redis.connection import Arg, RedisIO
from aimon_mongo._sync.services.segments import SegmentStore
from aimon_mongo.codec.instant import epoch_millis, from_epoch_millis
from aimon_mongo.exported import exported_from
from aimon_mongo.model.record import LogSegment, SegmentInfo, SegmentScanPage
from aimon_mongo.redis.keys import RedisKeys
from aimon_mongo.redis.layout import segment_from_json, segment_to_json
from aimon_mongo.redis.replies import pairs, text
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.fencing import Stale, refusal

SCAN_COUNT = 256


@exported_from("aimon_mongo.redis")
class RedisSegmentDriver:
    """The segment primitives: fenced scripts over the session's fence and segment hashes, plain reads."""

    def __init__(self, io: RedisIO, keys: RedisKeys) -> None:
        self._io = io
        self._keys = keys
        self.failures: Failures = io.guard

    def __repr__(self) -> str:
        return located(self, self._io.endpoint)

    def _fenced(self, name: str, sid: str, token: int, *args: Arg) -> Any:
        keys = [self._keys.write_fence(sid), self._keys.segment_data(sid), self._keys.segment_created(sid)]
        return self._io.fenced_script(name, keys, [token, *args])

    def put(self, segment: LogSegment, token: int) -> bool | Stale:
        args = (segment.segment_id, segment_to_json(segment), epoch_millis(segment.created_at))
        reply = self._fenced("segment_put", segment.session_id, token, *args)
        return reply if isinstance(reply, Stale) else int(reply) == 1

    def get(self, session_id: str, segment_id: str) -> bytes | None:
        raw: bytes | None = self._io.call("HGET", self._keys.segment_data(session_id), segment_id)
        return raw

    def get_many(self, session_id: str, segment_ids: Sequence[str]) -> list[bytes]:
        reply = self._io.call("HMGET", self._keys.segment_data(session_id), *segment_ids)
        return [raw for raw in reply or [] if raw is not None]

    def decode(self, raw: bytes) -> LogSegment:
        return segment_from_json(raw)

    def infos(self, session_id: str) -> list[SegmentInfo]:
        reply = self._io.call("HGETALL", self._keys.segment_created(session_id))
        return [
            SegmentInfo(segment_id=seg_id, created_at=from_epoch_millis(int(millis)))
            for seg_id, millis in pairs(reply or {}).items()
        ]

    def infos_page(self, session_id: str, after: str | None, limit: int) -> list[SegmentInfo]:
        """The script ``segment_page``: the created hash keeps no order, so the server reads its field names
        and sends back only the page (no ordered structure is stored beside it)."""
        reply = self._io.script("segment_page", [self._keys.segment_created(session_id)], [after or "", limit])
        return [
            SegmentInfo(segment_id=seg_id, created_at=from_epoch_millis(int(millis)))
            for seg_id, millis in pairs(reply or []).items()
        ]

    def delete(self, session_id: str, segment_id: str, token: int) -> Stale | None:
        return refusal(self._fenced("segment_delete", session_id, token, segment_id))

    def delete_all(self, session_id: str, token: int) -> Stale | None:
        return refusal(self._fenced("fenced_delete", session_id, token))

    def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage | None:
        """``SCAN`` over the created hashes. The cursor is ``"<scan cursor>"`` or ``"<scan cursor>|<last
        session id returned>"`` (a page cut short by ``limit`` resumes at the same SCAN position and skips
        what it already returned); ``None`` for a cursor of another form."""
        position, sep, after_text = (cursor or "0").partition("|")
        if not position.isdigit():
            return None
        scan_at, after = int(position), (after_text if sep else None)
        cutoff = epoch_millis(created_before)
        found: list[str] = []
        pattern = self._keys.segment_created_pattern()
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


@exported_from("aimon_mongo.redis")
def RedisSessionLogSegmentStore(io: RedisIO, keys: RedisKeys) -> SegmentStore[bytes]:
    """Per-session segment hashes with fenced writes (see the module text).

    A factory: the :class:`~aimon_mongo.services.SegmentStore` service over :class:`RedisSegmentDriver`."""
    return SegmentStore(RedisSegmentDriver(io, keys))
