"""Redis failover without a reissued fencing token: a real primary and replica on loopback (issue 17, item 4).

Each round is the partition-and-promote sequence of the issue:

1. a lease is acquired and released on the primary and reaches the replica (its counter matches);
2. the replica is cut off (``REPLICAOF`` a port nobody listens on), the partition Sentinel fails over on;
3. ``try_acquire`` for holder B is acknowledged by the primary (the replica never sees it);
4. the primary is killed (SIGKILL) and the replica promoted (``REPLICAOF NO ONE``);
5. ``try_acquire`` for holder C on the promoted replica succeeds (B's 60 s lease was lost with the
   primary); its token must be higher than B's, or two live holders share one token and both pass the
   write fence.

A fresh replica of the promoted server makes the next round's pair. The bundle's hybrid tokens
(``max(counter + 1, TIME ms x 1024)``) never reissue; a reference-build node, which only ``INCR`` s the
same counter, reissues in every round (the control: it proves the test can see a reissue).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
import redis

from aimon_mongo.redis import RedisKeys, RedisSessionBackends
from aimon_mongo.standin import free_port
from tests.conformance.helpers import new_id
from tests.reliability.servers import PrivateRedis

TTL = timedelta(seconds=60)
SYNC_TIMEOUT = 30.0
FAST_SYNC = ("--repl-diskless-sync-delay", "0")
"""A primary starts the full sync of a new replica at once (the default waits 5 s for more replicas)."""

REFERENCE_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'NX', 'PX', ARGV[2])
return token
"""
"""A reference-build node's acquisition (reference §4.3: ``INCR`` the counter, then ``SET NX PX``)."""

Acquire = Callable[[str, str, str], int]
"""``acquire(url, session_id, holder)`` -> the token issued (0: refused)."""


def _bundle_acquire(url: str, session_id: str, holder: str) -> int:
    node = RedisSessionBackends(url, holder)
    try:
        lease = node.leases.try_acquire(session_id, holder, TTL)
        return 0 if lease is None else lease.fencing_token
    finally:
        node.close()


def _reference_acquire(url: str, session_id: str, holder: str) -> int:
    keys = RedisKeys()
    client = redis.Redis.from_url(url)
    try:
        token = client.eval(REFERENCE_ACQUIRE, 2, keys.lock(session_id), keys.lock_fence(session_id), holder, 60000)
        return int(token)  # type: ignore[arg-type]
    finally:
        client.close()


def _client(server: PrivateRedis) -> redis.Redis:
    return redis.Redis(host="127.0.0.1", port=server.port, socket_connect_timeout=5, socket_timeout=10)


def _wait_synced(replica: PrivateRedis) -> None:
    client = _client(replica)
    try:
        deadline = time.monotonic() + SYNC_TIMEOUT
        while client.info("replication").get("master_link_status") != "up":
            assert time.monotonic() < deadline, f"replica on port {replica.port} never synced"
            time.sleep(0.05)
    finally:
        client.close()


@pytest.fixture
def servers() -> Iterator[list[PrivateRedis]]:
    """Every server a test starts (the list grows by one replica per round); all destroyed afterwards."""
    started: list[PrivateRedis] = []
    try:
        yield started
    finally:
        for server in started:
            server.destroy()


def _rounds(servers: list[PrivateRedis], rounds: int, acquire: Acquire) -> tuple[int, int]:
    """Run ``rounds`` partition-and-promote rounds; returns (tokens issued, tokens reissued)."""
    primary = PrivateRedis(extra=FAST_SYNC)
    servers.append(primary)
    primary.start()
    issued = reissued = 0
    for _ in range(rounds):
        replica = PrivateRedis(replica_of=primary.port, extra=FAST_SYNC)
        servers.append(replica)
        replica.start()
        _wait_synced(replica)
        session = new_id("s")
        node = RedisSessionBackends(primary.url, "node-a")
        try:
            warm = node.leases.try_acquire(session, "node-a", TTL)
            assert warm is not None
            node.leases.release(warm)
        finally:
            node.close()
        to_primary, to_replica = _client(primary), _client(replica)
        try:
            fence = RedisKeys().lock_fence(session)
            deadline = time.monotonic() + SYNC_TIMEOUT
            while to_replica.get(fence) != to_primary.get(fence):  # the warm-up reached the replica
                assert time.monotonic() < deadline, "the warm-up never reached the replica"
                time.sleep(0.01)
            to_replica.replicaof("127.0.0.1", free_port())  # cut off: its primary is now a dead port
            held_by_b = acquire(primary.url, session, "node-b")  # acknowledged by the primary alone
            assert held_by_b > 0
            primary.kill()
            to_replica.replicaof("NO", "ONE")
        finally:
            to_primary.close()
            to_replica.close()
        held_by_c = acquire(replica.url, session, "node-c")
        assert held_by_c > 0  # B's 60 s lease is not there: the promoted replica lost B's acquisition
        issued += 2
        reissued += held_by_c <= held_by_b
        primary = replica
    return issued, reissued


@pytest.mark.parametrize(
    ("scenario", "acquire", "ci", "full"),
    [
        pytest.param("failover", _bundle_acquire, 3, 25, id="hybrid-tokens"),
        pytest.param("failover-reference-incr", _reference_acquire, 2, 10, id="reference-incr-control"),
    ],
)
def test_partition_and_promote_rounds(
    servers: list[PrivateRedis],
    sizes: Any,
    reliability_counts: Any,
    scenario: str,
    acquire: Acquire,
    ci: int,
    full: int,
) -> None:
    """The bundle's tokens are never reissued; the reference's INCR-only token is reissued in every round."""
    rounds = sizes.pick(ci=ci, full=full)
    issued, reissued = _rounds(servers, rounds, acquire)
    reliability_counts.add(scenario, "redis", promotions=rounds, tokens=issued, reissued=reissued)
    assert reissued == (0 if acquire is _bundle_acquire else rounds)
