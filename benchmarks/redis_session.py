"""Redis session-store benchmark: our stores against raw redis-py sending the same commands.

    python benchmarks/redis_session.py           # full run (a few minutes)
    python benchmarks/redis_session.py --smoke   # tiny sizes, a few seconds, exits 0

Against the Redis server at ``REDIS_URL`` (default ``redis://127.0.0.1:6379/0``), in one run, sync
(``RedisSessionBackends`` vs ``redis.Redis``) and async (``AsyncRedisSessionBackends`` vs
``redis.asyncio.Redis``), one client each:

* **deliver+collect**: 10 ``deliver`` of a text message, then one ``collect`` that returns them. Raw:
  10 ``XADD <stream> * p <envelope>`` and one ``EVALSHA`` of the same collect script over the same keys.
  Two raw baselines: *raw+json* serialises the same envelope object with ``json.dumps`` for each XADD and
  parses each collected entry with ``json.loads`` (what any client storing these documents does, the way
  raw PyMongo encodes BSON); *raw bytes* sends a pre-encoded envelope and parses nothing (a floor: it
  measures the wire alone). Ours adds the shared codec (typed model, validation, the degrade rule).
* **lease acquire+release**: ``try_acquire`` then ``release``. Raw: ``EVALSHA`` of the same two scripts.

Rounds are interleaved (ours, raw, ours, raw ...) and the best round of each counts, so load from other
processes hits all alike. Printed: operations/s (wall clock), client CPU per operation, and the ratio
ours / raw (higher is better; target >= 0.90x against raw+json and raw lease scripts). Keys live under a
fresh ``bench<random>:`` namespace that is deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

import redis
import redis.asyncio
from codec import text_message  # benchmarks/codec.py: this directory is on sys.path when run as a script

from aimon_mongo.codec.inbound import to_json_envelope
from aimon_mongo.model import InboundMessage, Priority
from aimon_mongo.redis import AsyncRedisSessionBackends, RedisKeyPrefixes, RedisKeys, RedisSessionBackends
from aimon_mongo.redis.lua_scripts import script

BATCH = 10
TTL = timedelta(seconds=30)


def message(session_id: str) -> InboundMessage:
    """The codec benchmark's typical routed text turn, in ``session_id``."""
    return text_message().model_copy(update={"session_id": session_id})


@dataclass
class Rate:
    ops_per_s: float
    cpu_us_per_op: float


def _better(old: Rate | None, wall: float, cpu: float, ops: int) -> Rate:
    new = Rate(ops / wall, cpu / ops * 1e6)
    return new if old is None or new.ops_per_s > old.ops_per_s else old


def run_sync(cases: dict[str, Callable[[], None]], ops: int, rounds: int) -> dict[str, Rate]:
    best: dict[str, Rate | None] = dict.fromkeys(cases)
    for _ in range(rounds):
        for name, fn in cases.items():
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(ops):
                fn()
            best[name] = _better(best[name], time.perf_counter() - wall, time.process_time() - cpu, ops)
    return {k: v for k, v in best.items() if v is not None}


async def run_async(cases: dict[str, Callable[[], Awaitable[None]]], ops: int, rounds: int) -> dict[str, Rate]:
    best: dict[str, Rate | None] = dict.fromkeys(cases)
    for _ in range(rounds):
        for name, fn in cases.items():
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(ops):
                await fn()
            best[name] = _better(best[name], time.perf_counter() - wall, time.process_time() - cpu, ops)
    return {k: v for k, v in best.items() if v is not None}


def sync_cases(url: str, prefixes: RedisKeyPrefixes) -> tuple[dict[str, Callable[[], None]], Callable[[], None]]:
    keys = RedisKeys(prefixes)
    ours = RedisSessionBackends(url, "bench-node", prefixes)
    raw = redis.Redis.from_url(url)
    msg = message("bench-ours")
    envelope = to_json_envelope(message("bench-raw"))
    document = json.loads(envelope)
    raw_stream = keys.inbox_stream("bench-raw", Priority.NEXT)
    raw_streams = keys.inbox_streams("bench-raw")
    collect_sha = raw.script_load(script("inbox_collect").text)
    acquire_sha = raw.script_load(script("lease_acquire").text)
    release_sha = raw.script_load(script("lease_release").text)
    lock, fence = keys.lock("bench-raw"), keys.lock_fence("bench-raw")
    ttl_ms = int(TTL.total_seconds() * 1000)

    def ours_inbox() -> None:
        for _ in range(BATCH):
            ours.inbox.deliver(msg)
        assert len(ours.inbox.collect("bench-ours").messages) == BATCH

    def raw_inbox() -> None:
        for _ in range(BATCH):
            raw.xadd(raw_stream, {"p": envelope})
        tiers = raw.evalsha(collect_sha, len(raw_streams), *raw_streams, 1000)
        assert sum(len(t) for t in tiers) == BATCH

    def raw_json_inbox() -> None:
        for _ in range(BATCH):
            raw.xadd(raw_stream, {"p": json.dumps(document, separators=(",", ":"), ensure_ascii=False)})
        tiers = raw.evalsha(collect_sha, len(raw_streams), *raw_streams, 1000)
        assert len([json.loads(fields[1]) for tier in tiers for _id, fields in tier]) == BATCH

    def ours_lease() -> None:
        lease = ours.leases.try_acquire("bench-ours", "bench-node", TTL)
        assert lease is not None
        ours.leases.release(lease)

    def raw_lease() -> None:
        token, _expires = raw.evalsha(acquire_sha, 2, lock, fence, "bench-node", ttl_ms)
        raw.evalsha(release_sha, 2, lock, fence, f"bench-node:{token}", token)

    def close() -> None:
        ours.close()
        raw.close()

    cases = {
        "inbox/ours": ours_inbox,
        "inbox/raw": raw_json_inbox,
        "inbox/raw bytes": raw_inbox,
        "lease/ours": ours_lease,
        "lease/raw": raw_lease,
    }
    return cases, close


