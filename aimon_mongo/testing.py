"""pytest fixtures for testing your own code against aimon-mongo (a plugin, registered as ``pytest11``).

Installed with the package and inert unless a test asks for one of its fixtures: importing it imports
nothing else, it adds no hooks or options, and no server starts unless a test uses one.

* ``aimon_memory_backends`` — a :class:`~aimon_mongo.memory.MemorySessionBackends` (node ``test-node``)
  on a fresh in-memory storage, closed after the test.
* ``aimon_memory_vfs`` — an initialized :class:`~aimon_mongo.vfs.MemoryFileSystem`, closed after the test.
* ``aimon_mongo_uri`` — the URI of a local MongoDB stand-in (mongoeco), started once per test session and
  stopped at its end (it needs a Python >= 3.13 on the machine; the first run creates its environment
  under ``~/.cache/aimon-mongo``, see ``docs/testing.md``).
* ``aimon_mongo_db`` — a fresh database on that stand-in for each test (a PyMongo ``Database``, timezone-aware
  client), dropped after it; ``aimon_mongo_db.name`` for an async client of your own.
* ``aimon_mongo_backends`` — :class:`~aimon_mongo.mongo.MongoSessionBackends` (node ``test-node``) on
  ``aimon_mongo_db`` with its schema created, closed after the test.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

import pytest

if TYPE_CHECKING:
    from pymongo import MongoClient
    from pymongo.synchronous.database import Database

    from aimon_mongo.memory import MemorySessionBackends
    from aimon_mongo.mongo import MongoSessionBackends
    from aimon_mongo.vfs import MemoryFileSystem

NODE_ID = "test-node"
"""The node id of the bundles the fixtures build."""
DATABASE_PREFIX = "aimon_test_"
STANDIN_TIMEOUT_MS = 20_000
"""Server selection of the fixtures' clients: a stand-in busy with a slow test answers late, not never."""


@pytest.fixture
def aimon_memory_backends() -> Iterator[MemorySessionBackends]:
    """The seven in-memory session stores of one node, on a fresh storage."""
    from aimon_mongo.memory import MemorySessionBackends

    bundle = MemorySessionBackends(NODE_ID)
    yield bundle
    bundle.close()


@pytest.fixture
def aimon_memory_vfs() -> Iterator[MemoryFileSystem]:
    """An empty in-memory virtual filesystem, initialized."""
    from aimon_mongo.vfs import MemoryFileSystem

    with MemoryFileSystem() as fs:
        yield fs


def serve_standin(kind: Literal["mongoeco", "secantus"] = "mongoeco") -> Iterator[str]:
    """Yield the URI of a stand-in started for the duration of the generator (a fixture's body); a failure
    to start it fails the test, saying why (what to install), instead of skipping anything."""
    from aimon_mongo.standin import StandinError, StandinServer

    server = StandinServer(kind)
    try:
        uri = server.start()
    except StandinError as exc:
        pytest.fail(f"MongoDB stand-in unavailable: {exc}", pytrace=False)
    try:
        yield uri
    finally:
        server.stop()


@pytest.fixture(scope="session")
def aimon_mongo_uri() -> Iterator[str]:
    """A MongoDB stand-in for the whole test session."""
    yield from serve_standin()


@pytest.fixture(scope="session")
def _aimon_mongo_client(aimon_mongo_uri: str) -> Iterator[MongoClient[dict[str, Any]]]:
    from aimon_mongo.mongo.clients import mongo_client

    client = mongo_client(aimon_mongo_uri, timeout_ms=STANDIN_TIMEOUT_MS)
    yield client
    client.close()


@pytest.fixture
def aimon_mongo_db(_aimon_mongo_client: MongoClient[dict[str, Any]]) -> Iterator[Database[dict[str, Any]]]:
    """A database of its own for this test on the session's stand-in, dropped afterwards."""
    name = f"{DATABASE_PREFIX}{uuid.uuid4().hex[:12]}"
    yield _aimon_mongo_client[name]
    _aimon_mongo_client.drop_database(name)


@pytest.fixture
def aimon_mongo_backends(aimon_mongo_db: Database[dict[str, Any]]) -> Iterator[MongoSessionBackends]:
    """The MongoDB session stores of one node on this test's database, schema created."""
    from aimon_mongo.mongo import MongoSessionBackends

    bundle = MongoSessionBackends(aimon_mongo_db, NODE_ID, ensure_schema=True)
    yield bundle
    bundle.close()
