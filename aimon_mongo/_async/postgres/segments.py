"""PostgreSQL session-log segment store (async source; the sync twin is generated).

``session_log_segment`` (V2): immutable rows, fenced writes (:mod:`aimon_mongo.postgres.fencing`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from aimon_mongo._async.postgres.fence import AsyncFencedStatements
from aimon_mongo._async.postgres.pool import AsyncPgPool
from aimon_mongo._async.services.segments import AsyncSegmentStore
from aimon_mongo.exported import exported_from
from aimon_mongo.model.record import LogSegment, SegmentInfo, SegmentScanPage
from aimon_mongo.postgres.fencing import GUARD, fenced
from aimon_mongo.postgres.rows import SEGMENT_COLUMNS, segment_from_row, segment_params
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.fencing import Stale, refusal

_PUT = fenced(
    f"INSERT INTO {{segment}} ({SEGMENT_COLUMNS})\n"
    "SELECT %(sid)s, %(segment)s, %(from_seq)s, %(to_seq)s, %(entries)s, %(payload)s, %(created)s\n"
    f"WHERE {GUARD}\n"
    "ON CONFLICT (session_id, segment_id) DO NOTHING RETURNING 1 AS written",
    "done.written",
)
_DELETE = fenced(
    "DELETE FROM {segment} WHERE session_id = %(sid)s AND segment_id = %(segment)s\n"
    f"AND {GUARD} RETURNING 1 AS written",
    "done.written",
)
_DELETE_ALL = fenced(
    f"DELETE FROM {{segment}} WHERE session_id = %(sid)s AND {GUARD} RETURNING 1 AS written",
    "done.written",
)
_GET = f"SELECT {SEGMENT_COLUMNS} FROM {{segment}} WHERE session_id = %s AND segment_id = %s"
_GET_MANY = f"SELECT {SEGMENT_COLUMNS} FROM {{segment}} WHERE session_id = %s AND segment_id = ANY(%s)"
_LIST = "SELECT segment_id, created_at FROM {segment} WHERE session_id = %s"
# Code point order (what every backend and the service sort by), whatever the database's collation.
_PAGE = """
SELECT segment_id, created_at FROM {segment} WHERE session_id = %s AND segment_id COLLATE "C" > %s
ORDER BY segment_id COLLATE "C" LIMIT %s
"""
SCAN = (
    "SELECT DISTINCT session_id FROM {segment} WHERE created_at < %s AND session_id > %s ORDER BY session_id LIMIT %s"
)
"""The statement of :meth:`~AsyncPostgresSegmentDriver.scan_sessions` (its plan is tested)."""


@exported_from("aimon_mongo.postgres")
class AsyncPostgresSegmentDriver:
    """The segment primitives: one fenced statement per write, one plain statement per read."""

    def __init__(self, pool: AsyncPgPool, schema: str) -> None:
        self._sql = AsyncFencedStatements(pool, schema, _PUT, _DELETE, _DELETE_ALL, _GET, _GET_MANY, _LIST, _PAGE, SCAN)
        self.failures: Failures = pool.failures

    def __repr__(self) -> str:
        return located(self, self._sql.endpoint)

    async def put(self, segment: LogSegment, token: int) -> bool | Stale:
        row = await self._sql.write(_PUT, segment.session_id, token, **segment_params(segment))
        return row if isinstance(row, Stale) else row[1] is not None

    async def get(self, session_id: str, segment_id: str) -> tuple[Any, ...] | None:
        return await self._sql.one(_GET, session_id, segment_id)

    async def get_many(self, session_id: str, segment_ids: Sequence[str]) -> list[tuple[Any, ...]]:
        return list(await self._sql.all(_GET_MANY, session_id, list(segment_ids)))

    def decode(self, raw: tuple[Any, ...]) -> LogSegment:
        return segment_from_row(raw)

    async def infos(self, session_id: str) -> list[SegmentInfo]:
        rows = await self._sql.all(_LIST, session_id)
        return [SegmentInfo(segment_id=row[0], created_at=row[1]) for row in rows]

    async def infos_page(self, session_id: str, after: str | None, limit: int) -> list[SegmentInfo]:
        rows = await self._sql.all(_PAGE, session_id, after or "", limit)  # ids are never empty
        return [SegmentInfo(segment_id=row[0], created_at=row[1]) for row in rows]

    async def delete(self, session_id: str, segment_id: str, token: int) -> Stale | None:
        return refusal(await self._sql.write(_DELETE, session_id, token, segment=segment_id))

    async def delete_all(self, session_id: str, token: int) -> Stale | None:
        return refusal(await self._sql.write(_DELETE_ALL, session_id, token))

    async def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage:
        """In session-id order; the cursor is the last session id of the previous page."""
        ids = tuple(row[0] for row in await self._sql.all(SCAN, created_before, cursor or "", limit))
        return SegmentScanPage(session_ids=ids, next_cursor=ids[-1] if len(ids) == limit else None)


@exported_from("aimon_mongo.postgres")
def AsyncPostgresSessionLogSegmentStore(pool: AsyncPgPool, schema: str) -> AsyncSegmentStore[tuple[Any, ...]]:
    """Sealed segments; a duplicate id is refused, never overwritten.

    A factory: the :class:`~aimon_mongo.services.AsyncSegmentStore` service over :class:`AsyncPostgresSegmentDriver`."""
    return AsyncSegmentStore(AsyncPostgresSegmentDriver(pool, schema))
