# GENERATED from aimon_mongo/_async/services/segments.py by scripts/gen_sync.py; do not edit.
"""The log-segment service (generated from the ``_async`` source): every rule of the port
:class:`~aimon_mongo._sync.ports.SessionLogSegmentStore`, over a driver of one store's primitives.

The service checks every argument, refuses a duplicate segment id, lists a session's segments oldest
first, names failures in :class:`~aimon_mongo.errors.SessionLogSegmentStoreError` and refuses a stale
fencing token with :class:`~aimon_mongo.errors.StaleFencingTokenError` (:mod:`aimon_mongo.services.fencing`).
Writes are fenced by the same per-session fence as the session records.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Generic, Protocol, TypeVar

from aimon_mongo.errors import InvalidArgumentError, SessionLogSegmentStoreError
from aimon_mongo.exported import exported_from
from aimon_mongo.model.record import LogSegment, SegmentInfo, SegmentScanPage
from aimon_mongo.services.composed import composed_repr
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.fencing import Stale, accepted
from aimon_mongo.telemetry.capabilities import traced
from aimon_mongo.validate import optional_id, require_aware, require_id, require_instance, require_limit, require_token

Raw = TypeVar("Raw")


class SegmentDriver(Protocol[Raw]):
    """One store's segment primitives. Writes are fenced as the record driver's are (same fence): a token
    below the session's highest writes nothing and returns :class:`Stale`. Arguments arrive checked."""

    failures: Failures

    def put(self, segment: LogSegment, token: int) -> bool | Stale:
        """Store ``segment`` unless its session already has a segment of that id (``False``: nothing
        written, the stored one untouched)."""
        ...

    def get(self, session_id: str, segment_id: str) -> Raw | None:
        """The stored segment, undecoded; ``None`` when there is none."""
        ...

    def get_many(self, session_id: str, segment_ids: Sequence[str]) -> list[Raw]:
        """The stored segments among ``segment_ids`` (distinct, at least one), undecoded, in any order;
        missing ones are left out. One request."""
        ...

    def decode(self, raw: Raw) -> LogSegment:
        """The segment in ``raw`` (a :class:`~aimon_mongo.errors.CodecError` when it cannot be read)."""
        ...

    def infos(self, session_id: str) -> list[SegmentInfo]:
        """Id and creation time of each of the session's segments, in any order."""
        ...

    def infos_page(self, session_id: str, after: str | None, limit: int) -> list[SegmentInfo]:
        """Id and creation time of the session's first ``limit`` segments whose id is above ``after`` (every
        id when ``None``) in code-point order of the id, in any order; one request."""
        ...

    def delete(self, session_id: str, segment_id: str, token: int) -> Stale | None:
        """Remove one segment, if it exists."""
        ...

    def delete_all(self, session_id: str, token: int) -> Stale | None:
        """Remove every segment of the session."""
        ...

    def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage | None:
        """A page of at most ``limit`` sessions having a segment created before ``created_before``, after
        ``cursor`` (a ``next_cursor`` this driver returned); ``None`` when ``cursor`` is not one of those."""
        ...


