"""PostgreSQL session-record store (``session_record``): partial, atomic, fenced writes."""

from __future__ import annotations

from pydantic import JsonValue

from aimon_mongo.codec._fields import compact_json
from aimon_mongo.codec.totals import encode_totals
from aimon_mongo.errors import InvalidArgumentError, SessionRecordStoreError
from aimon_mongo.model.record import SessionRecord, SessionTotals
from aimon_mongo.postgres._async.fence import AsyncFencedWriter
from aimon_mongo.postgres._async.pool import AsyncPgPool
from aimon_mongo.postgres.fencing import fenced
from aimon_mongo.postgres.rows import RECORD_COLUMNS, record_from_row
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.validate import optional_budget_override, require_id, require_instance

_GUARD = "EXISTS (SELECT 1 FROM fence)"
_DONE_RECORD = ", ".join(f"done.{column}" for column in RECORD_COLUMNS.split(", "))

_MERGE = fenced(
    "INSERT INTO {record} AS r (session_id, transcript)\n"
    f"SELECT %(sid)s, %(transcript)s WHERE {_GUARD}\n"
    "ON CONFLICT (session_id) DO UPDATE SET transcript = EXCLUDED.transcript, updated_at = now()\n"
    "RETURNING 1 AS written",
    "done.written",
)
_PROVISION = fenced(
    "INSERT INTO {record} AS r (session_id, agent_ref)\n"
    f"SELECT %(sid)s, %(agent)s WHERE {_GUARD}\n"
    "ON CONFLICT (session_id) DO UPDATE SET agent_ref = COALESCE(r.agent_ref, EXCLUDED.agent_ref)\n"
    f"RETURNING {RECORD_COLUMNS}",
    _DONE_RECORD,
)
_SET_TOTALS = fenced(
    "UPDATE {record} SET session_totals = %(totals)s::jsonb, budget_override = %(budget)s::jsonb, updated_at = now()\n"
    f"WHERE session_id = %(sid)s AND {_GUARD} RETURNING 1 AS written",
    "done.written",
)
_INCREMENT = fenced(
    "UPDATE {record} SET compaction_failure_count = compaction_failure_count + 1, updated_at = now()\n"
    f"WHERE session_id = %(sid)s AND {_GUARD} RETURNING compaction_failure_count",
    "done.compaction_failure_count",
)
_RESET = fenced(
    "UPDATE {record} SET compaction_failure_count = 0, updated_at = now()\n"
    f"WHERE session_id = %(sid)s AND {_GUARD} RETURNING 1 AS written",
    "done.written",
)
_DELETE = fenced(
    f"DELETE FROM {{record}} WHERE session_id = %(sid)s AND {_GUARD} RETURNING 1 AS written",
    "done.written",
)
_LOAD = f"SELECT {RECORD_COLUMNS} FROM {{record}} WHERE session_id = %s"
_EXISTS = "SELECT 1 FROM {record} WHERE session_id = %s"
_LIST_IDS = "SELECT session_id FROM {record} ORDER BY session_id"


class AsyncPostgresSessionRecordStore:
    """Session records; every write carries the writer's fencing token (see :mod:`..fencing`)."""

    def __init__(self, pool: AsyncPgPool, schema: str) -> None:
        self._pool = pool
        self._writer = AsyncFencedWriter(pool, schema, SessionRecordStoreError)
        self._merge = qualify(_MERGE, schema)
        self._provision = qualify(_PROVISION, schema)
        self._set_totals = qualify(_SET_TOTALS, schema)
        self._increment = qualify(_INCREMENT, schema)
        self._reset = qualify(_RESET, schema)
        self._delete = qualify(_DELETE, schema)
        self._load = qualify(_LOAD, schema)
        self._exists = qualify(_EXISTS, schema)
        self._list_ids = qualify(_LIST_IDS, schema)

    async def merge_transcript(self, session_id: str, transcript: str, fencing_token: int) -> None:
        """Write the encoded transcript, keeping the side fields; creates the record if missing."""
        require_instance(transcript, str, "transcript")
        await self._writer.write(self._merge, session_id, fencing_token, transcript=transcript)

    async def provision(self, session_id: str, agent_ref: str | None, fencing_token: int) -> SessionRecord:
        """Ensure the record exists; bind ``agent_ref`` only when no binding exists yet."""
        if agent_ref is not None and not isinstance(agent_ref, str):
            raise InvalidArgumentError(f"agent_ref must be a str or None, got {type(agent_ref).__name__}")
        row = await self._writer.write(self._provision, session_id, fencing_token, agent=agent_ref)
        return record_from_row(row[1:])

    async def set_totals_and_budget_override(
        self,
        session_id: str,
        totals: SessionTotals,
        budget_override: dict[str, JsonValue] | None,
        fencing_token: int,
    ) -> None:
        """Write both fields absolutely (``None`` clears the override); no-op when no record exists."""
        require_instance(totals, SessionTotals, "totals")
        budget_override = optional_budget_override(budget_override)
        budget = None if budget_override is None else compact_json(budget_override)
        await self._writer.write(
            self._set_totals, session_id, fencing_token, totals=compact_json(encode_totals(totals)), budget=budget
        )

    async def increment_compaction_failure_count(self, session_id: str, fencing_token: int) -> int:
        """Add one and return the new count; 0 (no-op) when no record exists."""
        row = await self._writer.write(self._increment, session_id, fencing_token)
        return int(row[1]) if row[1] is not None else 0

    async def reset_compaction_failure_count(self, session_id: str, fencing_token: int) -> None:
        await self._writer.write(self._reset, session_id, fencing_token)

    async def load(self, session_id: str) -> SessionRecord | None:
        require_id(session_id, "session_id")
        async with self._pool.connection(SessionRecordStoreError) as conn:
            cur = await conn.execute(self._load, [session_id])
            row = await cur.fetchone()
        return record_from_row(row) if row is not None else None

    async def exists(self, session_id: str) -> bool:
        require_id(session_id, "session_id")
        async with self._pool.connection(SessionRecordStoreError) as conn:
            cur = await conn.execute(self._exists, [session_id])
            return await cur.fetchone() is not None

    async def list_session_ids(self) -> list[str]:
        async with self._pool.connection(SessionRecordStoreError) as conn:
            cur = await conn.execute(self._list_ids)
            return [row[0] for row in await cur.fetchall()]

    async def delete(self, session_id: str, fencing_token: int) -> None:
        """Delete the record (no-op when missing); the session's fence row stays."""
        await self._writer.write(self._delete, session_id, fencing_token)
