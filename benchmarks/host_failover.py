"""Time from SIGKILL of a session host to the next turn of its sessions on another host, against ``lease_ttl``.

    python benchmarks/host_failover.py                      # Redis and PostgreSQL, 5 runs each (about a minute)
    python benchmarks/host_failover.py --runs 2 --only redis

Per run: a holder process (this script with ``--holder``) starts an ``AsyncSessionHost`` and submits one
message to each of 4 sessions; its handler reports the turn and then hangs, so the batch stays claimed
and unacknowledged. Host B (in this process, started before, ``lease_ttl`` as A's, its adoption scan at the
default interval: ``lease_ttl``) waits. A is SIGKILLed; measured per session: seconds from the kill until
B's handler runs that session's turn (the claimed message handed out again: checked to be attempt 2). The bound the host
states is ``lease_ttl`` (A's lease running out) plus one scan interval. Prints one line per backend:
median and max over every session of every run, in seconds and in ``lease_ttl``.

Redis: ``REDIS_URL`` (default ``redis://127.0.0.1:6379/0``), a key root of its own; PostgreSQL:
``POSTGRES_DSN`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``), a schema of its own; both
removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

from codec import text_message  # benchmarks/codec.py
from host import drop_schema  # benchmarks/host.py
from redis_session import cleanup  # benchmarks/redis_session.py

from aimon_mongo import open_async_backends
from aimon_mongo.host import AsyncSessionHost, Turn
from aimon_mongo.model import InboundMessage
from aimon_mongo.redis import RedisKeyPrefixes

SESSIONS = 4
DEFAULT_DSN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
DSN = os.environ.get("POSTGRES_DSN") or DEFAULT_DSN


def message(session_id: str) -> InboundMessage:
    return text_message().model_copy(update={"session_id": session_id, "idempotency_key": None})


def open_bundle(backend: str, place: str, node: str) -> Any:
    """A bundle of ``node`` on ``place`` (a Redis key root, a PostgreSQL schema). On a fresh PostgreSQL
    schema the caller touches the inbox first: a host started right away subscribes to signals before any
    store created the tables, and the listener fails on the missing signal table."""
    if backend == "redis":
        return open_async_backends(REDIS_URL, node_id=node, key_prefixes=RedisKeyPrefixes().under(place))
    return open_async_backends(DSN, node_id=node, schema=place, ensure_schema=True, replication_guard="off")


async def holder(backend: str, place: str, ttl: float, sessions: list[str]) -> None:
    """The holder process: take every session, report each first turn on stdout, then hang in it."""

    async def handle(turn: Turn) -> None:
        print(json.dumps({"took": turn.session_id}), flush=True)
        await asyncio.Event().wait()  # never returns: the batch stays claimed until SIGKILL

    bundle = open_bundle(backend, place, "holder-a")
    await bundle.inbox.is_empty(sessions[0])  # PostgreSQL: the first use creates the schema (see open_bundle)
    host = AsyncSessionHost(bundle, handler=handle, lease_ttl=timedelta(seconds=ttl), holder_id="holder-a")
    await host.start()
    for sid in sessions:
        await host.submit(message(sid))
    await asyncio.Event().wait()


async def one_run(backend: str, place: str, ttl: float, run: int) -> list[float]:
    """One kill: seconds from SIGKILL of the holder until host B ran each of its sessions."""
    sessions = [f"fo{run}-{uuid.uuid4().hex[:6]}-{i}" for i in range(SESSIONS)]
    turned: dict[str, float] = {}
    attempts: dict[str, int] = {}
    all_done = asyncio.Event()

    async def handle(turn: Turn) -> None:
        turned.setdefault(turn.session_id, time.monotonic())
        attempts.setdefault(turn.session_id, turn.attempt)
        if len(turned) == SESSIONS:
            all_done.set()

    bundle = open_bundle(backend, place, "holder-b")
    await bundle.inbox.is_empty(sessions[0])
    host = AsyncSessionHost(bundle, handler=handle, lease_ttl=timedelta(seconds=ttl), holder_id="holder-b")
    await host.start()
    script = Path(__file__).resolve()
    child = await asyncio.create_subprocess_exec(
        sys.executable, str(script), "--holder", backend, place, str(ttl), ",".join(sessions),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert child.stdout is not None
        took: set[str] = set()
        while len(took) < SESSIONS:
            line = await asyncio.wait_for(child.stdout.readline(), 60)
            if not line:
                raise RuntimeError(f"the holder process ended before taking its sessions (run {run})")
            took.add(json.loads(line)["took"])
        assert not turned, "host B ran a turn while A held its sessions"
        child.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        await child.wait()
        await asyncio.wait_for(all_done.wait(), 20 * ttl)
        if set(attempts.values()) != {2}:
            raise RuntimeError(f"the re-run turns were not second attempts: {attempts}")
        return [turned[sid] - killed for sid in sessions]
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
        await host.drain()
        await bundle.close()


def remove(backend: str, place: str) -> None:
    if backend == "redis":
        cleanup(REDIS_URL, place)
    else:
        drop_schema(DSN, place)


def measure(backend: str, runs: int, ttl: float) -> dict[str, Any]:
    place = f"bench_failover_{uuid.uuid4().hex[:8]}"
    seconds: list[float] = []
    try:
        for run in range(runs):
            seconds += asyncio.run(one_run(backend, place, ttl, run))
    finally:
        remove(backend, place)
    return {
        "backend": backend,
        "runs": runs,
        "sessions": runs * SESSIONS,
        "lease_ttl": ttl,
        "median": statistics.median(seconds),
        "max": max(seconds),
        "min": min(seconds),
    }


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--holder":
        backend, place, ttl, sessions = sys.argv[2:6]
        asyncio.run(holder(backend, place, float(ttl), sessions.split(",")))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="kills per backend (default 5)")
    parser.add_argument("--ttl", type=float, default=2.0, help="lease_ttl of both hosts, seconds (default 2)")
    parser.add_argument("--only", choices=("redis", "postgres"), nargs="+", default=["redis", "postgres"])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    found = [measure(backend, args.runs, args.ttl) for backend in args.only]
    for row in found:
        if args.json:
            print(json.dumps(row))
            continue
        ttl = row["lease_ttl"]
        print(f"{row['backend']}: {row['sessions']} sessions over {row['runs']} kills, lease_ttl {ttl:g} s: "
              f"SIGKILL -> next turn median {row['median']:.2f} s ({row['median'] / ttl:.2f} x lease_ttl), "
              f"max {row['max']:.2f} s ({row['max'] / ttl:.2f} x), min {row['min']:.2f} s")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
