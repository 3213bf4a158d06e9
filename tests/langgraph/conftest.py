"""Fixtures of the LangGraph saver tests: every saver flavour on its store.

``saver_kind`` parametrises over the in-memory saver and the MongoDB saver on the stand-in (a fresh
database per test, schema ensured, dropped afterwards). ``make_async_saver`` / ``make_sync_saver`` build
savers of that kind on one shared store and one shared lease store, like nodes sharing a database.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo.langgraph import (
    AimonCheckpointSaver,
    AimonMemoryCheckpointSaver,
    AsyncAimonCheckpointSaver,
    AsyncAimonMemoryCheckpointSaver,
    CheckpointMemoryStore,
)
from aimon_mongo.mongo import ensure_schema, ensure_schema_async
from tests.fixtures.mongo import CLIENT_OPTIONS

AsyncSaver = AsyncAimonCheckpointSaver | AsyncAimonMemoryCheckpointSaver
SyncSaver = AimonCheckpointSaver | AimonMemoryCheckpointSaver


class FakeClock:
    """A store clock the memory tests move by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, span: timedelta) -> None:
        self.now += span


def _memory_savers(cls: type[Any]) -> Callable[..., Any]:
    """Memory savers of ``cls`` sharing one store and one lease store (like nodes sharing a database)."""
    store = CheckpointMemoryStore()
    shared: dict[str, Any] = {}

    def make(**options: Any) -> Any:
        saver = cls(store, leases=shared.get("leases"), **options)
        shared.setdefault("leases", saver._leases)
        return saver

    return make


@pytest.fixture(params=["memory", "mongo"])
def saver_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def make_async_saver(saver_kind: str, request: pytest.FixtureRequest) -> AsyncIterator[Callable[..., Any]]:
    if saver_kind == "memory":
        yield _memory_savers(AsyncAimonMemoryCheckpointSaver)
        return
    uri = request.getfixturevalue("mongo_uri")
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(uri, **CLIENT_OPTIONS)
    name = f"t_{uuid.uuid4().hex[:16]}"
    await ensure_schema_async(client[name])
    yield lambda **options: AsyncAimonCheckpointSaver(client[name], **options)
    await client.drop_database(name)
    await client.close()


@pytest.fixture
def make_sync_saver(saver_kind: str, request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    if saver_kind == "memory":
        yield _memory_savers(AimonMemoryCheckpointSaver)
        return
    uri = request.getfixturevalue("mongo_uri")
    client: MongoClient[dict[str, Any]] = MongoClient(uri, **CLIENT_OPTIONS)
    name = f"t_{uuid.uuid4().hex[:16]}"
    ensure_schema(client[name])
    yield lambda **options: AimonCheckpointSaver(client[name], **options)
    client.drop_database(name)
    client.close()
