"""PostgreSQL bundle behaviour beyond the shared contract: failures, pools, schema handling, sweeps."""

from __future__ import annotations

import asyncio
import re
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import psycopg.conninfo
import pytest
from psycopg import sql
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from aimon_mongo.errors import (
    BackendRefused,
    BackendUnavailable,
    InvalidArgumentError,
    SessionInboxError,
    StaleFencingTokenError,
)
from aimon_mongo.model import BackgroundTask, IdempotencyEntry, IdempotencyStatus, TaskQuery, TaskState
from aimon_mongo.model.record import LogSegment
from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends, ensure_schema
from tests.conformance.helpers import message, new_id
from tests.fixtures.postgres import drop_schema, new_schema_name

CLOSED_PORT_DSN = "postgresql://postgres@127.0.0.1:9/postgres"  # the discard port: nothing listens there


def test_unreachable_server_names_host_and_port() -> None:
    with PostgresSessionBackends(CLOSED_PORT_DSN, "node-a", timeout=1) as node:
        # the pool only says it timed out; the message names why (one direct attempt)
        with pytest.raises(
            BackendUnavailable, match=r"127\.0\.0\.1:9 is not reachable: .*Connection refused.*within 1 s"
        ):
            node.inbox.is_empty("s-1")
        with pytest.raises(BackendUnavailable, match=r"127\.0\.0\.1:9"):
            node.signals.subscribe("s-1", lambda _signal: None)
    with pytest.raises(BackendUnavailable, match=r"127\.0\.0\.1:9"):
        ensure_schema(CLOSED_PORT_DSN, "aimon_session")


async def test_unreachable_server_names_host_and_port_async() -> None:
    async with AsyncPostgresSessionBackends(CLOSED_PORT_DSN, "node-a", timeout=1) as node:
        with pytest.raises(BackendUnavailable, match=r"127\.0\.0\.1:9 is not reachable: .*Connection refused"):
            await node.leases.find_holder("s-1")


def test_a_missing_database_or_role_is_refused_not_unreachable(postgres_dsn: str) -> None:
    info = psycopg.conninfo.conninfo_to_dict(postgres_dsn)
    missing_db = psycopg.conninfo.make_conninfo(postgres_dsn, dbname=f"no_such_db_{new_id()}")
    missing_role = psycopg.conninfo.make_conninfo(postgres_dsn, user=f"no_such_role_{new_id()}")
    where = f"{info.get('host') or 'localhost'}:{info.get('port') or 5432}"
    for dsn, said in (
        (missing_db, r'database "no_such_db_[\w-]+" does not exist'),
        (missing_role, r'role "no_such_role_[\w-]+"'),
    ):
        with PostgresSessionBackends(dsn, "node-a", timeout=1) as node:
            with pytest.raises(
                BackendRefused, match=rf"^PostgreSQL at {re.escape(where)} refused the connection: {said}"
            ) as caught:
                node.inbox.is_empty("s-1")
        assert "not reachable" not in str(caught.value) and "within" not in str(caught.value)
        assert isinstance(caught.value, BackendUnavailable)  # still the family callers catch


def test_a_killed_pool_connection_is_reported_then_replaced(
    postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    with PostgresSessionBackends(postgres_dsn, "node-kill", schema=pg_schema, pool_max_size=1) as node:
        assert node.inbox.is_empty("s-1")
        killed = pg_conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'aimon-mongo node-kill'"
        ).fetchall()
        assert killed == [(True,)]
        with pytest.raises(BackendUnavailable, match=r"127\.0\.0\.1:5432"):
            node.inbox.is_empty("s-1")
        assert node.inbox.is_empty("s-1")  # the pool replaced the broken connection


def test_a_borrowed_pool_is_used_and_left_open(postgres_dsn: str, pg_schema: str) -> None:
    with ConnectionPool(postgres_dsn, min_size=1, max_size=2, open=True) as pool:
        with PostgresSessionBackends(pool, "node-a", schema=pg_schema) as node:
            entry_id = node.inbox.deliver(message("s-1"))
            assert [m.id for m in node.inbox.collect("s-1").messages] == [entry_id]
        assert not pool.closed
        with pool.connection() as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)


async def test_a_borrowed_async_pool_is_used_and_left_open(postgres_dsn: str, pg_schema: str) -> None:
    async with AsyncConnectionPool(postgres_dsn, min_size=1, max_size=2, open=False) as pool:
        async with AsyncPostgresSessionBackends(pool, "node-a", schema=pg_schema) as node:
            lease = await node.leases.try_acquire("s-1", "node-a", timedelta(seconds=30))
            assert lease is not None and lease.fencing_token == 1
        assert not pool.closed


