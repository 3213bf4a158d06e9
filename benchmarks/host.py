"""Session host benchmark: acknowledged delivery against collect, a host's turn against the same turn composed
by hand, and turns per second with 1, 2 and 4 hosts.

    python benchmarks/host.py           # full run (a few minutes)
    python benchmarks/host.py --smoke   # tiny sizes, a few seconds

Backends: memory, MongoDB (``MONGODB_URI``, else the mongoeco stand-in started here), Redis (``REDIS_URL``,
default ``redis://127.0.0.1:6379/0``) and PostgreSQL (``POSTGRES_DSN``, default
``postgresql://postgres@127.0.0.1:5432/postgres``), each in a namespace of its own removed at the end.

* **claim + acknowledge vs collect** (sync, per backend): sessions each holding 10 waiting messages; ours
  takes each session's batch with ``inbox.claim`` under a token and removes it with ``inbox.acknowledge``
  (what the host does per turn), the baseline with one ``collect`` (at-most-once). Refilled untimed between
  blocks. Messages/s (wall), client CPU per message in the note; the MongoDB commands sent per operation are
  counted with ``CommandLog`` (listed under the table).
* **host turn vs hand-composed** (async, per backend): one session; ours ``AsyncSessionHost.submit`` of one
  message and wait until the handler ran (the host claims, runs the handler, acknowledges, keeps the lease
  alive); the baseline the same turn written by hand under a lease taken once: ``deliver``, ``claim``, the
  handler, ``acknowledge``. Turns/s (wall).
* **turns/s with N hosts** (async, Redis, in-process): 1, 2 and 4 ``AsyncSessionHost`` on bundles of their
  own in one process and one event loop, 16 sessions, a pure client (``max_sessions=0``) submitting a burst
  of messages round-robin; each handler awaits 5 ms (a stand-in for I/O such as a model call). Turns/s until
  every message had its turn; 2 and 4 hosts against 1.

The time from SIGKILL of a holder to the next turn on another host is ``benchmarks/host_failover.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import psycopg
from _timing import SHARED_STANDIN, Report, Result, Sample, cpu_note, main, rounds  # benchmarks/_timing.py
from codec import text_message  # benchmarks/codec.py
from psycopg import sql
from pymongo import MongoClient
from redis_session import cleanup  # benchmarks/redis_session.py: removes a key root

from aimon_mongo import open_async_backends, open_backends
from aimon_mongo.host import AsyncSessionHost, Turn
from aimon_mongo.model import InboundMessage
from aimon_mongo.mongo.command_log import CommandLog
from aimon_mongo.redis import RedisKeyPrefixes
from aimon_mongo.standin import StandinServer, configured_uri

TITLE = "Session host"
BACKENDS = ("memory", "MongoDB", "Redis", "PostgreSQL")
BATCH = 10
HOSTS = (1, 2, 4)
SESSIONS = 16
WORK = 0.005
"""Seconds each handler awaits in the N-hosts case."""
TTL = timedelta(seconds=30)
CASES = (
    *(f"claim + acknowledge vs collect, {b}" for b in BACKENDS),
    *(f"host turn vs hand-composed, {b}" for b in BACKENDS),
    *(f"turns/s, {count} hosts vs 1 (Redis, in-process)" for count in HOSTS[1:]),
)
DEFAULT_DSN = "postgresql://postgres@127.0.0.1:5432/postgres"


def message(session_id: str) -> InboundMessage:
    """The codec benchmark's typical text turn, in ``session_id``, without an idempotency key."""
    return text_message().model_copy(update={"session_id": session_id, "idempotency_key": None})


