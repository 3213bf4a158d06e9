"""Signal drivers: the feed hands every signal of a followed session published by another node to its
``deliver`` exactly once, in each publisher's order, however many nodes publish at the same time; and the
bus over it keeps sessions apart (real servers, real concurrency)."""

from __future__ import annotations

import asyncio
import inspect
import threading
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from pymongo import AsyncMongoClient

from aimon_mongo._async.mongo.signals import AsyncMongoSessionSignalBus
from aimon_mongo.model import SessionSignal, SignalKind
from aimon_mongo.mongo import ensure_schema_async
from tests.conformance.backends import AsyncFacade
from tests.conformance.helpers import Recorder, new_id, signal, wait_until
from tests.drivers.conftest import driver_of

PUBLISHERS = 4
SINGLE = 8
"""Signals each publisher sends one by one to each session (``publish``)."""
BATCH = 12
"""Signals each publisher sends to each session in one ``publish_many``."""


async def _value(result: Any) -> Any:
    """A driver call's result for both flavours (the sync driver comes wrapped, its calls awaited)."""
    return await result if inspect.isawaitable(result) else result


def _recording_deliver(store: Any, fed: list[Any]) -> Callable[[Any], Any]:
    """A ``deliver`` of the flavour ``store`` has that appends each raw signal to ``fed``."""
    lock = threading.Lock()
    if isinstance(store, AsyncFacade):

        def record(raw: Any) -> None:
            with lock:
                fed.append(raw)

        return record

    async def record_async(raw: Any) -> None:
        fed.append(raw)

    return record_async


class _Feed:
    """One follower node's feed, started on the driver itself (the bus above it stays unstarted) and stepped
    here the way the bus's watcher steps it (a task, or a thread for the sync flavour)."""

    def __init__(self, node: Any) -> None:
        self.driver = driver_of(node.signals)
        self.raw: list[Any] = []
        self._store = node.signals
        self._deliver = _recording_deliver(node.signals, self.raw)
        self._stop_async = asyncio.Event()
        self._stop_sync = threading.Event()
        self._runner: Any = None

    async def start(self, sessions: list[str]) -> None:
        for session in sessions:
            await self.driver.follow(session)
        await self.driver.start(self._deliver, lambda: list(sessions))
        if isinstance(self._store, AsyncFacade):
            watch = self._store.unwrapped.driver.watch
            if watch is not None:
                self._runner = threading.Thread(target=self._step_sync, args=(watch,), daemon=True)
                self._runner.start()
        elif self.driver.watch is not None:
            self._runner = asyncio.get_running_loop().create_task(self._step_async(self.driver.watch))
        for session in sessions:
            assert await self.driver.confirmed(session, 10.0), f"the feed did not take session {session}"

    def _step_sync(self, watch: Any) -> None:
        while not self._stop_sync.is_set():
            try:
                watch.step(self._stop_sync)
            except Exception as exc:
                watch.recover(exc)
                self._stop_sync.wait(watch.retry_backoff)

    async def _step_async(self, watch: Any) -> None:
        while not self._stop_async.is_set():
            try:
                await watch.step(self._stop_async)
            except Exception as exc:
                await watch.recover(exc)
                await asyncio.sleep(watch.retry_backoff)

    async def signals(self) -> list[SessionSignal]:
        return [await _value(self.driver.decode(raw)) for raw in list(self.raw)]

    async def stop(self) -> None:
        self._stop_sync.set()
        self._stop_async.set()
        if isinstance(self._runner, threading.Thread):
            await asyncio.to_thread(self._runner.join, 10.0)
        elif self._runner is not None:
            await self._runner
        await self.driver.stop()


async def _publish_from(node: Any, sessions: list[str]) -> None:
    """One publisher: per session, SINGLE signals one by one, then BATCH in one ``publish_many``."""
    driver = driver_of(node.signals)
    origin = node.signals.node_id
    for session in sessions:
        for n in range(SINGLE):
            await driver.publish(await _value(driver.encode(signal(session, origin, SignalKind.EVENT, n=n))))
        batch = [signal(session, origin, SignalKind.STATUS, n=SINGLE + k) for k in range(BATCH)]
        await driver.publish_many([await _value(driver.encode(s)) for s in batch])


async def test_concurrent_publishers_feed_every_signal_once_to_each_follower_in_publisher_order(
    cluster: Any,
) -> None:
    followers = [await cluster.node(f"follower-{i}") for i in range(2)]
    publishers = [await cluster.node(f"publisher-{i}") for i in range(PUBLISHERS)]
    sessions = [new_id("fed") for _ in range(3)]
    feeds = [_Feed(follower) for follower in followers]
    try:
        for feed in feeds:
            await feed.start(sessions)
        await asyncio.gather(*(_publish_from(publisher, sessions) for publisher in publishers))
        per_follower = PUBLISHERS * len(sessions) * (SINGLE + BATCH)
        for feed in feeds:
            await wait_until(lambda feed=feed: len(feed.raw) >= per_follower, "every signal at every follower")
        await asyncio.sleep(0.5)  # a repeated signal would arrive now
        each = range(SINGLE + BATCH)
        expected = Counter((s, f"publisher-{p}", n) for s in sessions for p in range(PUBLISHERS) for n in each)
        for feed in feeds:
            got = [s for s in await feed.signals() if s.session_id in sessions]
            assert Counter((s.session_id, s.origin_node_id, s.payload["n"]) for s in got) == expected
            for session in sessions:
                for p in range(PUBLISHERS):
                    source = (session, f"publisher-{p}")
                    order = [s.payload["n"] for s in got if (s.session_id, s.origin_node_id) == source]
                    assert order == list(each), source
    finally:
        for feed in feeds:
            await feed.stop()


