"""The change stream keeps only the sessions this node subscribes to, and a change of that set (a reopen
from the resume token) neither loses nor repeats a signal (SecantusDB: a replica set with change streams)."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo._async.mongo.signals import AsyncMongoSessionSignalBus
from aimon_mongo._sync.mongo.signals import MongoSessionSignalBus
from aimon_mongo.model import SessionSignal, SignalKind
from aimon_mongo.mongo import ensure_schema

WAIT = 30.0
pytestmark = pytest.mark.changestream


def _signal(session: str, n: int, origin: str = "node-a") -> SessionSignal:
    return SessionSignal(session_id=session, kind=SignalKind.EVENT, origin_node_id=origin, payload={"n": n})


def _wait(predicate: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.fixture
def signals_db(changestream_uri: str) -> Iterator[Any]:
    client: MongoClient[dict[str, Any]] = MongoClient(changestream_uri, tz_aware=True)
    name = f"t_{uuid.uuid4().hex[:16]}"
    ensure_schema(client[name])
    yield client[name]
    client.drop_database(name)
    client.close()


def test_resubscribing_while_signals_flow_loses_and_repeats_none(signals_db: Any) -> None:
    collection = signals_db["conversation_signals"]
    a = MongoSessionSignalBus(collection, "node-a")
    b = MongoSessionSignalBus(collection, "node-b")
    got: Counter[tuple[str, int]] = Counter()
    lock = threading.Lock()

    def handler(signal: SessionSignal) -> None:
        with lock:
            got[(signal.session_id, int(signal.payload["n"]))] += 1  # type: ignore[arg-type]

    stop = threading.Event()
    sent: list[int] = []

    def flow() -> None:  # a steady stream of signals for the first session during every reopen
        n = 0
        while not stop.is_set() and n < 1000:
            a.publish(_signal("s-0", n))
            sent.append(n)
            n += 1

    try:
        b.subscribe("s-0", handler)
        assert b.watch_mode == "change_stream"
        publisher = threading.Thread(target=flow)
        publisher.start()
        later = [f"s-{k}" for k in range(1, 6)]
        during = 0
        for session in later:
            before = len(sent)
            b.subscribe(session, handler)  # the stream is reopened with the new session before this returns
            during += len(sent) - before
            a.publish(_signal(session, 1))
        _wait(lambda: len(sent) >= 50, "the publisher")
        stop.set()
        publisher.join()
        expected = {("s-0", n) for n in sent} | {(s, 1) for s in later}
        _wait(lambda: set(got) >= expected, "every signal")
        time.sleep(0.3)
        assert set(got) == expected and set(got.values()) == {1}, "a signal was lost or delivered twice"
        assert during > 0  # signals were published while the stream was being reopened
    finally:
        a.close()
        b.close()


def test_a_node_decodes_only_the_signals_of_its_own_sessions(signals_db: Any) -> None:
    collection = signals_db["conversation_signals"]
    a = MongoSessionSignalBus(collection, "node-a")
    b = MongoSessionSignalBus(collection, "node-b")
    seen: list[str] = []
    dispatch = b._dispatch

    def counted(document: dict[str, Any]) -> None:
        seen.append(document["conversationId"])
        dispatch(document)

    b._dispatch = counted  # type: ignore[method-assign]
    received: list[int] = []
    try:
        subscription = b.subscribe("mine", lambda s: received.append(int(s.payload["n"])))  # type: ignore[arg-type]
        b.subscribe("also-mine", lambda s: None)
        for n in range(20):
            a.publish(_signal(f"other-{n}", n))
        a.publish(_signal("mine", 1))
        _wait(lambda: received == [1], "the subscribed session's signal")
        assert seen == ["mine"], "signals of sessions this node does not subscribe to reached it"
        subscription.unsubscribe()
        _wait(lambda: b.driver.filtered == frozenset({"also-mine"}), "the stream reopened without the session")
        a.publish(_signal("mine", 2))
        a.publish(_signal("also-mine", 3))
        _wait(lambda: seen == ["mine", "also-mine"], "the remaining session's signal")
    finally:
        a.close()
        b.close()


async def test_async_subscribe_of_a_new_session_reopens_before_returning(changestream_uri: str) -> None:
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(changestream_uri, tz_aware=True)
    name = f"t_{uuid.uuid4().hex[:16]}"
    sync_client: MongoClient[dict[str, Any]] = MongoClient(changestream_uri, tz_aware=True)
    ensure_schema(sync_client[name])
    a = AsyncMongoSessionSignalBus(client[name]["conversation_signals"], "node-a")
    b = AsyncMongoSessionSignalBus(client[name]["conversation_signals"], "node-b")
    got: list[tuple[str, int]] = []

    async def handler(signal: SessionSignal) -> None:
        got.append((signal.session_id, int(signal.payload["n"])))  # type: ignore[arg-type]

    try:
        await b.subscribe("first", handler)
        for k in range(5):
            await b.subscribe(f"next-{k}", handler)
            await a.publish(_signal(f"next-{k}", k))  # published right after subscribe returned
        deadline = time.monotonic() + WAIT
        while len(got) < 5 and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert sorted(got) == [(f"next-{k}", k) for k in range(5)]
    finally:
        await a.close()
        await b.close()
        await client.drop_database(name)
        await client.close()
        sync_client.close()