class Places:
    """Where each backend lives in this run (a namespace of its own per backend), and its removal."""

    def __init__(self, mongo_uri: str) -> None:
        tag = uuid.uuid4().hex[:10]
        self.mongo_uri = mongo_uri
        self.mongo_db = f"bench_host_{tag}"
        self.redis_url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
        self.redis_root = f"benchhost{tag}"
        self.dsn = os.environ.get("POSTGRES_DSN") or DEFAULT_DSN
        self.schema = f"bench_host_{tag}"
        self.log = CommandLog()

    def url(self, backend: str) -> str:
        return {"memory": "memory://", "MongoDB": self.mongo_uri, "Redis": self.redis_url,
                "PostgreSQL": self.dsn}[backend]  # fmt: skip

    def options(self, backend: str, group: str = "") -> dict[str, Any]:
        """The bundle options of ``backend``; ``group`` (Redis) a key root of its own under the run's, so
        hosts of different groups never see each other's host channel."""
        if backend == "MongoDB":
            return {"database": self.mongo_db, "ensure_schema": True, "client_options": {"event_listeners": [self.log]}}
        if backend == "Redis":
            return {
                "key_prefixes": RedisKeyPrefixes().under(f"{self.redis_root}:{group}" if group else self.redis_root)
            }
        if backend == "PostgreSQL":
            return {"schema": self.schema, "ensure_schema": True, "replication_guard": "off"}
        return {}

    def open(self, backend: str, node: str) -> Any:
        return open_backends(self.url(backend), node_id=node, **self.options(backend))

    def open_async(self, backend: str, node: str, group: str = "") -> Any:
        return open_async_backends(self.url(backend), node_id=node, **self.options(backend, group))

    def remove(self) -> None:
        client: MongoClient[dict[str, Any]] = MongoClient(self.mongo_uri)
        try:
            client.drop_database(self.mongo_db)
        finally:
            client.close()
        cleanup(self.redis_url, self.redis_root)
        drop_schema(self.dsn, self.schema)


