"""Signal delivery latency: publish on node A until node B's handler runs.

``python -m benchmarks.signal_latency [--signals N] [--only mongo|redis-cluster]`` starts SecantusDB
(change streams) and mongoeco (a standalone: the polling fallback, every 50 ms) on loopback, and a private
3-primary Redis Cluster (sharded pub/sub, node B subscribed to 12 sessions spread over the 3 shards), sends
N signals one after another and prints the median, 95th percentile and maximum. On the Redis Cluster it
also sends 30 signals 100 ms apart (B's watcher idle in between), times a burst (300 signals in one
``publish_all`` until B handled the last) and measures the watching process's CPU while idle. Figures are
indicative only (a shared 2-core machine); docs/guarantees.md states the bounds.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
import uuid
from typing import Any

import redis.cluster
from pymongo import MongoClient

from aimon_mongo._sync.mongo.signals import MongoSessionSignalBus, WatchMode
from aimon_mongo.model import SessionSignal, SignalKind
from aimon_mongo.mongo import ensure_schema
from aimon_mongo.redis import RedisKeyPrefixes, RedisSessionBackends
from aimon_mongo.testing import serve_standin
from tests.reliability.servers import PrivateRedisCluster

CLUSTER_SESSIONS = 12
BURST = 300
IDLE_SECONDS = 3.0
SPARSE_SIGNALS = 30
SPARSE_GAP = 0.1


def measure(uri: str, mode: WatchMode, count: int) -> list[float]:
    """Seconds from ``publish`` starting to the handler running, per signal (``count`` signals)."""
    client: MongoClient[dict[str, Any]] = MongoClient(uri, tz_aware=True)
    name = f"bench_{uuid.uuid4().hex[:12]}"
    ensure_schema(client[name])
    a = MongoSessionSignalBus(client[name]["conversation_signals"], "node-a", mode=mode)
    b = MongoSessionSignalBus(client[name]["conversation_signals"], "node-b", mode=mode)
    arrived = threading.Event()
    b.subscribe("s-1", lambda signal: arrived.set())
    latencies: list[float] = []
    try:
        for n in range(count):
            arrived.clear()
            start = time.perf_counter()
            a.publish(SessionSignal(session_id="s-1", kind=SignalKind.EVENT, origin_node_id="node-a", payload={"n": n}))
            if not arrived.wait(10.0):
                raise RuntimeError(f"signal {n} not delivered within 10 s ({mode})")
            latencies.append(time.perf_counter() - start)
    finally:
        a.close()
        b.close()
        client.drop_database(name)
        client.close()
    return latencies


def measure_redis_cluster(ports: list[int], count: int) -> dict[str, Any]:
    """On the Redis Cluster at ``ports`` (cluster key layout, sync bundles), to sessions on every shard:
    seconds per signal published one after another (``back_to_back``) and with :data:`SPARSE_GAP` seconds
    between them (``sparse``, the watcher idle in between), seconds for a burst of :data:`BURST` signals in
    one ``publish_all``, and the CPU share of this process while B's watcher is idle."""
    clients = [redis.cluster.RedisCluster(host="127.0.0.1", port=ports[0]) for _ in range(2)]
    prefixes = RedisKeyPrefixes().under(f"bench-{uuid.uuid4().hex[:8]}")
    a = RedisSessionBackends(clients[0], "node-a", prefixes, cluster_layout=True)
    b = RedisSessionBackends(clients[1], "node-b", prefixes, cluster_layout=True)
    handled: dict[int, float] = {}
    lock = threading.Condition()
    sent = 0

    def handler(signal: SessionSignal) -> None:
        with lock:
            handled[int(signal.payload["n"])] = time.perf_counter()  # type: ignore[arg-type]
            lock.notify_all()

    def publish(how_many: int) -> list[float]:
        """Publish ``how_many`` signals in one call (one ``publish`` or one ``publish_all``); seconds from the
        call until each was handled."""
        nonlocal sent
        numbers = range(sent, sent + how_many)
        sent += how_many
        batch = [
            SessionSignal(session_id=f"s-{n % CLUSTER_SESSIONS}", kind=SignalKind.EVENT, origin_node_id="node-a",
                          payload={"n": n})
            for n in numbers
        ]  # fmt: skip
        start = time.perf_counter()
        a.signals.publish(batch[0]) if how_many == 1 else a.signals.publish_all(batch)
        with lock:
            if not lock.wait_for(lambda: all(n in handled for n in numbers), 120.0):
                raise RuntimeError(f"signals {numbers} not all delivered within 120 s (Redis Cluster)")
        return [handled[n] - start for n in numbers]

    try:
        for k in range(CLUSTER_SESSIONS):
            b.signals.subscribe(f"s-{k}", handler)
        back_to_back = [publish(1)[0] for _ in range(count)]
        sparse = []
        for _ in range(SPARSE_SIGNALS):
            time.sleep(SPARSE_GAP)
            sparse.append(publish(1)[0])
        cpu, wall = time.process_time(), time.perf_counter()
        time.sleep(IDLE_SECONDS)
        idle = (time.process_time() - cpu) / (time.perf_counter() - wall)
        burst = max(publish(BURST))
    finally:
        a.close()
        b.close()
        for client in clients:
            client.close()
    return {"back_to_back": back_to_back, "sparse": sparse, "burst": burst, "idle": idle}


def _report(label: str, seconds: list[float]) -> None:
    ms = sorted(1000 * s for s in seconds)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    print(f"{label:36}: median {statistics.median(ms):6.1f} ms  p95 {p95:6.1f} ms  max {ms[-1]:6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--signals", type=int, default=200)
    parser.add_argument("--only", choices=("mongo", "redis-cluster"), default=None)
    args = parser.parse_args()
    if args.only in (None, "mongo"):
        for kind, mode in (("secantus", "change_stream"), ("mongoeco", "poll")):
            server = serve_standin(kind)  # type: ignore[arg-type]
            uri = next(server)
            try:
                _report(f"{mode} ({kind})", measure(uri, mode, args.signals))  # type: ignore[arg-type]
            finally:
                server.close()
    if args.only in (None, "redis-cluster"):
        cluster = PrivateRedisCluster(primaries=3)
        try:
            cluster.start()
            found = measure_redis_cluster(cluster.ports, args.signals)
        finally:
            cluster.destroy()
        _report("Redis Cluster, back to back", found["back_to_back"])
        _report(f"Redis Cluster, {1000 * SPARSE_GAP:.0f} ms apart", found["sparse"])
        print(f"Redis Cluster: burst of {BURST} in one publish_all {1000 * found['burst']:.0f} ms; "
              f"idle watcher {100 * found['idle']:.1f} % of a core")  # fmt: skip


if __name__ == "__main__":
    main()
