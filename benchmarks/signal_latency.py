"""Signal delivery latency on the MongoDB stand-ins: publish on node A until node B's handler runs.

``python -m benchmarks.signal_latency [--signals N]`` starts SecantusDB (change streams) and mongoeco
(a standalone: the polling fallback, every 50 ms) on loopback, sends N signals one after another and
prints the median, 95th percentile and maximum. Figures are indicative only (a shared 2-core machine);
docs/guarantees.md states the bounds.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
import uuid
from typing import Any

from pymongo import MongoClient

from aimon_mongo.model import SessionSignal, SignalKind
from aimon_mongo.mongo import ensure_schema
from aimon_mongo.mongo._sync.signals import MongoSessionSignalBus, WatchMode
from aimon_mongo.testing import serve_standin


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--signals", type=int, default=200)
    args = parser.parse_args()
    for kind, mode in (("secantus", "change_stream"), ("mongoeco", "poll")):
        server = serve_standin(kind)  # type: ignore[arg-type]
        uri = next(server)
        try:
            ms = sorted(1000 * s for s in measure(uri, mode, args.signals))  # type: ignore[arg-type]
        finally:
            server.close()
        p95 = ms[int(0.95 * (len(ms) - 1))]
        print(f"{mode:13} ({kind}): median {statistics.median(ms):6.1f} ms  p95 {p95:6.1f} ms  max {ms[-1]:6.1f} ms")


if __name__ == "__main__":
    main()
