"""Redis session-store benchmark: our stores against raw redis-py sending the same commands.

    python benchmarks/redis_session.py           # full run (about a minute)
    python benchmarks/redis_session.py --smoke   # tiny sizes, a few seconds

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
* **deliver_many x64 + collect, 1 ms** (sync), through the test TCP proxy with 1 ms added each way, where
  round trips are what costs: ours ``deliver_many`` of 64 messages (one pipeline) and ``collect`` (one
  script); raw the naive per-message loop, 64 ``XADD`` and 64 runs of the collect script taking one entry.

Rounds are interleaved (the order rotating), so load from other processes hits all sides alike. Printed:
operations/s (wall clock, medians over rounds), the per-round ratio ours / raw, min / median / max (higher
is better; target >= 0.90x against raw+json and raw lease scripts), client CPU per operation in a note.
Keys live under a fresh ``bench<random>:`` namespace that is deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import redis
import redis.asyncio
from _timing import Report, Result, Sample, atimes, cpu_note, main, rounds, times  # benchmarks/_timing.py
from codec import text_message  # benchmarks/codec.py: this directory is on sys.path when run as a script

from aimon_mongo.codec.inbound import to_json_envelope
from aimon_mongo.model import InboundMessage, Priority
from aimon_mongo.redis import AsyncRedisSessionBackends, RedisKeyPrefixes, RedisKeys, RedisSessionBackends
from aimon_mongo.redis.lua_scripts import script

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: the tests' TCP proxy
from tests.fixtures.tcp_proxy import TcpProxy

BATCH = 10
MANY = 64
"""Messages per round of the ``, 1 ms`` case."""
LATENCY = 0.001
"""Seconds the TCP proxy adds each way in the ``, 1 ms`` case."""
TTL = timedelta(seconds=30)


def message(session_id: str) -> InboundMessage:
    """The codec benchmark's typical routed text turn, in ``session_id``."""
    return text_message().model_copy(update={"session_id": session_id})


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
    write_fence = keys.write_fence("bench-raw")
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
        token, _expires, _ = raw.evalsha(acquire_sha, 3, lock, fence, write_fence, "bench-node", ttl_ms)
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
    write_fence = keys.write_fence("abench-raw")
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
        token, _expires, _ = await raw.evalsha(acquire_sha, 3, lock, fence, write_fence, "bench-node", ttl_ms)  # type: ignore[misc]
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


def latency_cases(url: str, prefixes: RedisKeyPrefixes) -> tuple[dict[str, Callable[[], None]], Callable[[], None]]:
    """The ``, 1 ms`` case: both sides talk to Redis through a TCP proxy adding :data:`LATENCY` each way."""
    where = urlsplit(url)
    proxy = TcpProxy(where.hostname or "127.0.0.1", where.port or 6379, delay=LATENCY)
    slow = urlunsplit(where._replace(netloc=f"127.0.0.1:{proxy.port}"))
    keys = RedisKeys(prefixes)
    ours = RedisSessionBackends(slow, "bench-node", prefixes)
    raw = redis.Redis.from_url(slow)
    batch = [message("lbench-ours") for _ in range(MANY)]
    document = json.loads(to_json_envelope(message("lbench-raw")))
    raw_stream = keys.inbox_stream("lbench-raw", Priority.NEXT)
    raw_streams = keys.inbox_streams("lbench-raw")
    collect_sha = raw.script_load(script("inbox_collect").text)

    def ours_many() -> None:
        ours.inbox.deliver_many(batch)
        assert len(ours.inbox.collect("lbench-ours").messages) == MANY

    def raw_loop() -> None:
        for _ in range(MANY):
            raw.xadd(raw_stream, {"p": json.dumps(document, separators=(",", ":"), ensure_ascii=False)})
        taken = 0
        for _ in range(MANY):
            tiers = raw.evalsha(collect_sha, len(raw_streams), *raw_streams, 1)
            taken += len([json.loads(fields[1]) for tier in tiers for _id, fields in tier])
        assert taken == MANY

    def close() -> None:
        ours.close()
        raw.close()
        proxy.close()

    return {"many/ours": ours_many, "many/raw": raw_loop}, close


def cleanup(url: str, root: str) -> None:
    client = redis.Redis.from_url(url)
    try:
        doomed = list(client.scan_iter(match=f"{root}:*", count=1000))
        if doomed:
            client.unlink(*doomed)
    finally:
        client.close()


ROWS = (
    (f"deliver x{BATCH} + collect", "inbox/raw", 0.90),
    (f"deliver x{BATCH} + collect, vs raw bytes (no JSON)", "inbox/raw bytes", None),
    ("lease acquire + release", "lease/raw", 0.90),
)
LATENCY_ROW = f"sync deliver_many x{MANY} + collect, 1 ms"
TITLE = "Redis session"
CASES = (*(f"{flavour} {label}" for flavour in ("sync", "async") for label, _, _ in ROWS), LATENCY_ROW)


def results(flavour: str, samples: dict[str, list[Sample]]) -> list[Result]:
    rows = []
    for label, raw_case, target in ROWS:
        ours, raw = samples[f"{raw_case.split('/')[0]}/ours"], samples[raw_case]
        rows.append(Result.timed(TITLE, f"{flavour} {label}", ours, raw, target=target,
                                 note=cpu_note(ours, raw)))  # fmt: skip
    return rows


def count(side: str, ops: int) -> int:
    """Operations per round of a side: a lease operation is about a tenth of an inbox one, so five times more."""
    return ops * 5 if side.startswith("lease") else ops


def measure(args: argparse.Namespace) -> Report:
    ops = 30 if args.smoke else 200
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    root = f"bench{uuid.uuid4().hex[:10]}"
    prefixes = RedisKeyPrefixes().under(root)
    info = redis.Redis.from_url(url).info("server")
    try:
        cases, close = sync_cases(url, prefixes)
        try:
            sides = {name: times(fn, count(name, ops)) for name, fn in cases.items()}
            found = results("sync", rounds(sides, args.repeats))
        finally:
            close()
        with asyncio.Runner() as runner:
            acases, aclose = runner.run(async_cases(url, prefixes))
            try:
                sides = {name: atimes(runner, fn, count(name, ops)) for name, fn in acases.items()}
                found += results("async", rounds(sides, args.repeats))
            finally:
                runner.run(aclose())
        lcases, lclose = latency_cases(url, prefixes)
        try:
            samples = rounds({name: times(fn, 1) for name, fn in lcases.items()}, max(3, args.repeats // 4))
            ours, raw = samples["many/ours"], samples["many/raw"]
            found.append(Result.timed(TITLE, LATENCY_ROW, ours, raw, note=cpu_note(ours, raw)))
        finally:
            lclose()
    finally:
        cleanup(url, root)
    return Report(found, {
        "Redis server": f"Redis {info.get('redis_version')} at {url.rsplit('@', 1)[-1]}",
        "Redis sizes": f"{ops} inbox operations (deliver x{BATCH} + collect) and {count('lease', ops)} lease "
                       "operations per round, one client per side; "
                       f"deliver_many x{MANY} + collect once per round through the proxy (1 ms each way)",
    })  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, repeats=31))
