# GENERATED from aimon_mongo/postgres/_async/idempotency.py by scripts/gen_sync.py; do not edit.
"""PostgreSQL idempotency store (``idempotency_entry``).

PostgreSQL expires nothing by itself: a row whose ``expires_at`` (database time) has passed behaves as
absent in every operation (``put_if_absent`` overwrites it, nothing else sees it) until
:meth:`PostgresIdempotencyStore.sweep_expired` deletes it. ``created_at`` / ``last_touched_at``
are the caller's stamps (the injected clock), as ``find_stale_in_flight`` compares them with the
caller's cutoff. ``result_blob`` is the shared result projection.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from aimon_mongo import names as n
from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.codec._fields import compact_json
from aimon_mongo.codec.idempotency import decode_entry, encode_result
from aimon_mongo.errors import IdempotencyStoreError
from aimon_mongo.model import IdempotencyEntry, IdempotencyStatus, PutOutcome, PutResult, TurnResult
from aimon_mongo.postgres import retention
from aimon_mongo.postgres._sync.pool import PgPool
from aimon_mongo.postgres._sync.retention import sweep_in_batches
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.validate import require_aware, require_id, require_instance, require_limit, require_positive

log = logging.getLogger(__name__)

DEFAULT_DONE_TTL = timedelta(hours=24)
PUT_ATTEMPTS = 3

_COLUMNS = "key, conversation_id, input_hash, status, holder_id, result_blob, created_at, last_touched_at"
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
_LIVE_IN_FLIGHT = f"status = {_IN_FLIGHT} AND {_LIVE}"
_FIND = f"SELECT {_COLUMNS} FROM {{idem}} WHERE key = %s AND {_LIVE}"
_MARK_DONE = f"""
UPDATE {{idem}} SET status = {_DONE}, result_blob = %s::jsonb, holder_id = NULL,
    last_touched_at = %s, expires_at = now() + %s
