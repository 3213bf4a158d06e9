"""The opt-in Redis Cluster layout on a real 3-primary cluster (issue 17, item 3).

What the conformance families ``redis-cluster-*`` cannot show by passing: the stored key literals of the
cluster layout, that a session's keys share one slot while sessions spread over every primary (so the
scans really walk all of them), that signals travel on sharded channels, and that a ``RedisCluster``
client is refused with the frozen layout.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis
import redis.asyncio.cluster
import redis.cluster

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model import IdempotencyEntry, IdempotencyStatus, Priority, SessionSignal, SignalKind
from aimon_mongo.redis import (
    AsyncRedisSessionBackends,
    RedisKeyPrefixes,
    RedisKeys,
    RedisSessionBackends,
)
from tests.conformance.helpers import message, new_id
from tests.conformance.test_records import segment
from tests.fixtures.redis import new_root
from tests.fixtures.redis_cluster import delete_cluster_namespace

ODD_IDS = ("s-1", "a}b", "}x", "{y}", "a{b}c", "")
"""Session ids whose braces would end or empty a naive hash tag ("" stands for a generated plain id)."""


@pytest.fixture
def root(redis_cluster_nodes: Any) -> Iterator[str]:
    name = new_root()
    yield name
    delete_cluster_namespace(redis_cluster_nodes.ports, name)


@pytest.fixture
def cluster_client(redis_cluster_nodes: Any) -> Iterator[redis.cluster.RedisCluster]:
    client = redis.cluster.RedisCluster(host="127.0.0.1", port=redis_cluster_nodes.ports[0])
    yield client
    client.close()


@pytest.fixture
def node(cluster_client: redis.cluster.RedisCluster, root: str) -> Iterator[RedisSessionBackends]:
    bundle = RedisSessionBackends(cluster_client, "node-a", RedisKeyPrefixes().under(root), cluster_layout=True)
    yield bundle
    bundle.close()


def test_cluster_layout_key_literals() -> None:
    keys = RedisKeys(cluster=True)
    assert keys.inbox_stream("s-1", Priority.NOW) == "aimon:inbox:{s:s-1}:NOW"
    assert keys.inbox_streams("s-1") == [
        "aimon:inbox:{s:s-1}:NOW",
        "aimon:inbox:{s:s-1}:NEXT",
        "aimon:inbox:{s:s-1}:LATER",
    ]
    assert keys.quarantine("s-1") == "aimon:inbox:{s:s-1}:quarantine"
    assert keys.claims("s-1") == "aimon:inbox:{s:s-1}:claims"
    assert keys.lock("s-1") == "aimon:conv:lock:{s:s-1}"
    assert keys.lock_fence("s-1") == "aimon:conv:lock:fence:{s:s-1}"
    assert keys.control_channel("s-1") == "aimon:conv:control:{s:s-1}"
    assert keys.events_channel("s-1") == "aimon:conv:events:{s:s-1}"
    assert keys.record("s-1") == "aimon:session:record:{s:s-1}"
    assert keys.segment_data("s-1") == "aimon:session:segment:{s:s-1}:data"
    assert keys.write_fence("s-1") == "aimon:session:fence:{s:s-1}"
    assert keys.idempotency("k-1") == "aimon:conv:idem:k-1"
    assert keys.task("t-1") == "aimon:subagent:task:{tasks}:t-1"
    assert keys.task_index() == "aimon:subagent:task:{tasks}:index"
    # and the default stays the frozen layout
    assert RedisKeys().lock("s-1") == "aimon:conv:lock:s-1"
    for sid in ("s-1", "a}b", "}x"):
        assert keys.session_of_record(keys.record(sid)) == sid
        assert keys.session_of_quarantine(keys.quarantine(sid)) == sid
        assert keys.session_of_channel(keys.events_channel(sid)) == sid
    assert keys.session_of_record("aimon:session:record:s-1") is None  # a frozen-layout key is not ours


def test_cluster_layout_refuses_prefixes_with_braces() -> None:
    with pytest.raises(InvalidArgumentError, match=r"key_prefixes\.inbox.*'x\{y'"):
        RedisKeys(RedisKeyPrefixes(inbox="x{y"), cluster=True)
    with pytest.raises(InvalidArgumentError, match="cluster must be a bool"):
        RedisKeys(cluster="yes")  # type: ignore[arg-type]


def test_every_key_of_a_session_shares_one_slot(cluster_client: redis.cluster.RedisCluster) -> None:
    keys = RedisKeys(RedisKeyPrefixes().under("t0"), cluster=True)
    for sid in ODD_IDS:
        sid = sid or new_id("s")
        session_keys = [
            *keys.inbox_streams(sid),
            keys.quarantine(sid),
            keys.lock(sid),
            keys.lock_fence(sid),
            keys.control_channel(sid),
            keys.events_channel(sid),
            keys.record(sid),
            keys.segment_data(sid),
            keys.segment_created(sid),
            keys.write_fence(sid),
        ]
        slots = {cluster_client.keyslot(key) for key in session_keys}
        assert len(slots) == 1, (sid, slots)
    assert cluster_client.keyslot(keys.task("t-1")) == cluster_client.keyslot(keys.task_index())
    frozen = RedisKeys()
    assert cluster_client.keyslot(frozen.lock("s-1")) != cluster_client.keyslot(frozen.lock_fence("s-1"))


def test_a_cluster_client_needs_the_cluster_layout(
    cluster_client: redis.cluster.RedisCluster, redis_cluster_nodes: Any
) -> None:
    with pytest.raises(InvalidArgumentError, match="cluster_layout=True"):
        RedisSessionBackends(cluster_client, "node-a")
    async_client = redis.asyncio.cluster.RedisCluster(host="127.0.0.1", port=redis_cluster_nodes.ports[0])
    with pytest.raises(InvalidArgumentError, match="cluster_layout=True"):
        AsyncRedisSessionBackends(async_client, "node-a")


def test_scans_walk_every_primary(node: RedisSessionBackends, cluster_client: redis.cluster.RedisCluster) -> None:
    sessions = [new_id("s") for _ in range(24)]
    old = datetime(2020, 1, 1, tzinfo=UTC)
    for sid in sessions:
        lease = node.leases.try_acquire(sid, "node-a", timedelta(seconds=30))
        assert lease is not None
        node.records.merge_transcript(sid, "t", lease.fencing_token)
        node.segments.put(segment(sid, "g1", timedelta(hours=-1)), lease.fencing_token)
        node.idempotency.put_if_absent(
            IdempotencyEntry(
                key=f"k-{sid}", session_id=sid, input_hash="h", status=IdempotencyStatus.IN_FLIGHT,
                holder_id="node-a", created_at=old, last_touched_at=old,
            ),
            timedelta(seconds=60),
        )  # fmt: skip
    owners = {cluster_client.get_node_from_key(node.keys.record(sid)).name for sid in sessions}
    assert len(owners) == 3  # the sessions live on all three primaries

    assert set(sessions) <= set(node.records.list_session_ids())
    seen: list[str] = []
    cursor: str | None = None
    while True:
        page = node.segments.scan_sessions(datetime.now(UTC) - timedelta(minutes=30), cursor, 5)
        seen += page.session_ids
        cursor = page.next_cursor
        if cursor is None:
            break
    assert sorted(seen) == sorted(sessions)  # paged over the three primaries, nothing missed or repeated
    stale = node.idempotency.find_stale_in_flight(datetime.now(UTC), limit=100)
    assert {e.session_id for e in stale} == set(sessions)


def test_quarantine_listing_walks_every_primary(
    node: RedisSessionBackends, cluster_client: redis.cluster.RedisCluster
) -> None:
    sessions = [new_id("q") for _ in range(12)]
    for sid in sessions:
        cluster_client.xadd(node.keys.inbox_stream(sid, Priority.NOW), {"p": b"\xff damaged"})
        assert len(node.inbox.collect(sid).unreadable) == 1
    owners = {cluster_client.get_node_from_key(node.keys.quarantine(sid)).name for sid in sessions}
    assert len(owners) > 1
    assert {q.session_id for q in node.inbox.list_quarantined(limit=100)} == set(sessions)


def _signal(session_id: str) -> SessionSignal:
    return SessionSignal(session_id=session_id, kind=SignalKind.STATUS, origin_node_id="node-a", payload={})


def test_signals_travel_on_sharded_channels(
    node: RedisSessionBackends, cluster_client: redis.cluster.RedisCluster, redis_cluster_nodes: Any, root: str
) -> None:
    sid = new_id("s")
    channel = node.keys.events_channel(sid)
    owner = cluster_client.get_node_from_key(channel)
    other = RedisSessionBackends(cluster_client, "node-b", RedisKeyPrefixes().under(root), cluster_layout=True)
    received: list[SessionSignal] = []
    classic = redis.Redis(host="127.0.0.1", port=redis_cluster_nodes.ports[0]).pubsub()
    try:
        classic.subscribe(channel)  # what a reference-build node listens with
        assert classic.get_message(timeout=5) is not None  # its subscribe confirmation
        other.signals.subscribe(sid, received.append)
        direct = redis.Redis(host=owner.host, port=owner.port)
        try:
            assert direct.execute_command("PUBSUB", "SHARDNUMSUB", channel) == [channel.encode(), 1]
        finally:
            direct.close()
        node.signals.publish(_signal(sid))
        deadline = time.monotonic() + 10
        while not received:
            assert time.monotonic() < deadline, "the sharded signal never arrived"
            time.sleep(0.02)
        assert received[0].session_id == sid
        assert classic.get_message(timeout=0.5) is None  # classic PUBLISH subscribers hear nothing
    finally:
        classic.close()
        other.close()


@pytest.fixture
async def async_node(redis_cluster_nodes: Any, root: str) -> AsyncIterator[AsyncRedisSessionBackends]:
    client = redis.asyncio.cluster.RedisCluster(host="127.0.0.1", port=redis_cluster_nodes.ports[0])
    bundle = AsyncRedisSessionBackends(client, "node-a", RedisKeyPrefixes().under(root), cluster_layout=True)
    yield bundle
    await bundle.close()
    await client.aclose()


async def test_async_cluster_bundle_round_trips_and_lists_every_primary(async_node: AsyncRedisSessionBackends) -> None:
    sessions = [new_id("s") for _ in range(12)]
    for sid in sessions:
        await async_node.inbox.deliver(message(sid, text=sid))
        lease = await async_node.leases.try_acquire(sid, "node-a", timedelta(seconds=30))
        assert lease is not None
        await async_node.records.merge_transcript(sid, "t", lease.fencing_token)
    for sid in sessions:
        [got] = (await async_node.inbox.collect(sid)).messages
        assert got.session_id == sid
    assert set(sessions) <= set(await async_node.records.list_session_ids())


def test_the_cluster_layout_runs_on_a_standalone_server(redis_url: str, redis_root: str) -> None:
    prefixes = RedisKeyPrefixes().under(redis_root)
    a = RedisSessionBackends(redis_url, "node-a", prefixes, cluster_layout=True)
    b = RedisSessionBackends(redis_url, "node-b", prefixes, cluster_layout=True)
    raw = redis.Redis.from_url(redis_url)
    try:
        sid = new_id("s")
        a.inbox.deliver(message(sid, text="x"))
        assert raw.exists(f"{redis_root}:aimon:inbox:{{s:{sid}}}:NEXT") == 1
        [got] = b.inbox.collect(sid).messages
        assert got.session_id == sid
        lease = a.leases.try_acquire(sid, "node-a", timedelta(seconds=30))
        assert lease is not None and raw.get(f"{redis_root}:aimon:conv:lock:{{s:{sid}}}") is not None
        received: list[SessionSignal] = []
        b.signals.subscribe(sid, received.append)
        channel = f"{redis_root}:aimon:conv:events:{{s:{sid}}}"
        assert raw.execute_command("PUBSUB", "SHARDNUMSUB", channel) == [channel.encode(), 1]
        a.signals.publish(_signal(sid))
        deadline = time.monotonic() + 10
        while not received:
            assert time.monotonic() < deadline, "the sharded signal never arrived"
            time.sleep(0.02)
        assert received[0].session_id == sid
    finally:
        raw.close()
        a.close()
        b.close()
