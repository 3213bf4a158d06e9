# GENERATED from aimon_mongo/mongo/_async/segments.py by scripts/gen_sync.py; do not edit.
"""MongoDB session-log segment store (generated from the ``_async`` source): ``session_log_segments``.

Segments are immutable and their ids new per ``put`` (a duplicate ``_id`` is refused, never overwritten).
A ``put`` is fenced in three steps: :func:`advance_fence` (refuses a token below one already accepted),
the insert (carrying its token), then a re-check of the fence: if a newer token was accepted meanwhile,
the segment just inserted is deleted again and the put refused. So a stale segment outlives a newer
writer only while its own ``put`` is stalled between the insert and the re-check (a paused process): it is
removed when that ``put`` resumes, and stays for good if the process dies there. Deletes are fenced by the
first step only
(a delete cannot be undone; same window as records, see ``records.py``). Every read and delete of one
segment carries the top-level ``sessionId`` beside the compound ``_id``: it is the shard key
(:mod:`aimon_mongo.mongo.placement`), so mongos sends them to one shard.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pymongo.synchronous.collection import Collection
from pymongo.errors import DuplicateKeyError

from aimon_mongo import names as n
from aimon_mongo.errors import SessionLogSegmentStoreError, StaleFencingTokenError
from aimon_mongo.model.record import LogSegment, SegmentInfo, SegmentScanPage
from aimon_mongo.mongo._sync.fences import advance_fence, highest_token
from aimon_mongo.mongo.documents import (
    segment_from_document,
    segment_info_from_document,
    segment_key,
    segment_to_document,
)
from aimon_mongo.mongo.failures import failures
from aimon_mongo.validate import optional_id, require_aware, require_id, require_instance, require_limit, require_token


class MongoSessionLogSegmentStore:
    def __init__(self, segments: Collection[dict[str, Any]], fences: Collection[dict[str, Any]]) -> None:
        self._segments = segments
        self._fences = fences

    def put(self, segment: LogSegment, fencing_token: int) -> None:
        require_instance(segment, LogSegment, "segment")
        require_id(segment.session_id, "segment.session_id")
        require_id(segment.segment_id, "segment.segment_id")
        token = require_token(fencing_token)
        session_id = segment.session_id
        with failures(SessionLogSegmentStoreError, f"put of segment {segment.segment_id!r} of {session_id!r}"):
            advance_fence(self._fences, session_id, token)
            try:
                self._segments.insert_one(segment_to_document(segment, token))
            except DuplicateKeyError:
                raise SessionLogSegmentStoreError(
                    f"segment {segment.segment_id!r} of session {session_id!r} already exists"
                ) from None
            highest = highest_token(self._fences, session_id)
            if highest is not None and highest > token:
                self._segments.delete_one({**_one(session_id, segment.segment_id), n.F_FENCING_TOKEN: token})
                raise StaleFencingTokenError(session_id, token, highest)

    def get(self, session_id: str, segment_id: str) -> LogSegment | None:
        require_id(session_id, "session_id")
        require_id(segment_id, "segment_id")
        with failures(SessionLogSegmentStoreError, f"get of segment {segment_id!r} of {session_id!r}"):
            doc = self._segments.find_one(_one(session_id, segment_id))
        return None if doc is None else segment_from_document(doc)

    def list(self, session_id: str) -> list[SegmentInfo]:
        require_id(session_id, "session_id")
        with failures(SessionLogSegmentStoreError, f"list of segments of {session_id!r}"):
            docs = self._segments.find(
                {n.F_SESSION_ID: session_id}, projection={n.F_SEGMENT_ID: 1, n.F_CREATED_AT: 1}
            ).to_list(None)
        infos = [segment_info_from_document(doc) for doc in docs]
        infos.sort(key=lambda i: (i.created_at, i.segment_id))
        return infos

    def delete(self, session_id: str, segment_id: str, fencing_token: int) -> None:
        require_id(session_id, "session_id")
        require_id(segment_id, "segment_id")
        token = require_token(fencing_token)
        with failures(SessionLogSegmentStoreError, f"delete of segment {segment_id!r} of {session_id!r}"):
            advance_fence(self._fences, session_id, token)
            self._segments.delete_one(_one(session_id, segment_id))

    def delete_all(self, session_id: str, fencing_token: int) -> None:
        require_id(session_id, "session_id")
        token = require_token(fencing_token)
        with failures(SessionLogSegmentStoreError, f"delete of all segments of {session_id!r}"):
            advance_fence(self._fences, session_id, token)
            self._segments.delete_many({n.F_SESSION_ID: session_id})

    def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage:
        """Pages over ``by_session`` in session-id order; the cursor is the last session id returned."""
        created_before = require_aware(created_before, "created_before")
        optional_id(cursor, "cursor")
        require_limit(limit)
        query: dict[str, Any] = {n.F_CREATED_AT: {"$lt": created_before}}
        if cursor is not None:
            query[n.F_SESSION_ID] = {"$gt": cursor}
        with failures(SessionLogSegmentStoreError, "scan of sessions with segments"):
            cursor_ = self._segments.find(query, projection={n.F_SESSION_ID: 1}).sort(n.F_SESSION_ID, 1).limit(limit)
            docs = cursor_.to_list(limit)
        sessions = list(dict.fromkeys(str(doc[n.F_SESSION_ID]) for doc in docs))
        return SegmentScanPage(session_ids=tuple(sessions), next_cursor=sessions[-1] if len(docs) == limit else None)


def _one(session_id: str, segment_id: str) -> dict[str, Any]:
    """The filter of one segment: its ``_id`` and the top-level ``sessionId`` (the shard key, so mongos
    sends the read or delete to one shard instead of every shard)."""
    return {n.F_SESSION_ID: session_id, n.F_ID: segment_key(session_id, segment_id)}