async def test_a_stopped_feed_hands_on_nothing_more(cluster: Any) -> None:
    follower, other = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id("stopped")
    feed = _Feed(follower)
    publisher = driver_of(other.signals)
    try:
        await feed.start([session])
        await publisher.publish(await _value(publisher.encode(signal(session, "node-b", n=1))))
        await wait_until(lambda: len(feed.raw) == 1, "the signal published before stop")
    finally:
        await feed.stop()
    await publisher.publish(await _value(publisher.encode(signal(session, "node-b", n=2))))
    await publisher.publish_many([await _value(publisher.encode(signal(session, "node-b", n=3)))])
    await asyncio.sleep(0.5)
    assert [s.payload["n"] for s in await feed.signals()] == [1]


async def test_concurrent_publishers_reach_only_the_handlers_of_their_session(cluster: Any) -> None:
    nodes = [await cluster.node(f"node-{i}") for i in range(3)]
    sessions = [new_id("apart") for _ in range(3)]
    recorders = {(i, s): Recorder() for i in range(len(nodes)) for s in sessions}
    for (i, s), recorder in recorders.items():
        await nodes[i].signals.subscribe(s, recorder.handle)

    async def publish(i: int) -> None:
        for s in sessions:
            await nodes[i].signals.publish_all([signal(s, f"node-{i}", n=n) for n in range(5)])
            await nodes[i].signals.publish(signal(s, f"node-{i}", n=5))

    await asyncio.gather(*(publish(i) for i in range(len(nodes))))
    each = (len(nodes) - 1) * 6
    await wait_until(lambda: all(len(r.received) >= each for r in recorders.values()), "every handler")
    await asyncio.sleep(0.3)
    for (i, s), recorder in recorders.items():
        got = Counter((r.session_id, r.origin_node_id, r.payload["n"]) for r in recorder.received)
        assert got == Counter((s, f"node-{j}", n) for j in range(len(nodes)) if j != i for n in range(6)), (i, s)


@pytest.mark.changestream
async def test_change_stream_feed_takes_concurrent_publishers_and_new_sessions_exactly_once(
    changestream_uri: str,
) -> None:
    """The MongoDB change-stream feed (SecantusDB): publishers race while the follower follows a new session
    (a reopen from the resume token each time); every signal of a followed session is fed once."""
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(changestream_uri, tz_aware=True)
    name = f"t_{uuid.uuid4().hex[:16]}"
    await ensure_schema_async(client[name])
    collection = client[name]["conversation_signals"]
    follower = AsyncMongoSessionSignalBus(collection, "follower", mode="change_stream")
    publishers = [AsyncMongoSessionSignalBus(collection, f"publisher-{p}") for p in range(PUBLISHERS)]
    sessions = [new_id("cs") for _ in range(3)]
    fed: list[Any] = []

    async def deliver(raw: Any) -> None:
        fed.append(raw)

    driver = follower.driver
    followed = sessions[:1]
    stopping = asyncio.Event()

    async def watcher() -> None:
        while not stopping.is_set():
            await driver.watch.step(stopping)

    stepping: asyncio.Task[None] | None = None
    try:
        await driver.follow(sessions[0])
        await driver.start(deliver, lambda: followed)
        stepping = asyncio.get_running_loop().create_task(watcher())
        assert await driver.confirmed(sessions[0], 10.0)
        racing = asyncio.gather(*(_publish_from_bus(bus, sessions[:1]) for bus in publishers))
        for session in sessions[1:]:
            followed = [*followed, session]
            await driver.follow(session)
            assert await driver.confirmed(session, 10.0)
        await racing
        await asyncio.gather(*(_publish_from_bus(bus, sessions[1:]) for bus in publishers))
        total = PUBLISHERS * len(sessions) * (SINGLE + BATCH)
        await wait_until(lambda: len(fed) >= total, "every signal")
        await asyncio.sleep(0.5)
        got = Counter((d["conversationId"], d["originNodeId"], d["payload"]["n"]) for d in fed)
        assert got == Counter(
            (s, f"publisher-{p}", n) for s in sessions for p in range(PUBLISHERS) for n in range(SINGLE + BATCH)
        )
    finally:
        stopping.set()
        if stepping is not None:
            await stepping
        await driver.stop()
        await client.drop_database(name)
        await client.close()


async def _publish_from_bus(bus: Any, sessions: list[str]) -> None:
    for session in sessions:
        for n in range(SINGLE):
            await bus.publish(signal(session, bus.node_id, SignalKind.EVENT, n=n))
        await bus.publish_all([signal(session, bus.node_id, SignalKind.STATUS, n=SINGLE + k) for k in range(BATCH)])
