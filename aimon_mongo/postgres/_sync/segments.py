# GENERATED from aimon_mongo/postgres/_async/segments.py by scripts/gen_sync.py; do not edit.
"""PostgreSQL session-log segment store (``session_log_segment``, V2): immutable rows, fenced writes."""

from __future__ import annotations

from datetime import datetime

from aimon_mongo.errors import InvalidArgumentError, SessionLogSegmentStoreError
from aimon_mongo.model.record import LogSegment, SegmentInfo, SegmentScanPage
from aimon_mongo.postgres._sync.fence import FencedWriter
from aimon_mongo.postgres._sync.pool import PgPool
from aimon_mongo.postgres.fencing import fenced
from aimon_mongo.postgres.rows import SEGMENT_COLUMNS, segment_from_row, segment_params
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.validate import require_aware, require_id, require_instance, require_limit

_GUARD = "EXISTS (SELECT 1 FROM fence)"
_PUT = fenced(
    f"INSERT INTO {{segment}} ({SEGMENT_COLUMNS})\n"
    "SELECT %(sid)s, %(segment)s, %(from_seq)s, %(to_seq)s, %(entries)s, %(payload)s, %(created)s\n"
    f"WHERE {_GUARD}\n"
    "ON CONFLICT (session_id, segment_id) DO NOTHING RETURNING 1 AS written",
    "done.written",
)
_DELETE = fenced(
    "DELETE FROM {segment} WHERE session_id = %(sid)s AND segment_id = %(segment)s\n"
    f"AND {_GUARD} RETURNING 1 AS written",
    "done.written",
)
_DELETE_ALL = fenced(
    f"DELETE FROM {{segment}} WHERE session_id = %(sid)s AND {_GUARD} RETURNING 1 AS written",
    "done.written",
)
_GET = f"SELECT {SEGMENT_COLUMNS} FROM {{segment}} WHERE session_id = %s AND segment_id = %s"
_LIST = "SELECT segment_id, created_at FROM {segment} WHERE session_id = %s ORDER BY created_at, segment_id"
_SCAN = (
    "SELECT DISTINCT session_id FROM {segment} WHERE created_at < %s AND session_id > %s ORDER BY session_id LIMIT %s"
)


class PostgresSessionLogSegmentStore:
    """Sealed segments; a duplicate id is refused, never overwritten."""

    def __init__(self, pool: PgPool, schema: str) -> None:
        self._pool = pool
        self._writer = FencedWriter(pool, schema, SessionLogSegmentStoreError)
        self._put = qualify(_PUT, schema)
        self._delete = qualify(_DELETE, schema)
        self._delete_all = qualify(_DELETE_ALL, schema)
        self._get = qualify(_GET, schema)
        self._list = qualify(_LIST, schema)
        self._scan = qualify(_SCAN, schema)

    def put(self, segment: LogSegment, fencing_token: int) -> None:
        """Store a new segment; an existing (session, segment id) refuses with
        :class:`SessionLogSegmentStoreError`."""
        require_instance(segment, LogSegment, "segment")
        row = self._writer.write(self._put, segment.session_id, fencing_token, **segment_params(segment))
        if row[1] is None:
            raise SessionLogSegmentStoreError(
                f"segment {segment.segment_id!r} of session {segment.session_id!r} already exists"
            )

    def get(self, session_id: str, segment_id: str) -> LogSegment | None:
        require_id(session_id, "session_id")
        require_id(segment_id, "segment_id")
        with self._pool.connection(SessionLogSegmentStoreError) as conn:
            cur = conn.execute(self._get, [session_id, segment_id])
            row = cur.fetchone()
        return segment_from_row(row) if row is not None else None

    def list(self, session_id: str) -> list[SegmentInfo]:
        """Ids and creation times of the session's segments, oldest first."""
        require_id(session_id, "session_id")
        with self._pool.connection(SessionLogSegmentStoreError) as conn:
            cur = conn.execute(self._list, [session_id])
            rows = cur.fetchall()
        return [SegmentInfo(segment_id=row[0], created_at=row[1]) for row in rows]

    def delete(self, session_id: str, segment_id: str, fencing_token: int) -> None:
        require_id(segment_id, "segment_id")
        self._writer.write(self._delete, session_id, fencing_token, segment=segment_id)

    def delete_all(self, session_id: str, fencing_token: int) -> None:
        self._writer.write(self._delete_all, session_id, fencing_token)

    def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage:
        """Sessions with a segment created before ``created_before``, in session-id order; the cursor is the
        last session id of the previous page."""
        created_before = require_aware(created_before, "created_before")
        if cursor is not None and not isinstance(cursor, str):
            raise InvalidArgumentError(f"cursor must be a str or None, got {type(cursor).__name__}")
        require_limit(limit)
        with self._pool.connection(SessionLogSegmentStoreError) as conn:
            cur = conn.execute(self._scan, [created_before, cursor or "", limit])
            ids = tuple(row[0] for row in cur.fetchall())
        return SegmentScanPage(session_ids=ids, next_cursor=ids[-1] if len(ids) == limit else None)
