"""PostgreSQL bundles behind a real PgBouncer in transaction mode: ``pooled=True`` and ``listen_dsn``.

The whole conformance suite also runs through PgBouncer (the ``postgres-pgbouncer-*`` families); these
tests pin what is specific to the pooler: the LISTEN connection must reach the server directly, and
statements must never be prepared.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from psycopg_pool import AsyncConnectionPool

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model import SignalKind
from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends, ensure_schema_async
from tests.conformance.backends import AsyncFacade
from tests.conformance.backends.postgres import PostgresCluster
from tests.conformance.helpers import Recorder, message, new_id, signal, wait_until
from tests.fixtures.postgres import drop_schema, new_schema_name

NO_SELF_POLL = 3600.0
"""The listeners' self-poll, pushed out of reach: a signal can then only arrive by its doorbell."""


@pytest.fixture(params=["sync", "async"])
async def cluster(request: pytest.FixtureRequest, postgres_dsn: str, pgbouncer_dsn: str) -> AsyncIterator[Any]:
    schema = new_schema_name()
    await ensure_schema_async(pgbouncer_dsn, schema)
    built = PostgresCluster(postgres_dsn, schema, is_async=request.param == "async", bouncer_dsn=pgbouncer_dsn)
    try:
        yield built
    finally:
        await built.close_all()
        drop_schema(postgres_dsn, schema)


def _raw(node: Any) -> Any:
    return node.unwrapped if isinstance(node, AsyncFacade) else node


async def _first_fetch_done(listener: Any) -> None:
    """Wait for the listener's first fetch (it runs once after LISTEN): a signal published before it would be
    read by that fetch, not by a doorbell, and the tests below are about the doorbell alone."""
    await wait_until(lambda: not listener._fetch_due and listener._last_fetch > 0, "the listener's first fetch")


async def test_listen_dsn_takes_the_doorbell_to_a_pooled_node(cluster: PostgresCluster) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    _raw(b).signals.listener._self_poll = NO_SELF_POLL
    session, got = new_id(), Recorder()
    await b.signals.subscribe(session, got.handle)
    await _first_fetch_done(_raw(b).signals.listener)
    await a.signals.publish(signal(session, "node-a", SignalKind.INTERRUPT, n=1))
    await wait_until(lambda: got.markers() == [1], "the signal, by its doorbell alone")


async def test_without_listen_dsn_the_doorbell_never_reaches_the_listener(cluster: PostgresCluster) -> None:
    """The failure ``listen_dsn`` exists for: LISTEN through a transaction-mode pooler hears nothing."""
    assert cluster.bouncer_dsn is not None
    flavour = AsyncPostgresSessionBackends if cluster.is_async else PostgresSessionBackends
    deaf = flavour(cluster.bouncer_dsn, "node-deaf", schema=cluster.schema, pooled=True)
    cluster._bundles.append(deaf)
    b = deaf if cluster.is_async else AsyncFacade(deaf)
    deaf.signals.listener._self_poll = NO_SELF_POLL
    a = await cluster.node("node-a")
    session, got = new_id(), Recorder()
    await b.signals.subscribe(session, got.handle)
    await _first_fetch_done(deaf.signals.listener)
    await a.signals.publish(signal(session, "node-a", SignalKind.INTERRUPT, n=1))
    await asyncio.sleep(3)  # nothing can be polled for: the check is that nothing arrives in this window
    assert got.markers() == []


async def test_pooled_statements_are_never_prepared(cluster: PostgresCluster) -> None:
    """400 deliver+collect pairs on 8 concurrent workers through PgBouncer (6 server connections): with
    psycopg's automatic prepare, about half of them failed ``prepared statement "_pg3_N" does not exist``."""
    node = await cluster.node("node-a")

    async def worker() -> int:
        session, done = new_id(), 0
        for _ in range(50):
            await node.inbox.deliver(message(session))
            done += len((await node.inbox.collect(session)).messages)
        return done

    assert await asyncio.gather(*(worker() for _ in range(8))) == [50] * 8


async def test_bad_pooled_and_listen_dsn_are_refused_naming_the_value(postgres_dsn: str) -> None:
    with pytest.raises(InvalidArgumentError, match="pooled must be a bool, got str"):
        AsyncPostgresSessionBackends(postgres_dsn, "node-a", pooled="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="listen_dsn must be a non-empty connection string, got ' '"):
        PostgresSessionBackends(postgres_dsn, "node-a", listen_dsn=" ")
    borrowed: AsyncConnectionPool[Any] = AsyncConnectionPool(postgres_dsn, open=False)
    with pytest.raises(InvalidArgumentError, match="prepare_threshold"):
        AsyncPostgresSessionBackends(borrowed, "node-a", pooled=True)
    ready: AsyncConnectionPool[Any] = AsyncConnectionPool(postgres_dsn, kwargs={"prepare_threshold": None}, open=False)
    assert AsyncPostgresSessionBackends(ready, "node-a", pooled=True).endpoint == "127.0.0.1:5432"
