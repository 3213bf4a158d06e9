"""A node of the lease-safety scenarios, as its own process: ``python -m tests.reliability.lease_worker SPEC``.

``SPEC`` is JSON: ``conn`` (what :func:`describe` returns for the test's cluster: family, sync or async,
and where the shared store is), ``node`` (node and holder id), ``script`` (``hold``, ``take_over`` or
``contend``, see :mod:`tests.reliability.lease_scripts`) and the script's parameters. The worker builds
its own bundle, prints ``{"event": "ready"}`` on stdout, then runs the script once per line it reads on
stdin (``{"session": ...}``), printing ``{"event": "finished"}`` after each, and exits at the end of its
input. Events go to stdout, or to the file named by ``log`` (``contend``).

The in-memory backend keeps its state inside one process, so it has no worker: its scenarios run the
same scripts in threads of the test process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

from tests.conformance.backends import AsyncFacade, maybe_close
from tests.reliability.lease_scripts import StoreClock, contend, hold, line_writer, micros, take_over

CLOCK_COLLECTION = "reliability_clock"


def describe(cluster: Any) -> dict[str, Any] | None:
    """Where a worker process finds the store of ``cluster``; ``None`` for the in-memory families."""
    from tests.conformance.backends.mongo import MongoCluster
    from tests.conformance.backends.postgres import PostgresCluster
    from tests.conformance.backends.redis import RedisCluster

    flavour = {"is_async": cluster.is_async}
    if isinstance(cluster, MongoCluster):
        return {"family": "mongo", "uri": cluster.uri, "db": cluster.db_name, **flavour}
    if isinstance(cluster, RedisCluster):
        cluster_layout = cluster.keys.cluster  # a real Redis Cluster (tests.conformance.backends.redis_cluster)
        return {"family": "redis", "url": cluster.url, "root": cluster.root, "cluster": cluster_layout, **flavour}
    if isinstance(cluster, PostgresCluster):
        return {"family": "postgres", "dsn": cluster.dsn, "schema": cluster.schema,
                "bouncer_dsn": cluster.bouncer_dsn, **flavour}  # fmt: skip
    return None


@contextlib.asynccontextmanager
async def connect(conn: dict[str, Any], node_id: str) -> AsyncIterator[tuple[Any, StoreClock]]:
    """A bundle of ``node_id`` on the store ``conn`` describes (async-facing), and the store's clock."""
    family = conn["family"]
    builders = {"mongo": _mongo, "redis": _redis, "postgres": _postgres}
    if family not in builders:
        raise ValueError(f"no worker for backend family {family!r}")
    async with builders[family](conn, node_id) as (bundle, clock):
        try:
            yield (bundle if conn["is_async"] else AsyncFacade(bundle)), clock
        finally:
            await maybe_close(bundle)


@contextlib.asynccontextmanager
async def _mongo(conn: dict[str, Any], node_id: str) -> AsyncIterator[tuple[Any, StoreClock]]:
    from pymongo import AsyncMongoClient, MongoClient, ReturnDocument

    from aimon_mongo.mongo import AsyncMongoSessionBackends, MongoSessionBackends
    from tests.fixtures.mongo import CLIENT_OPTIONS

    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(conn["uri"], **CLIENT_OPTIONS)
    sync_client: MongoClient[dict[str, Any]] | None = None
    clock = client[conn["db"]][CLOCK_COLLECTION]

    async def now() -> int:  # $$NOW, the time the lease store judges expiry with (milliseconds)
        doc = await clock.find_one_and_update(
            {"_id": node_id}, [{"$set": {"t": "$$NOW"}}], upsert=True, return_document=ReturnDocument.AFTER
        )
        assert doc is not None
        return micros(doc["t"])

    try:
        if conn["is_async"]:
            yield AsyncMongoSessionBackends(client[conn["db"]], node_id), StoreClock(now)
        else:
            sync_client = MongoClient(conn["uri"], **CLIENT_OPTIONS)
            yield MongoSessionBackends(sync_client[conn["db"]], node_id), StoreClock(now)
    finally:
        if sync_client is not None:
            sync_client.close()
        await client.close()


@contextlib.asynccontextmanager
async def _redis(conn: dict[str, Any], node_id: str) -> AsyncIterator[tuple[Any, StoreClock]]:
    import redis.asyncio

    from aimon_mongo.redis import AsyncRedisSessionBackends, RedisKeyPrefixes, RedisSessionBackends

    prefixes = RedisKeyPrefixes().under(conn["root"])
    client = redis.asyncio.Redis.from_url(conn["url"])

    async def now() -> int:  # TIME, floored to the milliseconds the lease scripts use
        seconds, microseconds = await client.time()
        return (seconds * 1_000_000 + microseconds) // 1000 * 1000

    flavour = AsyncRedisSessionBackends if conn["is_async"] else RedisSessionBackends
    if not conn.get("cluster"):
        try:
            yield flavour(conn["url"], node_id, prefixes), StoreClock(now)
        finally:
            await client.aclose()
        return
    import redis.asyncio.cluster
    import redis.cluster

    # The clock is one node's TIME: every node of the test cluster runs on this host.
    kind: Any = redis.asyncio.cluster.RedisCluster if conn["is_async"] else redis.cluster.RedisCluster
    store = kind.from_url(conn["url"])
    try:
        yield flavour(store, node_id, prefixes, cluster_layout=True), StoreClock(now)
    finally:
        await (store.aclose() if conn["is_async"] else asyncio.to_thread(store.close))
        await client.aclose()


@contextlib.asynccontextmanager
async def _postgres(conn: dict[str, Any], node_id: str) -> AsyncIterator[tuple[Any, StoreClock]]:
    import psycopg

    from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends

    clock = await psycopg.AsyncConnection.connect(conn["dsn"], autocommit=True)

    async def now() -> int:  # now(): the transaction time the lease statements compare with
        cur = await clock.execute("SELECT now()")
        row = await cur.fetchone()
        assert row is not None
        return micros(row[0])

    flavour = AsyncPostgresSessionBackends if conn["is_async"] else PostgresSessionBackends
    try:
        through = conn.get("bouncer_dsn")  # the postgres-pgbouncer-* families: pooled, LISTEN direct
        pooling = {"pooled": True, "listen_dsn": conn["dsn"]} if through else {}
        bundle = flavour(through or conn["dsn"], node_id, schema=conn["schema"], **pooling)
        yield bundle, StoreClock(now, exact_start=False)
    finally:
        await clock.close()


async def run(spec: dict[str, Any]) -> None:
    say = line_writer(sys.stdout)
    node, script = spec["node"], spec["script"]
    if script not in ("hold", "take_over", "contend"):
        raise ValueError(f"unknown script {script!r}")
    with contextlib.ExitStack() as files:
        emit = line_writer(files.enter_context(open(spec["log"], "a"))) if spec.get("log") else say
        async with connect(spec["conn"], node) as (bundle, clock):
            await clock.now()  # connected: the first round is not delayed by connection set-up
            say({"event": "ready"})
            while line := await asyncio.to_thread(sys.stdin.readline):  # one round per line, until EOF
                session = json.loads(line)["session"]
                if script == "hold":
                    await hold(bundle, session, node, spec["ttl_ms"], emit, lambda: asyncio.sleep(0.01))
                elif script == "take_over":
                    await take_over(bundle, session, node, emit)
                else:
                    await contend(bundle, session, node, spec["acquisitions"], spec["seed"], emit, clock)
                say({"event": "finished"})
    say({"event": "exit"})


if __name__ == "__main__":
    asyncio.run(run(json.loads(sys.argv[1])))