@exported_from("aimon_mongo.services")
@traced("segments")
class SegmentStore(Generic[Raw]):
    """Sealed session-log segments (the port's contract); a backend's public segment store is this
    service bound to its driver."""

    def __init__(self, driver: SegmentDriver[Raw]) -> None:
        self._driver = driver

    __repr__ = composed_repr

    @property
    def driver(self) -> SegmentDriver[Raw]:
        """The store's primitives (driver-level tests reach them here)."""
        return self._driver

    def _failures(self, action: str) -> AbstractContextManager[None]:
        return self._driver.failures(SessionLogSegmentStoreError, action)

    def put(self, segment: LogSegment, fencing_token: int) -> None:
        """Store a new segment; one whose id the session already has is refused, never overwritten."""
        require_instance(segment, LogSegment, "segment")
        sid = require_id(segment.session_id, "segment.session_id")
        seg = require_id(segment.segment_id, "segment.segment_id")
        token = require_token(fencing_token)
        with self._failures(f"put of segment {seg!r} of session {sid!r}"):
            stored = accepted(self._driver.put(segment, token), sid, token)
        if not stored:
            raise SessionLogSegmentStoreError(f"segment {seg!r} of session {sid!r} already exists")

    def get(self, session_id: str, segment_id: str) -> LogSegment | None:
        """The segment, or ``None`` (only the given session's segments are seen)."""
        sid = require_id(session_id, "session_id")
        seg = require_id(segment_id, "segment_id")
        with self._failures(f"get of segment {seg!r} of session {sid!r}"):
            raw = self._driver.get(sid, seg)
        return None if raw is None else self._driver.decode(raw)

    def get_many(self, session_id: str, segment_ids: Sequence[str]) -> list[LogSegment]:
        """The session's segments among ``segment_ids`` in the order asked for (a repeated id once), missing
        ones left out; one request to the store, however many ids."""
        sid = require_id(session_id, "session_id")
        if isinstance(segment_ids, str) or not isinstance(segment_ids, Sequence):
            raise InvalidArgumentError(f"segment_ids must be a sequence of str, got {type(segment_ids).__name__}")
        wanted = list(dict.fromkeys(require_id(seg, "segment_ids[]") for seg in segment_ids))
        if not wanted:
            return []
        with self._failures(f"get of {len(wanted)} segments of session {sid!r}"):
            raws = self._driver.get_many(sid, wanted)
        found = {segment.segment_id: segment for segment in map(self._driver.decode, raws)}
        return [found[seg] for seg in wanted if seg in found]

    def delete(self, session_id: str, segment_id: str, fencing_token: int) -> None:
        """Delete one segment (no-op when missing)."""
        sid = require_id(session_id, "session_id")
        seg = require_id(segment_id, "segment_id")
        token = require_token(fencing_token)
        with self._failures(f"delete of segment {seg!r} of session {sid!r}"):
            accepted(self._driver.delete(sid, seg, token), sid, token)

    def delete_all(self, session_id: str, fencing_token: int) -> None:
        """Delete every segment of the session."""
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        with self._failures(f"delete of all segments of session {sid!r}"):
            accepted(self._driver.delete_all(sid, token), sid, token)

    def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage:
        """Sessions having a segment created before ``created_before``, a page at a time."""
        before = require_aware(created_before, "created_before")
        after = optional_id(cursor, "cursor")
        size = require_limit(limit)
        with self._failures("scan of sessions with segments"):
            page = self._driver.scan_sessions(before, after, size)
        if page is None:
            raise InvalidArgumentError(f"cursor {cursor!r} was not returned by scan_sessions")
        return page

    def list_page(self, session_id: str, after: str | None, limit: int) -> list[SegmentInfo]:
        """Ids and creation times of the session's segments whose id is above ``after`` (from the first when
        ``None``; ``after`` need not be an id the session has), in code-point order of the id (the byte order
        of its UTF-8), at most ``limit``: one request to the store, only that page returned. The next page
        starts after the last id of this one; a page shorter than ``limit`` is the last."""
        sid = require_id(session_id, "session_id")
        cursor = optional_id(after, "after")
        size = require_limit(limit)
        with self._failures(f"page of segments of session {sid!r}"):
            infos = self._driver.infos_page(sid, cursor, size)
        return sorted(infos, key=lambda info: info.segment_id)[:size]

    def list(self, session_id: str) -> list[SegmentInfo]:
        """Ids and creation times of the session's segments, oldest first (ties by id)."""
        sid = require_id(session_id, "session_id")
        with self._failures(f"list of segments of session {sid!r}"):
            infos = self._driver.infos(sid)
        return sorted(infos, key=lambda info: (info.created_at, info.segment_id))