def drop_schema(dsn: str, schema: str) -> None:
    """Drop a PostgreSQL schema this benchmark created, with what it holds."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def inbox_case(places: Places, backend: str, sessions: int, repeats: int) -> tuple[Result, dict[str, int]]:
    """claim + acknowledge against collect on ``sessions`` sessions of :data:`BATCH` messages per side."""
    bundle = places.open(backend, "bench-node")
    tag = uuid.uuid4().hex[:6]
    sides = {side: [f"h{tag}-{side}-{i}" for i in range(sessions)] for side in ("ours", "raw")}

    def fill() -> None:
        for sids in sides.values():
            if bundle.inbox.is_empty(sids[0]):
                for sid in sids:
                    bundle.inbox.deliver_many([message(sid) for _ in range(BATCH)])

    def ours() -> float:
        taken = 0
        for sid in sides["ours"]:
            batch = bundle.inbox.claim(sid, 1)
            taken += bundle.inbox.acknowledge(sid, 1, [m.id for m in batch.messages])
        assert taken == BATCH * sessions, taken
        return taken

    def raw() -> float:
        taken = sum(len(bundle.inbox.collect(sid).messages) for sid in sides["raw"])
        assert taken == BATCH * sessions, taken
        return taken

    try:
        fill()
        ours(), raw()  # warm-up
        fill()
        samples = rounds({"ours": ours, "raw": raw}, repeats, warmup=False, tidy=fill)
        counted: dict[str, int] = {}
        if backend == "MongoDB":
            sid = sides["ours"][0]
            bundle.inbox.deliver_many([message(sid) for _ in range(BATCH)])
            with places.log.recording() as seen:
                batch = bundle.inbox.claim(sid, 1)
            counted[f"claim ({BATCH} entries)"] = seen.round_trips
            with places.log.recording() as seen:
                bundle.inbox.acknowledge(sid, 1, [m.id for m in batch.messages])
            counted[f"acknowledge ({BATCH} entries)"] = seen.round_trips
            bundle.inbox.deliver_many([message(sid) for _ in range(BATCH)])
            with places.log.recording() as seen:
                bundle.inbox.collect(sid)
            counted[f"collect ({BATCH} entries)"] = seen.round_trips
    finally:
        bundle.close()
    o, r = samples["ours"], samples["raw"]
    result = Result.timed(TITLE, f"claim + acknowledge vs collect, {backend}", o, r, unit="msg/s",
                          note=cpu_note(o, r, per="message"))  # fmt: skip
    return result, counted


def blocks(runner: asyncio.Runner, sides: dict[str, Callable[[], Any]], count: int) -> dict[str, Callable[[], float]]:
    """Timing sides that run a coroutine function's block on ``runner``'s loop; ``count`` operations each."""

    def side(block: Callable[[], Any]) -> Callable[[], float]:
        def run() -> float:
            runner.run(block())
            return count

        return run

    return {name: side(block) for name, block in sides.items()}


def turn_case(places: Places, backend: str, turns: int, repeats: int) -> Result:
    """A host's turn against the same turn composed by hand, one session each."""
    tag = uuid.uuid4().hex[:6]
    ours_sid, raw_sid = f"t{tag}-ours", f"t{tag}-raw"
    with asyncio.Runner() as runner:
        ran = asyncio.Event()

        async def handle(turn: Turn) -> None:
            ran.set()

        async def setup() -> tuple[Any, Any, AsyncSessionHost, Any]:
            host_bundle = places.open_async(backend, "bench-host")
            raw_bundle = places.open_async(backend, "bench-hand")
            host = AsyncSessionHost(host_bundle, handler=handle, lease_ttl=TTL, idle_release=timedelta(minutes=10))
            await host.start()
            lease = await raw_bundle.leases.try_acquire(raw_sid, "bench-hand", TTL)
            assert lease is not None
            return host_bundle, raw_bundle, host, lease

        host_bundle, raw_bundle, host, lease = runner.run(setup())

        async def ours() -> None:
            for _ in range(turns):
                ran.clear()
                await host.submit(message(ours_sid))
                await ran.wait()

        async def raw() -> None:
            inbox, token = raw_bundle.inbox, lease.fencing_token
            for _ in range(turns):
                await inbox.deliver(message(raw_sid))
                batch = await inbox.claim(raw_sid, token)
                turn = Turn(session_id=raw_sid, fencing_token=token, attempt=max(batch.attempt, 1),
                            messages=tuple(batch.messages), interrupted=asyncio.Event(), lease=lease,
                            attempts=dict(batch.attempts), backends=raw_bundle)  # fmt: skip
                await handle(turn)
                await inbox.acknowledge(raw_sid, token, [m.id for m in turn.messages if m.id is not None])

        async def close() -> None:
            await host.drain()
            await raw_bundle.leases.release(lease)
            await host_bundle.close()
            await raw_bundle.close()

        try:
            samples = rounds(blocks(runner, {"ours": ours, "raw": raw}, turns), repeats)
        finally:
            runner.run(close())
    o, r = samples["ours"], samples["raw"]
    return Result.timed(TITLE, f"host turn vs hand-composed, {backend}", o, r, unit="turns/s",
                        note=cpu_note(o, r, per="turn"))  # fmt: skip


