"""Bundles of one backend family on a given server address, with the short client timeouts of fault tests.

The fault tests point bundles at a server that goes away (a private server they stop, or a proxy that
drops connections). Every client is configured through the backends' public options so an operation
against a missing server fails with ``BackendUnavailable`` after seconds, not minutes:

* Redis: the URL's query string (``socket_connect_timeout``, ``socket_timeout``), read by redis-py;
* PostgreSQL: the bundle's ``timeout`` (pool wait and ``connect_timeout``);
* MongoDB: the client's ``serverSelectionTimeoutMS`` / ``connectTimeoutMS`` / ``socketTimeoutMS``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, TypeVar

from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo.clock import Clock
from aimon_mongo.errors import BackendUnavailable
from aimon_mongo.mongo import AsyncMongoSessionBackends, MongoSessionBackends, ensure_schema
from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends
from aimon_mongo.postgres import ensure_schema as ensure_pg_schema
from aimon_mongo.redis import AsyncRedisSessionBackends, RedisKeyPrefixes, RedisSessionBackends
from tests.conformance.backends import ClusterBase

T = TypeVar("T")

CONNECT_TIMEOUT = 2.0
"""Seconds a client waits for a connection (or a server to select) before reporting the server gone."""
REPLY_TIMEOUT = 10.0
"""Seconds a client waits for a reply on an open connection (the stand-in is slow under load)."""
HANG_LIMIT = 60.0
"""An operation still running after this long is a hang (far above every configured timeout)."""

FAMILIES = ("mongo", "postgres", "redis")
FLAVOURS = ("sync", "async")


@dataclass(frozen=True)
class Address:
    host: str
    port: int
    user: str = "postgres"  # PostgreSQL only: the role and database to connect to
    dbname: str = "postgres"


class FaultCluster(ClusterBase):
    """Bundles of one family (``mongo``, ``postgres``, ``redis``) on ``address``, sync or async.

    ``setup`` is where the schema is created (called once, on a direct address); ``close`` releases
    what the cluster opened itself (MongoDB clients).
    """

    def __init__(self, family: str, is_async: bool, address: Address, *, scope: str) -> None:
        super().__init__()
        if family not in FAMILIES:
            raise ValueError(f"unknown family {family!r}")
        self.family = family
        self.is_async = is_async
        self.address = address
        self.scope = scope  # a Mongo database, a PostgreSQL schema, a Redis key root
        self._mongo_clients: list[Any] = []

    @property
    def name(self) -> str:
        return f"{self.family}-{'async' if self.is_async else 'sync'}"

    def setup(self, direct: Address) -> None:
        """Create the stores' schema through ``direct`` (not through a faulty proxy)."""
        if self.family == "postgres":
            ensure_pg_schema(_pg_dsn(direct), self.scope)
        elif self.family == "mongo":
            with MongoClient(_mongo_uri(direct), **_mongo_options()) as client:
                ensure_schema(client[self.scope])

    async def build(self, node_id: str, clock: Clock | None) -> Any:
        if self.family == "redis":
            url = f"redis://{self.address.host}:{self.address.port}/0?" + (
                f"socket_connect_timeout={CONNECT_TIMEOUT}&socket_timeout={REPLY_TIMEOUT}"
            )
            prefixes = RedisKeyPrefixes().under(self.scope)
            flavour = AsyncRedisSessionBackends if self.is_async else RedisSessionBackends
            return flavour(url, node_id, prefixes, clock)
        if self.family == "postgres":
            pg = AsyncPostgresSessionBackends if self.is_async else PostgresSessionBackends
            return pg(_pg_dsn(self.address), node_id, schema=self.scope, clock=clock, timeout=CONNECT_TIMEOUT)
        if self.is_async:
            async_client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(
                _mongo_uri(self.address), **_mongo_options()
            )
            self._mongo_clients.append(async_client)
            return AsyncMongoSessionBackends(async_client[self.scope], node_id, clock=clock)
        client: MongoClient[dict[str, Any]] = MongoClient(_mongo_uri(self.address), **_mongo_options())
        self._mongo_clients.append(client)
        return MongoSessionBackends(client[self.scope], node_id, clock=clock)

    async def stop(self) -> None:
        try:
            await super().stop()
        finally:
            for client in self._mongo_clients:
                closed = client.close()
                if asyncio.iscoroutine(closed):
                    await closed
            self._mongo_clients.clear()


def _pg_dsn(address: Address) -> str:
    return f"postgresql://{address.user}@{address.host}:{address.port}/{address.dbname}"


def _mongo_uri(address: Address) -> str:
    return f"mongodb://{address.host}:{address.port}/?directConnection=true"


def _mongo_options() -> dict[str, Any]:
    return {
        "serverSelectionTimeoutMS": int(CONNECT_TIMEOUT * 1000),
        "connectTimeoutMS": int(CONNECT_TIMEOUT * 1000),
        "socketTimeoutMS": int(REPLY_TIMEOUT * 1000),
        "tz_aware": True,
    }


@dataclass
class Outcome:
    """What one call did: its result, or the ``BackendUnavailable`` it raised, and how long it took."""

    started: float
    ended: float
    result: Any = None
    error: BackendUnavailable | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def elapsed(self) -> float:
        return self.ended - self.started


async def attempt(call: Awaitable[T]) -> Outcome:
    """Run one store call; ``BackendUnavailable`` is caught and returned, any other error propagates, and
    a call running past :data:`HANG_LIMIT` fails the test as a hang."""
    started = time.monotonic()
    try:
        result = await asyncio.wait_for(call, HANG_LIMIT)
    except BackendUnavailable as exc:
        return Outcome(started, time.monotonic(), error=exc)
    except TimeoutError as exc:
        raise AssertionError(f"a store call hung for more than {HANG_LIMIT} s") from exc
    return Outcome(started, time.monotonic(), result=result)


async def until_ok(make_call: Any, *, deadline: float, failures: list[Outcome] | None = None) -> Any:
    """Call ``make_call()`` until it returns without ``BackendUnavailable`` (what an application does on a
    transient outage); failed outcomes are appended to ``failures``. Fails the test after ``deadline`` s."""
    give_up = time.monotonic() + deadline
    while True:
        outcome = await attempt(make_call())
        if outcome.ok:
            return outcome.result
        if failures is not None:
            failures.append(outcome)
        if time.monotonic() > give_up:
            raise AssertionError(f"still unavailable after {deadline} s: {outcome.error}")
        await asyncio.sleep(0.05)
