"""What the failover-safe (hybrid) fencing token costs per Redis lease acquisition.

    python benchmarks/redis_token_cost.py             # 6 rounds of 3,000 acquire+release pairs per side
    python benchmarks/redis_token_cost.py --rounds 2 --pairs 200

Against the Redis server at ``REDIS_URL`` (default ``redis://127.0.0.1:6379/0``), one redis-py client:
``EVALSHA`` of the library's ``lease_acquire`` script (token ``max(counter + 1, TIME ms x 1024)``) then
``lease_release``, against the same acquire script with the clock term switched off (the INCR-only token
of the reference). Rounds are interleaved, the order alternating. Printed: pairs/s per side (median) and
the per-round ratio hybrid / INCR-only (min, median, max). Both sides are one round trip per call: the
difference is the server-side cost of the ``GET`` and the comparison in the script.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid

import redis

from aimon_mongo.redis.lua_scripts import script

HYBRID_TERM = "if (not counter or tonumber(counter)) and floor > (tonumber(counter) or 0) then"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--pairs", type=int, default=3000)
    args = parser.parse_args()
    client = redis.Redis.from_url(os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    hybrid_text = script("lease_acquire").text
    if HYBRID_TERM not in hybrid_text:
        raise SystemExit("lease_acquire.lua no longer has the hybrid term this benchmark switches off")
    shas = {
        "hybrid": client.script_load(hybrid_text),
        "incr-only": client.script_load(hybrid_text.replace(HYBRID_TERM, "if false then")),
    }
    release = client.script_load(script("lease_release").text)
    root = f"bench{uuid.uuid4().hex[:8]}"
    lock, fence, write_fence = f"{root}:lock", f"{root}:fence", f"{root}:write-fence"

    def run(sha: str) -> float:
        client.delete(lock, fence, write_fence)
        start = time.perf_counter()
        for _ in range(args.pairs):
            token, _expires, _ = client.evalsha(sha, 3, lock, fence, write_fence, "h", 30000)  # type: ignore[misc]
            client.evalsha(release, 2, lock, fence, f"h:{token}", token)
        return args.pairs / (time.perf_counter() - start)

    rates: dict[str, list[float]] = {name: [] for name in shas}
    try:
        for i in range(args.rounds):
            order = list(shas) if i % 2 == 0 else list(reversed(shas))
            for name in order:
                rates[name].append(run(shas[name]))
    finally:
        client.delete(lock, fence, write_fence)
        client.close()
    ratios = sorted(h / o for h, o in zip(rates["hybrid"], rates["incr-only"], strict=True))
    for name, values in rates.items():
        print(f"{name:10s} {statistics.median(values):9.0f} acquire+release pairs/s (median of {args.rounds})")
    print(f"hybrid / incr-only per round: min {ratios[0]:.2f}x, median {statistics.median(ratios):.2f}x, "
          f"max {ratios[-1]:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
