# GENERATED from aimon_mongo/_async/postgres/idempotency.py by scripts/gen_sync.py; do not edit.
"""PostgreSQL idempotency store (``idempotency_entry``).

PostgreSQL expires nothing by itself: a row whose ``expires_at`` (database time) has passed behaves as
absent in every operation (``put_if_absent`` overwrites it, nothing else sees it) until
:meth:`PostgresIdempotencyStore.sweep_expired` deletes it. ``created_at`` / ``last_touched_at``
are the caller's stamps (the injected clock), as ``find_stale_in_flight`` compares them with the
caller's cutoff. ``result_blob`` is the shared result projection.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from aimon_mongo import names as n
from aimon_mongo._sync.postgres.pool import PgPool
from aimon_mongo._sync.postgres.retention import sweep_in_batches
from aimon_mongo._sync.services.idempotency import DEFAULT_DONE_TTL, Idempotency
from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.codec.idempotency import decode_entry, encode_result
from aimon_mongo.codec.json_text import compact_json
from aimon_mongo.errors import IdempotencyStoreError
from aimon_mongo.exported import exported_from
from aimon_mongo.model import IdempotencyEntry, IdempotencyStatus, TurnResult
from aimon_mongo.postgres import retention
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures

__all__ = ["DEFAULT_DONE_TTL", "PostgresIdempotencyDriver", "PostgresIdempotencyStore"]

Row = Sequence[Any]

_COLUMNS = "key, conversation_id, input_hash, status, holder_id, result_blob, created_at, last_touched_at"
# the entry codec's field names of _COLUMNS, in that order
_FIELDS = (
    n.IDEM_KEY,
    n.IDEM_CONVERSATION_ID,
    n.IDEM_INPUT_HASH,
    n.IDEM_STATUS,
    n.IDEM_HOLDER_ID,
    n.IDEM_RESULT,
    n.IDEM_CREATED_AT,
    n.IDEM_LAST_TOUCHED_AT,
)
_IN_FLIGHT = f"'{IdempotencyStatus.IN_FLIGHT.value}'"
_DONE = f"'{IdempotencyStatus.DONE.value}'"

_PUT = f"""
INSERT INTO {{idem}} AS i ({_COLUMNS}, expires_at)
VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s, %s, now() + %s)
ON CONFLICT (key) DO UPDATE SET
    conversation_id = EXCLUDED.conversation_id, input_hash = EXCLUDED.input_hash, status = EXCLUDED.status,
    holder_id = EXCLUDED.holder_id, result_blob = EXCLUDED.result_blob, created_at = EXCLUDED.created_at,
    last_touched_at = EXCLUDED.last_touched_at, expires_at = EXCLUDED.expires_at
WHERE i.expires_at <= now()
RETURNING 1
"""
_LIVE = "expires_at > now()"
# a live IN_FLIGHT row of key %s held by %s (NULL: no holder)
_HELD = f"key = %s AND holder_id IS NOT DISTINCT FROM %s AND status = {_IN_FLIGHT} AND {_LIVE}"
_FIND = f"SELECT {_COLUMNS} FROM {{idem}} WHERE key = %s AND {_LIVE}"
_MARK_DONE = f"""
UPDATE {{idem}} SET status = {_DONE}, result_blob = %s::jsonb, holder_id = NULL,
    last_touched_at = %s, expires_at = now() + %s
