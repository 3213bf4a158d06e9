"""PostgreSQL signal bus on the real server: the doorbell channel, reconnects, late commits, the backstop.

Every test runs on both flavours (the sync bundle behind the conformance suite's async facade).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg import sql

from aimon_mongo.errors import SignalBusError
from aimon_mongo.model import SignalKind
from tests.conformance.backends.postgres import PostgresCluster
from tests.conformance.helpers import Recorder, new_id, signal, wait_until
from tests.fixtures.postgres import drop_schema, new_schema_name


@pytest.fixture(params=["sync", "async"])
async def cluster(request: pytest.FixtureRequest, postgres_dsn: str) -> AsyncIterator[PostgresCluster]:
    from aimon_mongo.postgres import ensure_schema_async

    schema = new_schema_name()
    await ensure_schema_async(postgres_dsn, schema)
    built = PostgresCluster(postgres_dsn, schema, is_async=request.param == "async")
    try:
        yield built
    finally:
        await built.close_all()
        drop_schema(postgres_dsn, schema)


def _raw(node: Any) -> Any:
    """The real bundle behind an async-facing node (the sync one is wrapped in a facade)."""
    return getattr(node, "unwrapped", node)


def _table(cluster: PostgresCluster) -> sql.Composable:
    return sql.Identifier(cluster.schema, "conversation_signal")


async def test_doorbell_channel_name_and_row_shape(cluster: PostgresCluster) -> None:
    """The channel is pinned on its own: it is in no DDL, so the schema freeze tests cannot see it."""
    a = await cluster.node("node-a")
    session = new_id()
    async with await psycopg.AsyncConnection.connect(cluster.dsn, autocommit=True) as listener:
        await listener.execute('LISTEN "conversation_signal_doorbell"')
        await a.signals.publish(signal(session, "node-a", SignalKind.INTERRUPT, reason="USER_SIGINT", n=1))
        got = [n async for n in listener.notifies(timeout=10, stop_after=1)]
        cur = await listener.execute(
            sql.SQL("SELECT id, conversation_id, kind, origin_node_id, payload FROM {}").format(_table(cluster))
        )
        rows = await cur.fetchall()
    assert [n.channel for n in got] == ["conversation_signal_doorbell"]
    assert len(rows) == 1
    row_id, conversation_id, kind, origin, payload = rows[0]
    assert got[0].payload == str(row_id)
    assert (conversation_id, kind, origin) == (session, "INTERRUPT", "node-a")
    assert payload == {"reason": "USER_SIGINT", "n": 1}


async def test_listen_connection_killed_mid_run_misses_nothing_and_repeats_nothing(
    cluster: PostgresCluster,
) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    at_b = Recorder()
    await b.signals.subscribe(session, at_b.handle)
    for n in range(5):
        await a.signals.publish(signal(session, "node-a", n=n))
    await wait_until(lambda: at_b.markers() == list(range(5)), "the first five signals")

    listener = _raw(b).signals.listener
    killed_pid = listener.backend_pid
    async with await psycopg.AsyncConnection.connect(cluster.dsn, autocommit=True) as admin:
        cur = await admin.execute("SELECT pg_terminate_backend(%s)", [killed_pid])
        assert await cur.fetchone() == (True,)
    # Published while node-b has no LISTEN connection (it reconnects after a backoff of 0.5 s or more).
    for n in range(5, 15):
        await a.signals.publish(signal(session, "node-a", n=n))
    await a.signals.publish_all([signal(session, "node-a", n=n) for n in range(15, 20)])

    await wait_until(lambda: len(at_b.received) >= 20, "the signals published during the outage")
    await asyncio.sleep(0.6)  # a duplicate, if any, would arrive with the next fetch
    assert at_b.markers() == list(range(20))
    assert listener.reconnects >= 1 and listener.backend_pid != killed_pid


async def test_late_commit_is_delivered_after_higher_ids(cluster: PostgresCluster) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    at_b = Recorder()
    await b.signals.subscribe(session, at_b.handle)
    insert = sql.SQL(
        "INSERT INTO {} (conversation_id, kind, origin_node_id, payload) VALUES (%s, 'EVENT', 'node-x', %s::jsonb) "
        "RETURNING id"
    ).format(_table(cluster))
    async with await psycopg.AsyncConnection.connect(cluster.dsn) as slow:  # a transaction left open
        cur = await slow.execute(insert, [session, json.dumps({"n": "late"})])
        late_id = (await cur.fetchone() or [0])[0]
        await a.signals.publish(signal(session, "node-a", n="early"))
        await wait_until(lambda: at_b.markers() == ["early"], "the higher id, committed first")
        await slow.execute("SELECT pg_notify('conversation_signal_doorbell', %s)", [str(late_id)])
        await slow.commit()
    await wait_until(lambda: at_b.markers() == ["early", "late"], "the late commit")
    await asyncio.sleep(0.6)
    assert at_b.markers() == ["early", "late"]


async def test_a_row_without_doorbell_arrives_by_the_self_poll(cluster: PostgresCluster) -> None:
    b = await cluster.node("node-b")
    session = new_id()
    at_b = Recorder()
    await b.signals.subscribe(session, at_b.handle)
    async with await psycopg.AsyncConnection.connect(cluster.dsn, autocommit=True) as conn:
        await conn.execute(
            sql.SQL(
                "INSERT INTO {} (conversation_id, kind, origin_node_id, payload) VALUES (%s, 'EVENT', 'node-x', %s)"
            ).format(_table(cluster)),
            [session, json.dumps({"n": 1})],
        )
    await wait_until(lambda: at_b.markers() == [1], "the self-poll to find a row whose NOTIFY was lost")


async def test_publish_all_fails_only_the_signal_the_server_refuses(cluster: PostgresCluster) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    at_b = Recorder()
    await b.signals.subscribe(session, at_b.handle)
    batch = [signal(session, "node-a", n=n) for n in range(3)]
    batch.insert(1, signal(session, "node-a", n="bad", text="nul \x00 inside"))  # jsonb refuses \u0000
    with pytest.raises(SignalBusError, match="1 of 4 signals were not published") as raised:
        await a.signals.publish_all(batch)
    assert "nul" not in str(raised.value)
    await wait_until(lambda: at_b.markers() == [0, 1, 2], "the three good signals, in order")


async def test_sweep_older_than_removes_old_rows(cluster: PostgresCluster) -> None:
    a = await cluster.node("node-a")
    session = new_id()
    await a.signals.publish(signal(session, "node-a", n=1))
    assert await _sweep(a, datetime.now(UTC) - timedelta(minutes=5)) == 0
    assert await _sweep(a, datetime.now(UTC) + timedelta(seconds=5)) == 1


async def _sweep(node: Any, cutoff: datetime) -> int:
    result = node.signals.sweep_older_than(cutoff)
    return int(await result)


async def test_listener_survives_having_no_subscriber_left(cluster: PostgresCluster) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    first, second = Recorder(), Recorder()
    subscription = await b.signals.subscribe(session, first.handle)
    await subscription.unsubscribe()
    await a.signals.publish(signal(session, "node-a", n=1))  # fetched with an empty session list
    await asyncio.sleep(0.6)
    await b.signals.subscribe(session, second.handle)
    await a.signals.publish(signal(session, "node-a", n=2))
    await wait_until(lambda: second.markers() == [2], "the signal published after subscribing again")
    assert first.markers() == []
    assert _raw(b).signals.listener.reconnects == 0  # no fetch failed


async def test_publish_all_over_several_chunks_keeps_list_order(cluster: PostgresCluster) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    at_b = Recorder()
    await b.signals.subscribe(session, at_b.handle)
    await a.signals.publish_all([signal(session, "node-a", SignalKind.STATUS, n=n) for n in range(600)])
    await wait_until(lambda: len(at_b.received) >= 600, "600 signals in three chunks")
    assert at_b.markers() == list(range(600))
