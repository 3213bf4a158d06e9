"""PostgreSQL lease store: ``conversation_lock`` plus the separate ``conversation_lock_fence`` counter.

Every time comparison uses the database clock (``now()``), never the node's: the reference compares
against the application clock, which lets two nodes with skewed clocks disagree about expiry.
"""

from __future__ import annotations

from datetime import timedelta

from aimon_mongo._async.postgres.pool import AsyncPgPool
from aimon_mongo._async.postgres.retention import sweep_in_batches
from aimon_mongo._async.services.leases import AsyncLeaseStore
from aimon_mongo.errors import SessionLeaseError
from aimon_mongo.exported import exported_from
from aimon_mongo.model import Lease
from aimon_mongo.postgres import retention
from aimon_mongo.postgres.fencing import CLOCK_TOKEN
from aimon_mongo.postgres.replication import SYNC_COMMIT_ON, SyncWaitWatch
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.leases import Granted, Held
from aimon_mongo.validate import require_limit, require_positive

# One statement (one transaction): when no live lease of another holder exists, draw the next token from
# the fence counter, then take the lock row unless another holder's live lease appeared meanwhile (ON
# CONFLICT re-checks the latest row version; a live lease of the same holder is replaced: a re-acquisition
# gets a new token, fencing the holder's older process). The token is max(counter, database clock in ms x
# 1024) — the counter row holds the next token to issue, so this is Redis's max(counter + 1, TIME ms x
# 1024): a promoted asynchronous replica that lost the old primary's last increments still issues a token
# above every one the old primary handed out (docs/guarantees.md, "Failover"). A reference-build node
# increments the same counter, which stays strictly increasing; the V5 trigger still starts a new row above
# the swept floor. The granted token raises the session's write fence (``session_fence``, the highest token
# its records and segments accept) in the same statement, so no fenced write with a lower token passes once
# the token is handed out. A held lease draws no token; a lost race burns one, which only leaves a gap. The
# third column says whether the counter row existed (xmax is set on a row the upsert updated). With the
# replication guard on, /*sync*/ becomes ``AND`` :data:`~aimon_mongo.postgres.replication.SYNC_COMMIT_ON`:
# the statement's commit then waits for the synchronous standbys, so no acknowledged token can be missing
# on a promoted one.
_ACQUIRE = """
WITH free AS (
    SELECT NOT EXISTS (
        SELECT 1 FROM {lock}
        WHERE conversation_id = %(sid)s AND lease_expires_at > now() AND holder_id <> %(holder)s
    ) /*sync*/ AS ok
), token AS (
    INSERT INTO {fence} AS f (conversation_id, next_token)
    SELECT %(sid)s, GREATEST(2, CLOCK_TOKEN + 1) FROM free WHERE free.ok
    ON CONFLICT (conversation_id) DO UPDATE SET next_token = GREATEST(f.next_token + 1, EXCLUDED.next_token)
    RETURNING f.next_token - 1 AS value, f.xmax <> 0 AS existed
), granted AS (
    INSERT INTO {lock} AS l (conversation_id, holder_id, fencing_token, acquired_at, lease_expires_at)
    SELECT %(sid)s, %(holder)s, token.value, now(), now() + %(ttl)s FROM token
    ON CONFLICT (conversation_id) DO UPDATE
        SET holder_id = EXCLUDED.holder_id,
            fencing_token = EXCLUDED.fencing_token,
            acquired_at = EXCLUDED.acquired_at,
            lease_expires_at = EXCLUDED.lease_expires_at
        WHERE l.lease_expires_at <= EXCLUDED.acquired_at OR l.holder_id = EXCLUDED.holder_id
    RETURNING fencing_token, lease_expires_at
), fenced AS (
    INSERT INTO {session_fence} AS s (session_id, highest_token) SELECT %(sid)s, fencing_token FROM granted
    ON CONFLICT (session_id) DO UPDATE SET highest_token = EXCLUDED.highest_token, updated_at = now()
    WHERE s.highest_token < EXCLUDED.highest_token
)
SELECT granted.fencing_token, granted.lease_expires_at, token.existed FROM granted, token
""".replace("CLOCK_TOKEN", CLOCK_TOKEN)
_EXTEND = """
UPDATE {lock} SET lease_expires_at = now() + %s
WHERE conversation_id = %s AND holder_id = %s AND fencing_token = %s
RETURNING lease_expires_at
"""
_RELEASE = "DELETE FROM {lock} WHERE conversation_id = %s AND holder_id = %s AND fencing_token = %s"
_FIND = """
SELECT holder_id, fencing_token, lease_expires_at FROM {lock}
WHERE conversation_id = %s AND lease_expires_at > now()
"""


