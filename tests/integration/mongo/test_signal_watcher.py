"""The MongoDB signal bus's watcher against real servers: polling on the stand-in (with a network cut in
front of it), change streams on the SecantusDB replica set."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest
from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo._async.mongo.signals import AsyncMongoSessionSignalBus
from aimon_mongo._sync.mongo.signals import MongoSessionSignalBus
from aimon_mongo.model import SessionSignal, SignalKind
from aimon_mongo.mongo import ensure_schema
from tests.fixtures.tcp_proxy import TcpProxy

WAIT = 30.0


def _signal(session: str, origin: str, n: int) -> SessionSignal:
    return SessionSignal(session_id=session, kind=SignalKind.EVENT, origin_node_id=origin, payload={"n": n})


def _wait(predicate: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


@pytest.fixture
def proxy(mongo_uri: str) -> Iterator[TcpProxy]:
    parsed = urlparse(mongo_uri)
    assert parsed.hostname is not None and parsed.port is not None
    tcp = TcpProxy(parsed.hostname, parsed.port)
    yield tcp
    tcp.close()


def test_polling_watcher_continues_after_a_disconnect(
    mongo_client: MongoClient[dict[str, Any]], mongo_db_name: str, proxy: TcpProxy, caplog: pytest.LogCaptureFixture
) -> None:
    ensure_schema(mongo_client[mongo_db_name])
    cut_client: MongoClient[dict[str, Any]] = MongoClient(
        f"mongodb://127.0.0.1:{proxy.port}/?directConnection=true", serverSelectionTimeoutMS=500, tz_aware=True
    )
    publisher = MongoSessionSignalBus(mongo_client[mongo_db_name]["conversation_signals"], "node-a")
    subscriber = MongoSessionSignalBus(cut_client[mongo_db_name]["conversation_signals"], "node-b", retry_backoff=0.2)
    session = f"s-{uuid.uuid4().hex[:8]}"
    received: list[Any] = []
    try:
        subscriber.subscribe(session, lambda s: received.append(s.payload["n"]))
        assert subscriber.watch_mode == "poll"
        publisher.publish(_signal(session, "node-a", 1))
        _wait(lambda: received == [1], "the first signal")

        with caplog.at_level(logging.WARNING, logger="aimon_mongo._sync.mongo.signals"):
            proxy.cut()
            _wait(lambda: any("retrying" in r.getMessage() for r in caplog.records), "the watcher to notice")
            publisher.publish(_signal(session, "node-a", 2))  # published while node-b is disconnected
            publisher.publish(_signal(session, "node-a", 3))
            time.sleep(0.5)
            assert received == [1]
            proxy.restore()
            _wait(lambda: received == [1, 2, 3], "the signals published during the disconnect")
        assert all("node-b" in r.getMessage() for r in caplog.records if "retrying" in r.getMessage())
    finally:
        subscriber.close()
        publisher.close()
        cut_client.close()


def test_polling_watcher_skips_undecodable_signals(
    mongo_client: MongoClient[dict[str, Any]], mongo_db_name: str
) -> None:
    ensure_schema(mongo_client[mongo_db_name])
    collection = mongo_client[mongo_db_name]["conversation_signals"]
    bus = MongoSessionSignalBus(collection, "node-b")
    session = f"s-{uuid.uuid4().hex[:8]}"
    received: list[Any] = []
    try:
        bus.subscribe(session, lambda s: received.append(s.payload["n"]))
        stored = {"conversationId": session, "originNodeId": "node-x"}
        collection.insert_one({**stored, "kind": "TELEPORT", "payload": {}})
        collection.insert_one({**stored, "kind": "EVENT", "payload": {"n": 7}})
        _wait(lambda: received == [7], "the readable signal after the unreadable one")
    finally:
        bus.close()


@pytest.mark.changestream
async def test_change_stream_path(changestream_uri: str) -> None:
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(changestream_uri, tz_aware=True)
    db_name = f"t_{uuid.uuid4().hex[:16]}"
    sync_client: MongoClient[dict[str, Any]] = MongoClient(changestream_uri, tz_aware=True)
    ensure_schema(sync_client[db_name])
    collection = client[db_name]["conversation_signals"]
    a = AsyncMongoSessionSignalBus(collection, "node-a")
    b = AsyncMongoSessionSignalBus(collection, "node-b")
    session = f"s-{uuid.uuid4().hex[:8]}"
    at_a: list[Any] = []
    at_b: list[Any] = []

    async def to_a(signal: SessionSignal) -> None:
        at_a.append(signal.payload["n"])

    async def to_b(signal: SessionSignal) -> None:
        at_b.append(signal.payload["n"])
        if signal.payload["n"] == 1:
            raise RuntimeError("a failing handler keeps receiving")

    try:
        await a.subscribe(session, to_a)
        subscription = await b.subscribe(session, to_b)
        assert (a.watch_mode, b.watch_mode) == ("change_stream", "change_stream")
        await a.publish(_signal(session, "node-a", 1))
        await a.publish(_signal(session, "node-a", 2))
        await b.publish(_signal(session, "node-b", 3))
        await _async_wait(lambda: at_b == [1, 2] and at_a == [3], "delivery to the other node only")
        await subscription.unsubscribe()
        await a.publish(_signal(session, "node-a", 4))
        await b.publish(_signal(session, "node-b", 5))
        await _async_wait(lambda: at_a == [3, 5], "node-a to receive node-b's second signal")
        assert at_b == [1, 2]
    finally:
        await a.close()
        await b.close()
        await client.drop_database(db_name)
        await client.close()
        sync_client.close()


async def _async_wait(predicate: Any, what: str) -> None:
    import asyncio

    deadline = time.monotonic() + WAIT
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)