def hosts_case(places: Places, burst: int, repeats: int) -> tuple[list[Result], dict[int, list[Sample]]]:
    """Turns/s of 1, 2 and 4 in-process hosts on Redis (16 sessions each group, a burst of ``burst``)."""
    with asyncio.Runner() as runner:
        counts: dict[int, int] = dict.fromkeys(HOSTS, 0)
        done = {count: asyncio.Event() for count in HOSTS}
        expected = {count: 0 for count in HOSTS}

        def handler_of(group: int) -> Callable[[Turn], Any]:
            async def handle(turn: Turn) -> None:
                await asyncio.sleep(WORK)
                counts[group] += len(turn.messages)
                if counts[group] >= expected[group]:
                    done[group].set()

            return handle

        hosts: list[AsyncSessionHost] = []

        async def setup() -> tuple[list[Any], dict[int, AsyncSessionHost], dict[int, list[str]]]:
            bundles: list[Any] = []
            clients: dict[int, AsyncSessionHost] = {}
            sessions: dict[int, list[str]] = {}
            for group in HOSTS:
                tag = uuid.uuid4().hex[:6]
                sessions[group] = [f"n{group}-{tag}-{i}" for i in range(SESSIONS)]
                for index in range(group):
                    bundle = places.open_async("Redis", f"bench-h{group}-{index}", f"g{group}")
                    bundles.append(bundle)
                    host = AsyncSessionHost(bundle, handler=handler_of(group), lease_ttl=TTL,
                                            idle_release=timedelta(minutes=10), max_sessions=SESSIONS)  # fmt: skip
                    await host.start()
                    hosts.append(host)
                client = places.open_async("Redis", f"bench-c{group}", f"g{group}")
                bundles.append(client)
                clients[group] = AsyncSessionHost(client, handler=handler_of(group), max_sessions=0)
                await clients[group].start()
                hosts.append(clients[group])
            return bundles, clients, sessions

        bundles, clients, sessions = runner.run(setup())

        def block_of(group: int) -> Callable[[], Any]:
            async def block() -> None:
                done[group].clear()
                expected[group] = counts[group] + burst
                for i in range(burst):
                    sid = sessions[group][i % SESSIONS]
                    await clients[group].submit(message(sid))
                await asyncio.wait_for(done[group].wait(), 60)

            return block

        try:
            samples = rounds(blocks(runner, {str(g): block_of(g) for g in HOSTS}, burst), repeats)
        finally:
            runner.run(close_all(hosts, bundles))
    found = []
    for group in HOSTS[1:]:
        ours, one = samples[str(group)], samples["1"]
        found.append(Result.timed(TITLE, f"turns/s, {group} hosts vs 1 (Redis, in-process)", ours, one,
                                  unit="turns/s", note=cpu_note(ours, one, per="turn")))  # fmt: skip
    return found, {g: samples[str(g)] for g in HOSTS}


async def close_all(hosts: list[AsyncSessionHost], bundles: list[Any]) -> None:
    for host in hosts:
        await host.drain()
    for bundle in bundles:
        await bundle.close()


def measure(args: argparse.Namespace) -> Report:
    sessions, turns, burst = (2, 5, 32) if args.smoke else (20, 100, 320)
    uri = configured_uri()
    server = None if uri else StandinServer("mongoeco")
    if server is not None:
        uri = server.start()
    assert uri is not None
    places = Places(uri)
    results: list[Result] = []
    counted: dict[str, int] = {}
    try:
        for backend in BACKENDS:
            result, found = inbox_case(places, backend, sessions, args.repeats)
            results.append(result)
            counted.update({f"{op}, MongoDB": count for op, count in found.items()})
        for backend in BACKENDS:
            results.append(turn_case(places, backend, turns, args.repeats))
        found_hosts, samples = hosts_case(places, burst, max(2, args.repeats // 3))
        results += found_hosts
    finally:
        places.remove()
        if server is not None:
            server.stop()
    rates = ", ".join(
        f"{group} host{'s' if group > 1 else ''} {statistics.median(s.rate('wall') for s in samples[group]):,.0f}"
        for group in HOSTS
    )
    where = "MONGODB_URI" if server is None and not os.environ.get(SHARED_STANDIN) else "mongoeco stand-in"
    return Report(results, {
        "Session host sizes": f"claim/collect: {sessions} sessions x {BATCH} messages per side and round "
                              f"(MongoDB: {where}); host turn: {turns} turns per side and round, one session; "
                              f"N hosts: a burst of {burst} messages over {SESSIONS} sessions, handler awaits "
                              f"{WORK * 1000:.0f} ms",
        "Session host turns/s (median)": rates + " (in-process hosts, one event loop, Redis)",
    }, round_trips={TITLE: counted})  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, repeats=9))