@exported_from("aimon_mongo.postgres")
class AsyncPostgresLeaseDriver:
    """The lease primitives: one statement each on ``conversation_lock`` / ``conversation_lock_fence``.

    ``synchronous``: acquisitions commit with ``synchronous_commit = on`` (the bundle's replication guard,
    see :mod:`aimon_mongo.postgres.replication`); a grant whose wait for the synchronous standby the server
    cancelled comes back with ``replicated=False``.
    """

    resurrects_lapsed = True
    """``extend`` is a token CAS without an expiry check (as in the reference)."""
    holder_id_forbidden_chars = ""

    def __init__(self, pool: AsyncPgPool, schema: str, *, synchronous: bool = False) -> None:
        self._pool = pool
        self.failures: Failures = pool.failures
        self._synchronous = synchronous
        wait = f"AND {SYNC_COMMIT_ON}" if synchronous else ""
        self._acquire = qualify(_ACQUIRE.replace(" /*sync*/", f" {wait}" if wait else ""), schema)
        self._extend = qualify(_EXTEND, schema)
        self._release = qualify(_RELEASE, schema)
        self._find = qualify(_FIND, schema)

    def __repr__(self) -> str:
        return located(self, self._pool.endpoint)

    async def acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Granted | None:
        watch = SyncWaitWatch()
        async with self._pool.connection() as conn:
            if self._synchronous:
                conn.add_notice_handler(watch)
            try:
                cur = await conn.execute(self._acquire, {"sid": session_id, "holder": holder_id, "ttl": ttl})
                row = await cur.fetchone()
            finally:
                if self._synchronous:
                    conn.remove_notice_handler(watch)
        return None if row is None else Granted(row[0], row[1], replicated=not watch.cancelled, taken_over=row[2])

    async def extend(self, lease: Lease, ttl: timedelta) -> bool:
        async with self._pool.connection() as conn:
            cur = await conn.execute(self._extend, [ttl, lease.session_id, lease.holder_id, lease.fencing_token])
            return await cur.fetchone() is not None

    async def release(self, lease: Lease) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(self._release, [lease.session_id, lease.holder_id, lease.fencing_token])

    async def find(self, session_id: str) -> Held | None:
        async with self._pool.connection() as conn:
            cur = await conn.execute(self._find, [session_id])
            row = await cur.fetchone()
        return None if row is None else Held(row[0], row[1], row[2])


@exported_from("aimon_mongo.postgres")
class AsyncPostgresSessionLeaseStore(AsyncLeaseStore):
    """Holder election with fencing tokens that strictly increase per session (the lease service over
    :class:`AsyncPostgresLeaseDriver`), plus the retention sweeps of the lock and counter rows."""

    def __init__(self, pool: AsyncPgPool, schema: str, *, synchronous: bool = False) -> None:
        super().__init__(AsyncPostgresLeaseDriver(pool, schema, synchronous=synchronous))
        self._pool = pool
        self._sweep_lapsed = qualify(retention.LAPSED_LOCKS, schema)
        self._sweep_fences = qualify(retention.IDLE_FENCES, schema)
        self._lock_space = retention.lock_space(schema)

    async def sweep_lapsed(self, lapsed_for: timedelta, *, batch_size: int = retention.DEFAULT_BATCH_SIZE) -> int:
        """Delete lock rows whose lease lapsed more than ``lapsed_for`` ago (database time), ``batch_size``
        rows per statement; returns how many. The fence counter keeps the token, so a later acquisition
        still gets a higher one; a holder that comes back after the sweep can no longer ``extend``."""
        require_positive(lapsed_for, "lapsed_for")
        params = {"grace": lapsed_for}
        return await sweep_in_batches(self._pool, SessionLeaseError, self._sweep_lapsed, params, batch_size)

    async def sweep_idle_fences(self, *, batch_size: int = retention.DEFAULT_BATCH_SIZE) -> tuple[int, int]:
        """Delete the ``conversation_lock_fence`` and ``session_fence`` rows of sessions with nothing left
        (see :mod:`aimon_mongo.postgres.retention`), walking the counters ``batch_size`` sessions per
        statement; returns (counter rows, session fence rows) deleted. Tokens never go backwards: the
        deleted rows' highest token raises the floor every new counter row starts above."""
        require_limit(batch_size, "batch_size")
        after, counters, fences = "", 0, 0
        while True:
            async with self._pool.connection(SessionLeaseError) as conn:
                params = {"after": after, "batch": batch_size, "lock_space": self._lock_space}
                cur = await conn.execute(self._sweep_fences, params)
                row = await cur.fetchone()
            assert row is not None
            counters, fences = counters + row[1], fences + row[2]
            if row[0] is None:
                return counters, fences
            after = row[0]
