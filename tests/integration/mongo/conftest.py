"""Fixtures of the MongoDB inbox tests that count commands: a logged client on a fresh database, and a
stand-in that refuses transactions the way a standalone ``mongod`` does."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from pymongo import MongoClient

from aimon_mongo.mongo import ensure_schema
from aimon_mongo.mongo.command_log import CommandLog
from aimon_mongo.standin import StandinServer
from tests.fixtures.mongo import CLIENT_OPTIONS


@pytest.fixture
def logged(mongo_uri: str) -> Iterator[tuple[CommandLog, MongoClient[dict[str, Any]], str]]:
    log = CommandLog()
    client: MongoClient[dict[str, Any]] = MongoClient(mongo_uri, event_listeners=[log], **CLIENT_OPTIONS)
    name = f"t_{uuid.uuid4().hex[:16]}"
    ensure_schema(client[name])
    yield log, client, name
    client.drop_database(name)
    client.close()


@pytest.fixture(scope="module")
def refusing_uri() -> Iterator[str]:
    """A mongoeco stand-in that answers every transaction the way a standalone mongod does (code 20)."""
    with StandinServer(refuse_transactions=True) as server:
        assert server.uri is not None
        yield server.uri