def test_stores_never_create_tables_and_ensure_schema_does(postgres_dsn: str) -> None:
    schema = new_schema_name()
    try:
        with PostgresSessionBackends(postgres_dsn, "node-a", schema=schema) as node:
            # undefined_table: nothing ran DDL; the message says what to run
            with pytest.raises(
                SessionInboxError, match=r"\[42P01\] .* \(the schema's tables are missing: run ensure_schema"
            ):
                node.inbox.is_empty("s-1")
            assert node.ensure_schema() == [1, 2, 3, 4, 5, 6]
            assert node.ensure_schema() == []
            assert node.inbox.is_empty("s-1")
    finally:
        drop_schema(postgres_dsn, schema)


async def test_concurrent_ensure_schema_applies_each_version_once(postgres_dsn: str) -> None:
    from aimon_mongo.postgres import ensure_schema_async

    schema = new_schema_name()
    try:
        results = await asyncio.gather(*(ensure_schema_async(postgres_dsn, schema) for _ in range(4)))
        assert sorted(results) == [[], [], [], [1, 2, 3, 4, 5, 6]]
    finally:
        drop_schema(postgres_dsn, schema)


@pytest.mark.parametrize("schema", ["", "1abc", "a-b", 'x"; DROP TABLE y; --', "a" * 64, "ü"])
def test_schema_names_must_be_plain_identifiers(postgres_dsn: str, schema: str) -> None:
    with pytest.raises(InvalidArgumentError, match="schema"):
        PostgresSessionBackends(postgres_dsn, "node-a", schema=schema)
    with pytest.raises(InvalidArgumentError, match="schema"):
        ensure_schema(postgres_dsn, schema)


def test_quoted_schema_identifier_with_upper_case(postgres_dsn: str) -> None:
    schema = "T_" + new_schema_name()[2:].upper()
    try:
        assert ensure_schema(postgres_dsn, schema) == [1, 2, 3, 4, 5, 6]
        with PostgresSessionBackends(postgres_dsn, "node-a", schema=schema) as node:
            node.inbox.deliver(message("s-1"))
            assert len(node.inbox.collect("s-1").messages) == 1
    finally:
        drop_schema(postgres_dsn, schema)


def test_task_list_filters_are_served_by_the_indexes(
    postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as node:
        for i, state in enumerate([TaskState.RUNNING, TaskState.PENDING, TaskState.RUNNING]):
            node.tasks.put(
                BackgroundTask(
                    task_id=f"t-{i}",
                    subagent_name="sub",
                    state=state,
                    start_time=start + timedelta(seconds=i),
                    agent_runtime_id=f"agent:a{i % 2}",
                )
            )
        running = node.tasks.list(TaskQuery(state=TaskState.RUNNING))
        assert [t.task_id for t in running] == ["t-0", "t-2"]
        by_context = node.tasks.list(TaskQuery(agent_runtime_id="agent:a1"))
        assert [t.task_id for t in by_context] == ["t-1"]
    table = sql.Identifier(pg_schema, "background_task")
    with pg_conn.transaction():
        pg_conn.execute("SET LOCAL enable_seqscan = off")
        for column, index in [("state", "background_task_state_idx"), ("context_id", "background_task_context_idx")]:
            plan = pg_conn.execute(
                sql.SQL("EXPLAIN SELECT * FROM {} WHERE {} = 'x'").format(table, sql.Identifier(column))
            ).fetchall()
            assert index in " ".join(r[0] for r in plan)


def test_idempotency_sweep_removes_only_lapsed_rows(postgres_dsn: str, pg_schema: str) -> None:
    now = datetime.now(UTC)
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as node:
        for key, ttl in [("short", timedelta(milliseconds=50)), ("long", timedelta(minutes=5))]:
            node.idempotency.put_if_absent(
                IdempotencyEntry(
                    key=key,
                    session_id="s-1",
                    input_hash="h",
                    status=IdempotencyStatus.IN_FLIGHT,
                    holder_id="h1",
                    created_at=now,
                    last_touched_at=now,
                ),
                ttl,
            )
        deadline = datetime.now(UTC) + timedelta(seconds=10)
        while node.idempotency.find("short") is not None and datetime.now(UTC) < deadline:
            time.sleep(0.05)
        assert node.idempotency.sweep_expired() == 1
        assert node.idempotency.sweep_expired() == 0
        assert node.idempotency.find("long") is not None


def test_stale_token_error_names_the_winning_token(postgres_dsn: str, pg_schema: str) -> None:
    session = new_id()
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as node:
        node.records.merge_transcript(session, "[]", 7)
        with pytest.raises(StaleFencingTokenError) as raised:
            node.segments.put(
                LogSegment(
                    session_id=session,
                    segment_id="seg-1",
                    from_seq=0,
                    to_seq=1,
                    entry_count=2,
                    payload="[]",
                    created_at=datetime.now(UTC),
                ),
                6,
            )
        assert (raised.value.token, raised.value.highest) == (6, 7)
        assert node.segments.list(session) == []