WHERE key = %s AND {_LIVE}
"""
# Slides the row's own span (expires_at - last_touched_at) rather than a fixed TTL.
_TOUCH = f"UPDATE {{idem}} SET last_touched_at = %s, expires_at = now() + (expires_at - last_touched_at) WHERE {_HELD}"
_REHOLD = f"UPDATE {{idem}} SET holder_id = %s, last_touched_at = %s, expires_at = now() + %s WHERE {_HELD}"
_DELETE_HELD = f"DELETE FROM {{idem}} WHERE {_HELD}"
_FIND_STALE = f"""
SELECT {_COLUMNS} FROM {{idem}}
WHERE status = {_IN_FLIGHT} AND {_LIVE} AND holder_id IS NOT NULL AND last_touched_at < %s
ORDER BY last_touched_at, key LIMIT %s
"""


@exported_from("aimon_mongo.postgres")
class PostgresIdempotencyDriver:
    """The primitives over ``idempotency_entry``: one statement each (``put``: the upsert, then the read of
    the row that refused it)."""

    holder_id_forbidden_chars = ""

    def __init__(self, pool: PgPool, schema: str, clock: Clock | None = None) -> None:
        self._pool = pool
        self._clock = clock or system_clock
        self.failures: Failures = pool.failures
        self._put, self._find, self._mark_done, self._touch, self._rehold, self._delete, self._find_stale = (
            qualify(sql, schema) for sql in (_PUT, _FIND, _MARK_DONE, _TOUCH, _REHOLD, _DELETE_HELD, _FIND_STALE)
        )

    def __repr__(self) -> str:
        return located(self, self._pool.endpoint)

    def decode(self, raw: Row) -> IdempotencyEntry:
        """A row selected as ``_COLUMNS``, read with the shared entry codec (columns → its field names)."""
        return decode_entry(dict(zip(_FIELDS, raw, strict=True)), n.IDEM_KEY)

    def put(self, entry: IdempotencyEntry, ttl: timedelta) -> tuple[bool, Row | None]:
        result = None if entry.result is None else compact_json(encode_result(entry.result))
        params = [entry.key, entry.session_id, entry.input_hash, entry.status.value, entry.holder_id, result]
        with self._pool.connection() as conn:
            cur = conn.execute(self._put, [*params, entry.created_at, entry.last_touched_at, ttl])
            if cur.fetchone() is not None:
                return True, None
            cur = conn.execute(self._find, [entry.key])
            return False, cur.fetchone()

    def mark_done(self, key: str, result: TurnResult, ttl: timedelta) -> bool:
        return self._update(self._mark_done, [compact_json(encode_result(result)), self._clock(), ttl, key])

    def touch(self, key: str, holder_id: str) -> bool:
        return self._update(self._touch, [self._clock(), key, holder_id])

    def rehold(self, key: str, expected: str | None, holder_id: str | None, ttl: timedelta) -> bool:
        return self._update(self._rehold, [holder_id, self._clock(), ttl, key, expected])

    def delete_held(self, key: str, expected: str | None) -> bool:
        return self._update(self._delete, [key, expected])

    def stale_candidates(self, cutoff: datetime, limit: int) -> list[tuple[str, Row]]:
        with self._pool.connection() as conn:
            cur = conn.execute(self._find_stale, [cutoff, limit])
            return [(row[0], row) for row in cur.fetchall()]

    def find(self, key: str) -> Row | None:
        with self._pool.connection() as conn:
            cur = conn.execute(self._find, [key])
            row: Row | None = cur.fetchone()
            return row

    def _update(self, statement: str, params: Sequence[Any]) -> bool:
        with self._pool.connection() as conn:
            cur = conn.execute(statement, params)
            return cur.rowcount > 0


@exported_from("aimon_mongo.postgres")
class PostgresIdempotencyStore(Idempotency):
    """Client-key de-duplication and holder-loss detection (see the module text)."""

    def __init__(
        self, pool: PgPool, schema: str, clock: Clock | None = None, done_ttl: timedelta = DEFAULT_DONE_TTL
    ) -> None:
        super().__init__(PostgresIdempotencyDriver(pool, schema, clock), done_ttl)
        self._pool = pool
        self._sweep = qualify(retention.IDEMPOTENCY, schema)

    def sweep_expired(self, *, batch_size: int = retention.DEFAULT_BATCH_SIZE) -> int:
        """Delete rows whose ``expires_at`` has passed (database time), ``batch_size`` rows per statement;
        returns how many."""
        return sweep_in_batches(self._pool, IdempotencyStoreError, self._sweep, {}, batch_size)