async def async_cases(
    url: str, prefixes: RedisKeyPrefixes
) -> tuple[dict[str, Callable[[], Awaitable[None]]], Callable[[], Awaitable[None]]]:
    keys = RedisKeys(prefixes)
    ours = AsyncRedisSessionBackends(url, "bench-node", prefixes)
    raw = redis.asyncio.Redis.from_url(url)
    msg = message("abench-ours")
    envelope = to_json_envelope(message("abench-raw"))
    document = json.loads(envelope)
    raw_stream = keys.inbox_stream("abench-raw", Priority.NEXT)
    raw_streams = keys.inbox_streams("abench-raw")
    collect_sha = await raw.script_load(script("inbox_collect").text)
    acquire_sha = await raw.script_load(script("lease_acquire").text)
    release_sha = await raw.script_load(script("lease_release").text)
    lock, fence = keys.lock("abench-raw"), keys.lock_fence("abench-raw")
    ttl_ms = int(TTL.total_seconds() * 1000)

    async def ours_inbox() -> None:
        for _ in range(BATCH):
            await ours.inbox.deliver(msg)
        assert len((await ours.inbox.collect("abench-ours")).messages) == BATCH

    async def raw_inbox() -> None:
        for _ in range(BATCH):
            await raw.xadd(raw_stream, {"p": envelope})
        tiers = await raw.evalsha(collect_sha, len(raw_streams), *raw_streams, 1000)  # type: ignore[misc]
        assert sum(len(t) for t in tiers) == BATCH

    async def raw_json_inbox() -> None:
        for _ in range(BATCH):
            await raw.xadd(raw_stream, {"p": json.dumps(document, separators=(",", ":"), ensure_ascii=False)})
        tiers = await raw.evalsha(collect_sha, len(raw_streams), *raw_streams, 1000)  # type: ignore[misc]
        assert len([json.loads(fields[1]) for tier in tiers for _id, fields in tier]) == BATCH

    async def ours_lease() -> None:
        lease = await ours.leases.try_acquire("abench-ours", "bench-node", TTL)
        assert lease is not None
        await ours.leases.release(lease)

    async def raw_lease() -> None:
        token, _expires = await raw.evalsha(acquire_sha, 2, lock, fence, "bench-node", ttl_ms)  # type: ignore[misc]
        await raw.evalsha(release_sha, 2, lock, fence, f"bench-node:{token}", token)  # type: ignore[misc]

    async def close() -> None:
        await ours.close()
        await raw.aclose()

    cases = {
        "inbox/ours": ours_inbox,
        "inbox/raw": raw_json_inbox,
        "inbox/raw bytes": raw_inbox,
        "lease/ours": ours_lease,
        "lease/raw": raw_lease,
    }
    return cases, close


def cleanup(url: str, root: str) -> None:
    client = redis.Redis.from_url(url)
    try:
        doomed = list(client.scan_iter(match=f"{root}:*", count=1000))
        if doomed:
            client.unlink(*doomed)
    finally:
        client.close()


def report(flavour: str, rates: dict[str, Rate], ops: int, rounds: int) -> list[float]:
    print(f"\n{flavour}: best of {rounds} rounds x {ops} operations, one client")
    header = ("operation", "ours ops/s", "raw ops/s", "ours CPU µs", "raw CPU µs")
    print(f"| {header[0]:<28} | {header[1]:>10} | {header[2]:>10} | {header[3]:>11} | {header[4]:>10} | ratio |")
    print(f"|{'-' * 30}|{'-' * 12}|{'-' * 12}|{'-' * 13}|{'-' * 12}|{'-' * 7}|")
    rows = [
        (f"deliver x{BATCH} + collect", "inbox/ours", "inbox/raw", True),
        ("  (vs raw bytes, no JSON)", "inbox/ours", "inbox/raw bytes", False),
        ("lease acquire + release", "lease/ours", "lease/raw", True),
    ]
    ratios = []
    for label, ours_case, raw_case, counts in rows:
        ours, raw = rates[ours_case], rates[raw_case]
        ratio = ours.ops_per_s / raw.ops_per_s
        if counts:
            ratios.append(ratio)
        print(
            f"| {label:<28} | {ours.ops_per_s:>10,.0f} | {raw.ops_per_s:>10,.0f} | {ours.cpu_us_per_op:>11,.0f} |"
            f" {raw.cpu_us_per_op:>10,.0f} | {ratio:.2f}x |"
        )
    return ratios


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: a few seconds, exit 0")
    args = parser.parse_args()
    ops, rounds = (30, 2) if args.smoke else (200, 15)
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    root = f"bench{uuid.uuid4().hex[:10]}"
    prefixes = RedisKeyPrefixes().under(root)
    info = redis.Redis.from_url(url).info("server")
    print(f"Redis {info.get('redis_version')} at {url}; {os.cpu_count()} CPUs; batch {BATCH} messages per collect")
    try:
        cases, close = sync_cases(url, prefixes)
        try:
            ratios = report("sync", run_sync(cases, ops, rounds), ops, rounds)
        finally:
            close()

        async def run() -> list[float]:
            acases, aclose = await async_cases(url, prefixes)
            try:
                return report("async", await run_async(acases, ops, rounds), ops, rounds)
            finally:
                await aclose()

        ratios += asyncio.run(run())
    finally:
        cleanup(url, root)
    worst = min(ratios)
    verdict = "met" if worst >= 0.90 else "NOT met"
    print(f"\ntarget: ratio >= 0.90x against raw+json and raw lease scripts -> worst {worst:.2f}x: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
