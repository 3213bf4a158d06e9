"""Signal bus: other nodes receive, the publisher's node does not; unsubscribe; failing handlers; close."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from aimon_mongo.errors import InvalidArgumentError, SignalBusError
from aimon_mongo.model import SignalKind
from tests.conformance.helpers import Recorder, new_id, signal, wait_until


async def test_declared_capabilities(node: Any) -> None:
    assert node.signals.node_id == "node-a"
    assert isinstance(node.signals.delivers_missed_signals, bool)


async def test_other_nodes_receive_and_the_publisher_does_not(cluster: Any) -> None:
    a, b, c = [await cluster.node(n) for n in ("node-a", "node-b", "node-c")]
    session, other_session = new_id(), new_id()
    at_a, at_b, at_c, elsewhere = Recorder(), Recorder(), Recorder(), Recorder()
    await a.signals.subscribe(session, at_a.handle)
    await b.signals.subscribe(session, at_b.handle)
    await c.signals.subscribe(session, at_c.handle)
    await b.signals.subscribe(other_session, elsewhere.handle)

    sent = signal(session, "node-a", SignalKind.INTERRUPT, n=1, reason="USER_SIGINT", nested={"x": [1, "y"]})
    await a.signals.publish(sent)
    await c.signals.publish(signal(session, "node-c", n=2))
    await wait_until(lambda: at_b.markers() == [1, 2], "node-b to receive both signals")
    await wait_until(lambda: at_c.markers() == [1], "node-c to receive node-a's signal")
    await wait_until(lambda: at_a.markers() == [2], "node-a to receive node-c's signal")
    assert at_b.received[0] == sent
    assert at_a.markers() == [2] and at_c.markers() == [1]  # nobody got its own signal
    assert elsewhere.received == []


async def test_publish_all_keeps_order_within_session_and_kind(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    at_b = Recorder()
    await b.signals.subscribe(session, at_b.handle)
    await a.signals.publish_all([signal(session, "node-a", SignalKind.STATUS, n=i) for i in range(20)])
    await wait_until(lambda: len(at_b.received) == 20, "20 signals")
    assert at_b.markers() == list(range(20))
    assert {s.kind for s in at_b.received} == {SignalKind.STATUS}


async def test_unsubscribe_stops_delivery_to_that_handler_only(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    first, second = Recorder(), Recorder()
    subscription = await b.signals.subscribe(session, first.handle)
    await b.signals.subscribe(session, second.handle)
    await a.signals.publish(signal(session, "node-a", n=1))
    await wait_until(lambda: first.markers() == [1] and second.markers() == [1], "both handlers")
    await subscription.unsubscribe()
    await subscription.unsubscribe()  # idempotent
    await a.signals.publish(signal(session, "node-a", n=2))
    await wait_until(lambda: second.markers() == [1, 2], "the remaining handler")
    assert first.markers() == [1]


async def test_a_failing_handler_is_logged_and_keeps_receiving(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    failing, healthy = Recorder(fail=True), Recorder()
    await b.signals.subscribe(session, failing.handle)
    await b.signals.subscribe(session, healthy.handle)
    for n in (1, 2, 3):
        await a.signals.publish(signal(session, "node-a", n=n))
    await wait_until(lambda: healthy.markers() == [1, 2, 3], "the healthy handler")
    await wait_until(lambda: failing.markers() == [1, 2, 3], "the failing handler to keep receiving")


async def test_close_stops_delivery_and_publishing(cluster: Any) -> None:
    a, b, c = [await cluster.node(n) for n in ("node-a", "node-b", "node-c")]
    session = new_id()
    at_b, at_c = Recorder(), Recorder()
    await b.signals.subscribe(session, at_b.handle)
    await c.signals.subscribe(session, at_c.handle)
    await a.signals.publish(signal(session, "node-a", n=1))
    await wait_until(lambda: at_b.markers() == [1] and at_c.markers() == [1], "first signal")
    await b.signals.close()
    await b.signals.close()  # idempotent
    with pytest.raises(SignalBusError):
        await b.signals.publish(signal(session, "node-b", n=9))
    await a.signals.publish(signal(session, "node-a", n=2))
    await wait_until(lambda: at_c.markers() == [1, 2], "node-c to receive the second signal")
    assert at_b.markers() == [1]


async def test_a_handler_that_is_not_callable_and_subscribing_after_close_are_refused(node: Any) -> None:
    session = new_id()
    with pytest.raises(InvalidArgumentError, match="handler must be callable"):
        await node.signals.subscribe(session, "not a handler")
    await node.signals.close()
    with pytest.raises(SignalBusError, match="closed"):
        await node.signals.subscribe(session, Recorder().handle)
    with pytest.raises(SignalBusError, match="closed"):
        await node.signals.publish_all([signal(session, "node-a", n=1)])


async def test_a_handler_may_subscribe_and_unsubscribe_from_inside_a_handler(cluster: Any) -> None:
    """From inside a handler (on the watcher itself) ``subscribe`` and ``unsubscribe`` return without waiting
    for the watcher; the new subscription receives once the watcher took it."""
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    first, second = new_id(), new_id()
    later = Recorder()
    subscriptions: list[Any] = []
    unsubscribed: list[bool] = []

    async def subscribing(received: Any) -> None:
        if received.payload.get("n") == 1:
            subscriptions.append(await b.signals.subscribe(second, later.handle))
        else:
            await subscriptions[0].unsubscribe()
            unsubscribed.append(True)

    await b.signals.subscribe(first, subscribing)
    await a.signals.publish(signal(first, "node-a", n=1))
    await wait_until(lambda: len(subscriptions) == 1, "the handler to subscribe")
    for attempt in range(100):  # the watcher takes the new session after the handler returned
        await a.signals.publish(signal(second, "node-a", n=attempt))
        if later.received:
            break
        await asyncio.sleep(0.1)
    await wait_until(lambda: bool(later.received), "the subscription made inside a handler to receive")
    await a.signals.publish(signal(first, "node-a", n=2))
    await wait_until(lambda: unsubscribed == [True], "the handler to unsubscribe")
    await asyncio.sleep(0.5)  # what was published before the unsubscription may still arrive
    count = len(later.received)
    await a.signals.publish(signal(second, "node-a", n=1000))
    await asyncio.sleep(0.5)
    assert len(later.received) == count and 1000 not in later.markers()
