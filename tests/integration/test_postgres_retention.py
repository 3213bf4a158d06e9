"""PostgreSQL retention: the batched sweeps of every table that grows, and tokens that never go backwards.

Rows are generated with SQL (old timestamps the stores would only produce after hours), then swept through
the stores' APIs; what must stay stays.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg import sql

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends, SweepReport
from aimon_mongo.schema_gate import assert_conforms
from tests.conformance.helpers import message, new_id

TTL = timedelta(seconds=30)
HIGH = 2**60
"""Far above any clock floor (epoch ms x 1024 is about 2^51 today)."""


@pytest.fixture
async def node(postgres_dsn: str, pg_schema: str) -> AsyncIterator[AsyncPostgresSessionBackends]:
    async with AsyncPostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as bundle:
        yield bundle


def _t(schema: str, table: str) -> sql.Identifier:
    return sql.Identifier(schema, table)


def _count(conn: psycopg.Connection[Any], schema: str, table: str) -> int:
    row = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(_t(schema, table))).fetchone()
    assert row is not None
    return int(row[0])


async def test_signals_older_than_the_cutoff_go_in_batches(
    node: AsyncPostgresSessionBackends, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    pg_conn.execute(
        sql.SQL(
            "INSERT INTO {} (conversation_id, kind, origin_node_id, payload, created_at) "
            "SELECT 's-' || g, 'EVENT', 'node-x', '{{}}'::jsonb, now() - interval '2 hours' "
            "FROM generate_series(1, 2500) AS g"
        ).format(_t(pg_schema, "conversation_signal"))
    )
    pg_conn.execute(
        sql.SQL(
            "INSERT INTO {} (conversation_id, kind, origin_node_id, payload) "
            "VALUES ('s-new', 'EVENT', 'node-x', '{{}}')"
        ).format(_t(pg_schema, "conversation_signal"))
    )
    cutoff = datetime.now(UTC) - timedelta(hours=1)
    assert await node.signals.sweep_older_than(cutoff, batch_size=1000) == 2500
    assert await node.signals.sweep_older_than(cutoff, batch_size=1000) == 0
    assert _count(pg_conn, pg_schema, "conversation_signal") == 1


async def test_expired_idempotency_rows_go_in_batches_live_ones_stay(
    node: AsyncPostgresSessionBackends, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    pg_conn.execute(
        sql.SQL(
            "INSERT INTO {} (key, conversation_id, input_hash, status, created_at, last_touched_at, expires_at) "
            "SELECT 'k-' || g, 's-1', 'h', 'DONE', now(), now(), now() - (g % 2 + 1) * interval '1 minute' "
            "FROM generate_series(1, 2100) AS g UNION ALL "
            "SELECT 'live', 's-1', 'h', 'DONE', now(), now(), now() + interval '1 hour'"
        ).format(_t(pg_schema, "idempotency_entry"))
    )
    assert await node.idempotency.sweep_expired(batch_size=500) == 2100
    assert await node.idempotency.find("live") is not None


async def test_locks_lapsed_longer_than_the_grace_go_the_counter_stays(
    node: AsyncPostgresSessionBackends, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    session = new_id()
    for _ in range(3):
        lease = await node.leases.try_acquire(session, "h-1", TTL)
        assert lease is not None
        await node.leases.release(lease)
    held = await node.leases.try_acquire(session, "h-1", TTL)
    assert held is not None and held.fencing_token > lease.fencing_token
    pg_conn.execute(
        sql.SQL(
            "INSERT INTO {} (conversation_id, holder_id, fencing_token, acquired_at, lease_expires_at) "
            "SELECT 'old-' || g, 'h', 1, now() - interval '3 hours', now() - interval '2 hours' "
            "FROM generate_series(1, 150) AS g UNION ALL "
            "SELECT 'recent', 'h', 1, now() - interval '2 minutes', now() - interval '1 minute'"
        ).format(_t(pg_schema, "conversation_lock"))
    )
    lock = _t(pg_schema, "conversation_lock")
    pg_conn.execute(
        sql.SQL("UPDATE {} SET lease_expires_at = now() - interval '2 hours' WHERE conversation_id = %s").format(lock),
        [session],
    )
    assert await node.leases.sweep_lapsed(timedelta(hours=1), batch_size=64) == 151
    left = pg_conn.execute(sql.SQL("SELECT conversation_id FROM {}").format(lock)).fetchall()
    assert left == [("recent",)]
    assert not await node.leases.extend(held, TTL)  # its row is gone: the old holder learns it lost the lease
    again = await node.leases.try_acquire(session, "h-2", TTL)
    assert again is not None and again.fencing_token > held.fencing_token


async def test_fence_rows_of_sessions_with_nothing_left_go_and_tokens_stay_higher(
    node: AsyncPostgresSessionBackends, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    idle, with_record, held, with_inbox, written_then_emptied = (new_id(k) for k in "abcde")
    for session in (idle, with_record, with_inbox, written_then_emptied):
        for _ in range(10):
            lease = await node.leases.try_acquire(session, "h-1", TTL)
            assert lease is not None
            await node.leases.release(lease)
    assert (await node.leases.try_acquire(held, "h-1", TTL)) is not None
    # Counters far above the clock floor (as if a node's clock had run far ahead): the sweep's floor, not
    # the clock, is then what keeps a swept session's tokens above its old ones.
    fence = _t(pg_schema, "conversation_lock_fence")
    raised = sql.SQL("UPDATE {} SET next_token = %s WHERE conversation_id <> %s").format(fence)
    pg_conn.execute(raised, [HIGH + 11, held])
    await node.records.merge_transcript(with_record, "[]", HIGH + 10)
    await node.inbox.deliver(message(with_inbox))
    await node.records.merge_transcript(written_then_emptied, "[]", HIGH + 10)
    record = _t(pg_schema, "session_record")
    pg_conn.execute(sql.SQL("DELETE FROM {} WHERE session_id = %s").format(record), [written_then_emptied])

    counters, fences = await node.leases.sweep_idle_fences(batch_size=2)
    # idle + written_then_emptied, and their session_fence rows (each acquisition raised its session's fence)
    assert (counters, fences) == (2, 2)
    left = {row[0] for row in pg_conn.execute(sql.SQL("SELECT conversation_id FROM {}").format(fence)).fetchall()}
    assert left == {with_record, held, with_inbox}
    floor = pg_conn.execute(sql.SQL("SELECT id, highest_swept FROM {}").format(_t(pg_schema, "aimon_token_floor")))
    rows = floor.fetchall()
    assert rows == [(True, HIGH + 10)]
    assert_conforms("postgres.lease.token-floor-row", {"id": rows[0][0], "highest_swept": rows[0][1]})

    # a swept session comes back: its first token is above every token it had before
    back = await node.leases.try_acquire(idle, "h-2", TTL)
    assert back is not None and back.fencing_token == HIGH + 11
    # a brand-new session starts above the floor too (tokens are per session; only their order matters)
    fresh = await node.leases.try_acquire(new_id(), "h-2", TTL)
    assert fresh is not None and fresh.fencing_token == HIGH + 11
    # and a session that kept its counter is untouched
    kept = await node.leases.try_acquire(with_record, "h-2", TTL)
    assert kept is not None and kept.fencing_token == HIGH + 11


async def test_tokens_never_go_backwards_while_sweeps_race_acquisitions(
    node: AsyncPostgresSessionBackends, postgres_dsn: str, pg_schema: str
) -> None:
    """Four sessions, each acquired and released 60 times in a row (so it keeps having nothing left),
    while two other bundles sweep their fence rows in a loop: every token of a session is higher than the
    one before it."""
    sessions = [new_id() for _ in range(4)]
    done = asyncio.Event()
    swept = 0

    async def holder(session: str) -> list[int]:
        tokens = []
        for _ in range(60):
            lease = await node.leases.try_acquire(session, "h", TTL)
            assert lease is not None
            tokens.append(lease.fencing_token)
            await node.leases.release(lease)
        return tokens

    async def sweeper(name: str) -> None:
        nonlocal swept
        async with AsyncPostgresSessionBackends(postgres_dsn, name, schema=pg_schema) as other:
            while not done.is_set():
                swept += (await other.leases.sweep_idle_fences(batch_size=3))[0]

    sweepers = [asyncio.create_task(sweeper(f"sweeper-{i}")) for i in range(2)]
    try:
        runs = await asyncio.gather(*(holder(s) for s in sessions))
    finally:
        done.set()
        await asyncio.gather(*sweepers)
    for tokens in runs:
        assert all(a < b for a, b in itertools.pairwise(tokens)), tokens
    assert swept > 0  # the sweeps did delete counter rows while the holders ran


def test_bundle_sweep_reports_every_table_and_refuses_bad_input(
    postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    pg_conn.execute(
        sql.SQL(
            "INSERT INTO {} (conversation_id, kind, origin_node_id, payload, created_at) "
            "VALUES ('s-1', 'EVENT', 'node-x', '{{}}', now() - interval '2 hours')"
        ).format(_t(pg_schema, "conversation_signal"))
    )
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as node:
        lease = node.leases.try_acquire("s-2", "h", TTL)
        assert lease is not None
        node.leases.release(lease)
        report = node.sweep(batch_size=10)
        # the acquisition raised the session's write fence: its row goes with the counter row
        assert report == SweepReport(signals=1, idempotency=0, lapsed_locks=0, lock_fences=1, session_fences=1)
        assert report.total == 3
        assert node.sweep() == SweepReport()
        with pytest.raises(InvalidArgumentError, match="batch_size must be >= 1, got 0"):
            node.sweep(batch_size=0)
        with pytest.raises(InvalidArgumentError, match="signals_older_than must be a timedelta, got int: 60"):
            node.sweep(signals_older_than=60)  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError, match="fences must be a bool, got str"):
            node.sweep(fences="no")  # type: ignore[arg-type]