WHERE key = %s AND {_LIVE}
"""
# Slides the row's own span (expires_at - last_touched_at) rather than a fixed TTL.
_TOUCH = f"""
UPDATE {{idem}} SET last_touched_at = %s, expires_at = now() + (expires_at - last_touched_at)
WHERE key = %s AND holder_id = %s AND {_LIVE_IN_FLIGHT}
"""
_RELEASE_HOLDER = f"""
UPDATE {{idem}} SET holder_id = NULL, last_touched_at = %s, expires_at = now() + %s
WHERE key = %s AND holder_id = %s AND {_LIVE_IN_FLIGHT}
"""
_ACQUIRE_HOLDER = f"""
UPDATE {{idem}} SET holder_id = %s, last_touched_at = %s, expires_at = now() + %s
WHERE key = %s AND holder_id IS NULL AND {_LIVE_IN_FLIGHT}
"""
_DISCARD = f"DELETE FROM {{idem}} WHERE key = %s AND holder_id IS NULL AND {_LIVE_IN_FLIGHT}"
_COMPARE_AND_RESET = f"DELETE FROM {{idem}} WHERE key = %s AND holder_id = %s AND {_LIVE_IN_FLIGHT}"
_FIND_STALE = f"""
SELECT {_COLUMNS} FROM {{idem}}
WHERE {_LIVE_IN_FLIGHT} AND holder_id IS NOT NULL AND last_touched_at < %s
ORDER BY last_touched_at, key LIMIT %s
"""


class PostgresIdempotencyStore:
    """Client-key de-duplication and holder-loss detection (see the module text)."""

    def __init__(
        self, pool: PgPool, schema: str, clock: Clock | None = None, done_ttl: timedelta = DEFAULT_DONE_TTL
    ) -> None:
        self._pool = pool
        self._clock = clock or system_clock
        self._done_ttl = require_positive(done_ttl, "done_ttl")
        self._put = qualify(_PUT, schema)
        self._find = qualify(_FIND, schema)
        self._mark_done = qualify(_MARK_DONE, schema)
        self._touch = qualify(_TOUCH, schema)
        self._release_holder = qualify(_RELEASE_HOLDER, schema)
        self._acquire_holder = qualify(_ACQUIRE_HOLDER, schema)
        self._discard = qualify(_DISCARD, schema)
        self._compare_and_reset = qualify(_COMPARE_AND_RESET, schema)
        self._find_stale = qualify(_FIND_STALE, schema)
        self._sweep = qualify(retention.IDEMPOTENCY, schema)

    def put_if_absent(self, entry: IdempotencyEntry, ttl: timedelta) -> PutResult:
        """Insert unless a live entry has the key (a lapsed one is overwritten); else ``EXISTING``."""
        require_instance(entry, IdempotencyEntry, "entry")
        require_positive(ttl, "ttl")
        result = None if entry.result is None else compact_json(encode_result(entry.result))
        params = [
            entry.key,
            entry.session_id,
            entry.input_hash,
            entry.status.value,
            entry.holder_id,
            result,
            entry.created_at,
            entry.last_touched_at,
            ttl,
        ]
        with self._pool.connection(IdempotencyStoreError) as conn:
            for _ in range(PUT_ATTEMPTS):
                cur = conn.execute(self._put, params)
                if cur.fetchone() is not None:
                    return PutResult(outcome=PutOutcome.INSERTED)
                cur = conn.execute(self._find, [entry.key])
                row = cur.fetchone()
                if row is not None:
                    return PutResult(outcome=PutOutcome.EXISTING, existing=_entry(row))
                # the live row lapsed or was deleted between the two statements: try again
        raise IdempotencyStoreError(f"put_if_absent of key {entry.key!r} kept racing with other writers")

    def mark_done(self, key: str, result: TurnResult) -> None:
        """``DONE`` with ``result``, holder cleared, expiry = database now + done TTL; missing key: WARN."""
        require_id(key, "key")
        require_instance(result, TurnResult, "result")
        blob = compact_json(encode_result(result))
        if not self._update(self._mark_done, [blob, self._clock(), self._done_ttl, key]):
            log.warning("mark_done: no idempotency entry for key %s", key)

    def touch(self, key: str, holder_id: str) -> bool:
        require_id(key, "key")
        require_id(holder_id, "holder_id")
        return self._update(self._touch, [self._clock(), key, holder_id])

    def release_holder(self, key: str, expected_holder: str, ttl: timedelta) -> bool:
        require_id(key, "key")
        require_id(expected_holder, "expected_holder")
        require_positive(ttl, "ttl")
        return self._update(self._release_holder, [self._clock(), ttl, key, expected_holder])

    def acquire_holder(self, key: str, holder_id: str, ttl: timedelta) -> bool:
        require_id(key, "key")
        require_id(holder_id, "holder_id")
        require_positive(ttl, "ttl")
        return self._update(self._acquire_holder, [holder_id, self._clock(), ttl, key])

    def discard_reservation(self, key: str) -> bool:
        require_id(key, "key")
        return self._update(self._discard, [key])

    def compare_and_reset(self, key: str, expected_holder: str) -> bool:
        require_id(key, "key")
        require_id(expected_holder, "expected_holder")
        return self._update(self._compare_and_reset, [key, expected_holder])

    def find_stale_in_flight(self, cutoff: datetime, limit: int = 256) -> list[IdempotencyEntry]:
        """``IN_FLIGHT`` entries with a holder last touched before ``cutoff``, least recently touched first."""
        cutoff = require_aware(cutoff, "cutoff")
        require_limit(limit)
        with self._pool.connection(IdempotencyStoreError) as conn:
            cur = conn.execute(self._find_stale, [cutoff, limit])
            rows = cur.fetchall()
        return [_entry(row) for row in rows]

    def find(self, key: str) -> IdempotencyEntry | None:
        """The live entry of ``key`` (a lapsed row reads as absent)."""
        require_id(key, "key")
        with self._pool.connection(IdempotencyStoreError) as conn:
            cur = conn.execute(self._find, [key])
            row = cur.fetchone()
        return _entry(row) if row is not None else None

    def sweep_expired(self, *, batch_size: int = retention.DEFAULT_BATCH_SIZE) -> int:
        """Delete rows whose ``expires_at`` has passed (database time), ``batch_size`` rows per statement;
        returns how many."""
        return sweep_in_batches(self._pool, IdempotencyStoreError, self._sweep, {}, batch_size)

    def _update(self, statement: str, params: Sequence[Any]) -> bool:
        with self._pool.connection(IdempotencyStoreError) as conn:
            cur = conn.execute(statement, params)
            return cur.rowcount > 0


def _entry(row: Sequence[Any]) -> IdempotencyEntry:
    """Decode a row selected as ``_COLUMNS`` with the shared entry codec (columns → its field names)."""
    key, session_id, input_hash, status, holder_id, result, created_at, last_touched_at = row
    return decode_entry(
        {
            n.IDEM_KEY: key,
            n.IDEM_CONVERSATION_ID: session_id,
            n.IDEM_INPUT_HASH: input_hash,
            n.IDEM_STATUS: status,
            n.IDEM_HOLDER_ID: holder_id,
            n.IDEM_RESULT: result,
            n.IDEM_CREATED_AT: created_at,
            n.IDEM_LAST_TOUCHED_AT: last_touched_at,
        },
        n.IDEM_KEY,
    )
