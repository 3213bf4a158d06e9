# GENERATED from aimon_mongo/_async/postgres/records.py by scripts/gen_sync.py; do not edit.
"""PostgreSQL session-record store (``session_record``) (generated from the ``_async`` source): partial,
atomic, fenced writes, each one statement (:mod:`aimon_mongo.postgres.fencing`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aimon_mongo._sync.postgres.fence import FencedStatements
from aimon_mongo._sync.postgres.pool import PgPool
from aimon_mongo._sync.services.records import RecordStore
from aimon_mongo.codec.json_text import compact_json
from aimon_mongo.exported import exported_from
from aimon_mongo.model.record import SessionRecord
from aimon_mongo.postgres.fencing import GUARD, fenced
from aimon_mongo.postgres.rows import RECORD_COLUMNS, record_from_row
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.fencing import Stale, refusal
from aimon_mongo.stored.session_record import SessionTotalsJson

_DONE_RECORD = ", ".join(f"done.{column}" for column in RECORD_COLUMNS.split(", "))

_MERGE = fenced(
    "INSERT INTO {record} AS r (session_id, transcript)\n"
    f"SELECT %(sid)s, %(transcript)s WHERE {GUARD}\n"
    "ON CONFLICT (session_id) DO UPDATE SET transcript = EXCLUDED.transcript, updated_at = now()\n"
    "RETURNING 1 AS written",
    "done.written",
)
_PROVISION = fenced(
    "INSERT INTO {record} AS r (session_id, agent_ref)\n"
    f"SELECT %(sid)s, %(agent)s WHERE {GUARD}\n"
    "ON CONFLICT (session_id) DO UPDATE SET agent_ref = COALESCE(r.agent_ref, EXCLUDED.agent_ref)\n"
    f"RETURNING {RECORD_COLUMNS}",
    _DONE_RECORD,
)
_SET_TOTALS = fenced(
    "UPDATE {record} SET session_totals = %(totals)s::jsonb, budget_override = %(budget)s::jsonb, updated_at = now()\n"
    f"WHERE session_id = %(sid)s AND {GUARD} RETURNING 1 AS written",
    "done.written",
)
_INCREMENT = fenced(
    "UPDATE {record} SET compaction_failure_count = compaction_failure_count + 1, updated_at = now()\n"
    f"WHERE session_id = %(sid)s AND {GUARD} RETURNING compaction_failure_count",
    "done.compaction_failure_count",
)
_RESET = fenced(
    "UPDATE {record} SET compaction_failure_count = 0, updated_at = now()\n"
    f"WHERE session_id = %(sid)s AND {GUARD} RETURNING 1 AS written",
    "done.written",
)
_DELETE = fenced(
    f"DELETE FROM {{record}} WHERE session_id = %(sid)s AND {GUARD} RETURNING 1 AS written",
    "done.written",
)
_LOAD = f"SELECT {RECORD_COLUMNS} FROM {{record}} WHERE session_id = %s"
_LOAD_MANY = f"SELECT {RECORD_COLUMNS} FROM {{record}} WHERE session_id = ANY(%s)"
_EXISTS = "SELECT 1 FROM {record} WHERE session_id = %s"
_LIST_IDS = "SELECT session_id FROM {record} ORDER BY session_id"


@exported_from("aimon_mongo.postgres")
class PostgresRecordDriver:
    """The record primitives: one fenced statement per write, one plain statement per read."""

    def __init__(self, pool: PgPool, schema: str) -> None:
        self._sql = FencedStatements(
            pool,
            schema,
            _MERGE,
            _PROVISION,
            _SET_TOTALS,
            _INCREMENT,
            _RESET,
            _DELETE,
            _LOAD,
            _LOAD_MANY,
            _EXISTS,
            _LIST_IDS,
        )
        self.failures: Failures = pool.failures

    def __repr__(self) -> str:
        return located(self, self._sql.endpoint)

    def merge_transcript(self, session_id: str, transcript: str, token: int) -> Stale | None:
        return refusal(self._sql.write(_MERGE, session_id, token, transcript=transcript))

    def provision(self, session_id: str, agent_ref: str | None, token: int) -> tuple[Any, ...] | Stale:
        row = self._sql.write(_PROVISION, session_id, token, agent=agent_ref)
        return row if isinstance(row, Stale) else row[1:]

    def set_totals(
        self, session_id: str, totals: SessionTotalsJson, override: dict[str, Any] | None, token: int
    ) -> Stale | None:
        budget = None if override is None else compact_json(override)
        return refusal(
            self._sql.write(_SET_TOTALS, session_id, token, totals=compact_json(totals), budget=budget)
        )

    def increment_failures(self, session_id: str, token: int) -> int | Stale:
        row = self._sql.write(_INCREMENT, session_id, token)
        return row if isinstance(row, Stale) else int(row[1] or 0)

    def reset_failures(self, session_id: str, token: int) -> Stale | None:
        return refusal(self._sql.write(_RESET, session_id, token))

    def delete(self, session_id: str, token: int) -> Stale | None:
        """Delete the record; the session's fence row stays."""
        return refusal(self._sql.write(_DELETE, session_id, token))

    def load(self, session_id: str) -> tuple[Any, ...] | None:
        return self._sql.one(_LOAD, session_id)

    def load_many(self, session_ids: Sequence[str]) -> list[tuple[str, tuple[Any, ...]]]:
        rows = self._sql.all(_LOAD_MANY, list(session_ids))
        return [(str(row[0]), row) for row in rows]  # session_id is the first column

    def decode(self, raw: tuple[Any, ...], session_id: str) -> SessionRecord:
        return record_from_row(raw)

    def exists(self, session_id: str) -> bool:
        return self._sql.one(_EXISTS, session_id) is not None

    def list_session_ids(self) -> list[str]:
        return [row[0] for row in self._sql.all(_LIST_IDS)]


@exported_from("aimon_mongo.postgres")
def PostgresSessionRecordStore(pool: PgPool, schema: str) -> RecordStore[tuple[Any, ...]]:
    """Session records; every write carries the writer's fencing token (see :mod:`..fencing`).

    A factory: the :class:`~aimon_mongo.services.RecordStore` service over :class:`PostgresRecordDriver`."""
    return RecordStore(PostgresRecordDriver(pool, schema))
