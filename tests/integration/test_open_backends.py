"""``aimon_mongo.open_backends`` / ``open_async_backends``: one way to open a backend from a URL, for every
scheme, sync and async, against the real servers (the MongoDB stand-in, Redis, PostgreSQL in a schema of
its own); the refusals (an unknown scheme, an option the bundle does not take) name what is wrong and never
a password; and ``import aimon_mongo`` does not load them until they are used."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from pymongo import MongoClient

import aimon_mongo
from aimon_mongo.errors import BackendUnavailable, InvalidArgumentError, UnknownOptionError
from aimon_mongo.memory import AsyncMemorySessionBackends, MemorySessionBackends, MemoryStorage
from aimon_mongo.model import InboundMessage, Principal, Priority, TextInput
from aimon_mongo.mongo import AsyncMongoSessionBackends, MongoSessionBackends
from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends
from aimon_mongo.redis import AsyncRedisSessionBackends, RedisKeyPrefixes, RedisSessionBackends
from tests.fixtures.postgres import drop_schema, new_schema_name


def _message(session: str, text: str) -> InboundMessage:
    return InboundMessage(
        session_id=session,
        agent_ref="analyst",
        user_input=TextInput(text=text),
        priority=Priority.NEXT,
        initiator=Principal.user("alice"),
        delivered_at=datetime.now(UTC),
    )


@pytest.fixture
def fresh_schema(postgres_dsn: str) -> Iterator[str]:
    schema = new_schema_name()
    yield schema
    drop_schema(postgres_dsn, schema)


def _schema_tables(dsn: str, schema: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = %s", [schema]
        ).fetchone()
    return 0 if row is None else int(row[0])


def test_memory_sync_and_async_share_a_storage_when_given_one() -> None:
    storage = MemoryStorage()
    with aimon_mongo.open_backends("memory://", node_id="a", storage=storage) as a:
        assert isinstance(a, MemorySessionBackends) and a.node_id == "a"
        a.inbox.deliver(_message("s-1", "hello"))
        with aimon_mongo.open_backends("MEMORY://", node_id="b", storage=storage, ensure_schema=True) as b:
            assert [m.user_input.as_text() for m in b.inbox.collect("s-1").messages] == ["hello"]
    with pytest.raises(InvalidArgumentError, match="memory:// URL takes no host or path"):
        aimon_mongo.open_backends("memory://somewhere", node_id="a")


async def test_memory_async() -> None:
    async with aimon_mongo.open_async_backends("memory://", node_id="a") as node:
        assert isinstance(node, AsyncMemorySessionBackends)
        await node.inbox.deliver(_message("s-1", "hello"))
        assert len((await node.inbox.collect("s-1")).messages) == 1


def test_mongodb_sync_creates_the_schema_on_first_use(
    mongo_uri: str, mongo_db_name: str, mongo_client: MongoClient[Any]
) -> None:
    with aimon_mongo.open_backends(mongo_uri, node_id="a", database=mongo_db_name, ensure_schema=True) as node:
        assert isinstance(node, MongoSessionBackends) and node.database.name == mongo_db_name
        assert node._owned_client is not None  # the bundle owns (and closes) its client
        node.inbox.deliver(_message("s-1", "hello"))
        assert [m.user_input.as_text() for m in node.inbox.peek("s-1").messages] == ["hello"]
    created = set(mongo_client[mongo_db_name].list_collection_names())
    assert {"conversation_inbox", "conversation_locks", "background_task", "idempotency_entries"} <= created


async def test_mongodb_async(mongo_uri: str, mongo_db_name: str) -> None:
    node = aimon_mongo.open_async_backends(mongo_uri, node_id="a", database=mongo_db_name)
    assert isinstance(node, AsyncMongoSessionBackends)
    async with node:
        await node.inbox.deliver(_message("s-1", "hello"))
        assert len((await node.inbox.collect("s-1")).messages) == 1


def test_mongodb_srv_goes_to_the_mongodb_bundle() -> None:
    # Nothing is resolved or connected before the first operation: the SRV name need not exist here.
    node = aimon_mongo.open_backends("mongodb+srv://user:s3cret@cluster.invalid/", node_id="a", database="app")
    try:
        assert isinstance(node, MongoSessionBackends) and node.database.name == "app"
    finally:
        node.close()


def test_redis_sync_and_rediss(redis_url: str, redis_root: str) -> None:
    prefixes = RedisKeyPrefixes().under(redis_root)
    with aimon_mongo.open_backends(redis_url, node_id="a", key_prefixes=prefixes, ensure_schema=True) as node:
        assert isinstance(node, RedisSessionBackends)
        assert node.keys.prefixes == prefixes
        node.inbox.deliver(_message("s-1", "hello"))
        assert [m.user_input.as_text() for m in node.inbox.collect("s-1").messages] == ["hello"]
    tls = redis_url.replace("redis://", "rediss://", 1)
    with aimon_mongo.open_backends(tls, node_id="a", key_prefixes=prefixes) as secure:
        assert isinstance(secure, RedisSessionBackends)
        with pytest.raises(BackendUnavailable):  # the server here speaks no TLS: the URL's TLS is used
            secure.ping()


async def test_redis_async(redis_url: str, redis_root: str) -> None:
    prefixes = RedisKeyPrefixes().under(redis_root)
    async with aimon_mongo.open_async_backends(redis_url, node_id="a", key_prefixes=prefixes) as node:
        assert isinstance(node, AsyncRedisSessionBackends)
        await node.inbox.deliver(_message("s-1", "hello"))
        assert len((await node.inbox.collect("s-1")).messages) == 1


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_postgres_sync_creates_the_schema_on_first_use(postgres_dsn: str, fresh_schema: str, scheme: str) -> None:
    url = scheme + postgres_dsn[postgres_dsn.index("://") :]
    node = aimon_mongo.open_backends(url, node_id="a", schema=fresh_schema, ensure_schema=True)
    assert isinstance(node, PostgresSessionBackends) and node.schema == fresh_schema
    assert _schema_tables(postgres_dsn, fresh_schema) == 0  # nothing runs before the first use
    with node:
        node.inbox.deliver(_message("s-1", "hello"))
        assert [m.user_input.as_text() for m in node.inbox.collect("s-1").messages] == ["hello"]
    assert _schema_tables(postgres_dsn, fresh_schema) >= 10


async def test_postgres_async_creates_the_schema_on_first_use(postgres_dsn: str, fresh_schema: str) -> None:
    node = aimon_mongo.open_async_backends(postgres_dsn, node_id="a", schema=fresh_schema, ensure_schema=True)
    assert isinstance(node, AsyncPostgresSessionBackends)
    async with node:
        await node.inbox.deliver(_message("s-1", "hello"))
        assert len((await node.inbox.collect("s-1")).messages) == 1
    assert _schema_tables(postgres_dsn, fresh_schema) >= 10


async def test_postgres_a_signal_subscription_first_creates_the_schema(postgres_dsn: str, fresh_schema: str) -> None:
    """The listener can be a bundle's first user (a session host subscribes before anything else): it
    creates the schema before its LISTEN connection reads the signal table."""
    node = aimon_mongo.open_async_backends(postgres_dsn, node_id="a", schema=fresh_schema, ensure_schema=True)
    async with node:
        subscription = await node.signals.subscribe("s-1", _ignore)
        await subscription.unsubscribe()
    assert _schema_tables(postgres_dsn, fresh_schema) >= 10


async def _ignore(signal: Any) -> None:
    return None


def test_postgres_without_ensure_schema_creates_nothing(postgres_dsn: str, fresh_schema: str) -> None:
    with aimon_mongo.open_backends(postgres_dsn, node_id="a", schema=fresh_schema) as node:
        with pytest.raises(Exception, match="does not exist"):
            node.inbox.deliver(_message("s-1", "hello"))
    assert _schema_tables(postgres_dsn, fresh_schema) == 0


@pytest.mark.parametrize("flavour", ["sync", "async"])
@pytest.mark.parametrize(
    "url", ["http://user:s3cret@example.com/", "sqlite:///tmp/x.db", "mysql://root:s3cret@localhost/db", "s3://b"]
)
def test_an_unknown_scheme_is_refused_naming_it_not_the_password(url: str, flavour: str) -> None:
    opener = aimon_mongo.open_backends if flavour == "sync" else aimon_mongo.open_async_backends
    with pytest.raises(InvalidArgumentError) as caught:
        opener(url, node_id="a")
    message = str(caught.value)
    assert f"unknown backend URL scheme {url.split('://')[0]!r}" in message and "s3cret" not in message
    assert "redis://" in message and "postgresql://" in message  # what it takes


@pytest.mark.parametrize("url", ["localhost:27017", "user:s3cret@host/db", ""])
def test_a_url_without_a_scheme_is_refused_without_echoing_it(url: str) -> None:
    with pytest.raises(InvalidArgumentError, match="starts with a scheme") as caught:
        aimon_mongo.open_backends(url, node_id="a")
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize("flavour", ["sync", "async"])
@pytest.mark.parametrize(
    ("url_fixture", "option", "takes"),
    [
        ("memory", "database", "storage"),
        ("mongo_uri", "schema", "database"),
        ("redis_url", "database", "key_prefixes"),
        ("postgres_dsn", "key_prefixes", "schema"),
    ],
)
def test_an_option_the_bundle_does_not_take_is_refused_naming_it(
    request: pytest.FixtureRequest, url_fixture: str, option: str, takes: str, flavour: str
) -> None:
    url = "memory://" if url_fixture == "memory" else request.getfixturevalue(url_fixture)
    opener = aimon_mongo.open_backends if flavour == "sync" else aimon_mongo.open_async_backends
    with pytest.raises(UnknownOptionError) as caught:
        opener(url, node_id="a", **{option: "x"})
    assert isinstance(caught.value, InvalidArgumentError) and isinstance(caught.value, TypeError)
    assert f"takes no option {option!r}" in str(caught.value) and takes in str(caught.value)
    with pytest.raises(InvalidArgumentError, match="ensure_schema must be a bool"):
        opener(url, node_id="a", ensure_schema="yes")


def test_import_aimon_mongo_loads_only_itself() -> None:
    code = (
        "import sys, aimon_mongo; ours = sorted(m for m in sys.modules if m.startswith('aimon_mongo')); "
        "print(ours); assert ours == ['aimon_mongo'], ours; "
        "aimon_mongo.open_backends; assert 'aimon_mongo.opening' in sys.modules; "
        "assert not any(m.startswith(('pymongo', 'redis', 'psycopg')) for m in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    with pytest.raises(AttributeError, match="no attribute 'open_everything'"):
        aimon_mongo.open_everything  # noqa: B018
