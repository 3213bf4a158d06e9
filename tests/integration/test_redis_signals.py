"""Redis signal bus: wire format on both channels, signals from other builds, re-subscription after the
pub/sub connection is killed, and the declared at-most-once delivery."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import redis

from aimon_mongo.model import SignalKind
from tests.conformance.helpers import Recorder, signal, wait_until


def _next_message(pubsub: Any, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2)
        if got is not None:
            return got  # type: ignore[no-any-return]
    raise AssertionError("no message arrived")


async def test_wire_format_and_channels(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    assert node.signals.delivers_missed_signals is False
    pubsub = redis_client.pubsub()
    pubsub.subscribe(f"{root}:aimon:conv:control:s-1", f"{root}:aimon:conv:events:s-1")
    try:
        await node.signals.publish(signal("s-1", "node-a", SignalKind.INTERRUPT, reason="USER_SIGINT"))
        control = _next_message(pubsub)
        assert control["channel"] == f"{root}:aimon:conv:control:s-1".encode()
        assert control["data"] == (
            b'{"conversationId":"s-1","kind":"INTERRUPT","originNodeId":"node-a","payload":{"reason":"USER_SIGINT"}}'
        )
        for kind in (SignalKind.EVENT, SignalKind.STATUS):
            await node.signals.publish(signal("s-1", "node-a", kind))
            assert _next_message(pubsub)["channel"] == f"{root}:aimon:conv:events:s-1".encode()
        for kind in (SignalKind.EVICT, SignalKind.YIELD, SignalKind.MESSAGE_ENQUEUED, SignalKind.TURN_RESULT):
            await node.signals.publish(signal("s-1", "node-a", kind))
            assert _next_message(pubsub)["channel"] == f"{root}:aimon:conv:control:s-1".encode()
    finally:
        pubsub.close()


async def test_signals_published_by_other_builds_are_delivered(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    received = Recorder()
    await node.signals.subscribe("s-1", received.handle)
    reference = {"conversationId": "s-1", "kind": "EVICT", "originNodeId": "ref", "payload": {"reason": "X", "n": 7}}
    redis_client.publish(f"{redis_cluster.root}:aimon:conv:control:s-1", json.dumps(reference))
    redis_client.publish(f"{redis_cluster.root}:aimon:conv:control:s-1", b"not json")  # dropped with a WARN
    redis_client.publish(f"{redis_cluster.root}:aimon:conv:events:s-1", json.dumps({**reference, "kind": "NEW_KIND"}))
    redis_client.publish(f"{redis_cluster.root}:aimon:conv:events:s-1", json.dumps({**reference, "payload": {"n": 8}}))
    await wait_until(lambda: received.markers() == [7, 8], "the two decodable signals")
    assert received.received[0].kind is SignalKind.EVICT


def _pubsub_client_ids(client: redis.Redis) -> set[int]:
    return {int(c["id"]) for c in client.client_list() if int(c.get("sub", 0)) > 0}


async def test_subscriber_resubscribes_after_its_connection_is_killed(
    redis_cluster: Any, redis_client: redis.Redis
) -> None:
    a, b = await redis_cluster.node("node-a"), await redis_cluster.node("node-b")
    before = _pubsub_client_ids(redis_client)
    received = Recorder()
    await b.signals.subscribe("s-1", received.handle)
    ours = _pubsub_client_ids(redis_client) - before
    assert len(ours) == 1
    redis_client.client_kill_filter(_id=ours.pop())
    # At-most-once while disconnected: keep publishing until one published after the reconnect arrives.
    deadline = time.monotonic() + 20
    n = 0
    while not received.received:
        assert time.monotonic() < deadline, "the subscriber never came back"
        n += 1
        await a.signals.publish(signal("s-1", "node-a", n=n))
        await asyncio.sleep(0.2)
    assert received.markers()[-1] <= n
