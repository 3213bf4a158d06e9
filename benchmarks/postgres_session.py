"""PostgreSQL session stores against raw psycopg doing the same operations on the same server.

    python benchmarks/postgres_session.py           # full run (about a minute)
    python benchmarks/postgres_session.py --smoke   # tiny sizes, under 10 seconds, exits 0

Server: ``POSTGRES_DSN`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``); a schema
``bench_<random>`` is created with ``ensure_schema`` and dropped at the end. Both sides' sessions run with
``synchronous_commit = off`` (``--synchronous-commit`` keeps the server's setting): with it on, every
commit waits for a disk flush (milliseconds here), which hides the client-side cost being compared.

Operations, each in the sync flavour (``ConnectionPool``) and the async one (``AsyncConnectionPool``),
both sides on a pool of one autocommit connection:

* **deliver+collect**: deliver a chunk of text messages one by one, then collect them all. Ours:
  ``inbox.deliver(msg)`` (encode the envelope, INSERT … RETURNING id) and ``inbox.collect`` (one DELETE …
  FOR UPDATE SKIP LOCKED … RETURNING in a transaction, every row decoded to an ``InboundMessage``). Raw:
  the same INSERT with ``json.dumps`` of a ready-made envelope dict, the same DELETE in a transaction and
  ``json.loads`` of every returned payload — the least a raw caller must do.
* **lease acquire+release**: ``try_acquire`` + ``release`` against the same two statements run raw.

Each round runs one chunk on each side, alternating which side goes first, so load from other processes
hits both alike. Printed per case: operations/s of each side over all rounds, the median over rounds of
the per-round ratio ours/raw (target >= 0.90x), and the client CPU time per operation of each side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo
from psycopg_pool import AsyncConnectionPool, ConnectionPool

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aimon_mongo.codec.inbound import to_json_envelope
from aimon_mongo.model import InboundMessage
from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends, ensure_schema
from aimon_mongo.postgres._async.inbox import _COLLECT, _DELIVER
from aimon_mongo.postgres._async.leases import _ACQUIRE, _RELEASE
from aimon_mongo.postgres.sqltext import qualify
from benchmarks.codec import text_message

DEFAULT_DSN = "postgresql://postgres@127.0.0.1:5432/postgres"
TTL = timedelta(seconds=30)
CASES = ("deliver+collect", "lease acquire+release")
Result = tuple[float, float]  # (wall seconds, client CPU seconds)


def message(session_id: str) -> InboundMessage:
    """The codec benchmark's typical routed text turn, in session ``session_id``."""
    return text_message().model_copy(update={"session_id": session_id})


class Raw:
    """What a raw caller sends: our statement texts, its own minimal JSON handling."""

    def __init__(self, schema: str) -> None:
        self.deliver = qualify(_DELIVER, schema)
        self.collect = qualify(_COLLECT, schema)
        self.acquire = qualify(_ACQUIRE, schema)
        self.release = qualify(_RELEASE, schema)
        self.envelope = json.loads(to_json_envelope(message("s")))

    def deliver_params(self, session: str) -> list[Any]:
        envelope = {**self.envelope, "conversationId": session}
        return [session, "support-agent", 1, json.dumps(envelope, separators=(",", ":")), datetime.now(UTC)]


class Tally:
    """Per-round (ours, raw) results of each case."""

    def __init__(self) -> None:
        self.rounds: dict[str, list[tuple[Result, Result]]] = {}

    def add(self, case: str, ours: Result, raw: Result) -> None:
        self.rounds.setdefault(case, []).append((ours, raw))

    def report(self, chunk: int) -> list[float]:
        header = ("case", "ours ops/s", "raw ops/s", "ratio", "CPU µs/op ours", "raw")
        print("| {:<28} | {:>10} | {:>10} | {:>6} | {:>14} | {:>5} |".format(*header))
        print(f"|{'-' * 30}|{'-' * 12}|{'-' * 12}|{'-' * 8}|{'-' * 16}|{'-' * 7}|")
        ratios = []
        for case, pairs in self.rounds.items():
            ops = chunk * len(pairs)
            ours_wall, raw_wall = sum(o[0] for o, _ in pairs), sum(r[0] for _, r in pairs)
            ours_cpu, raw_cpu = sum(o[1] for o, _ in pairs), sum(r[1] for _, r in pairs)
            ratio = statistics.median(r[0] / o[0] for o, r in pairs)
            ratios.append(ratio)
            print(
                f"| {case:<28} | {ops / ours_wall:>10,.0f} | {ops / raw_wall:>10,.0f} | {ratio:>5.2f}x "
                f"| {ours_cpu / ops * 1e6:>14.0f} | {raw_cpu / ops * 1e6:>5.0f} |"
            )
        return ratios


# ------------------------------------------------------------------------------------------------ sync


def run_sync(dsn: str, schema: str, chunk: int, rounds: int, tally: Tally) -> None:
    ours = PostgresSessionBackends(dsn, "bench-ours", schema=schema, pool_min_size=1, pool_max_size=1)
    pool = ConnectionPool(dsn, min_size=1, max_size=1, kwargs={"autocommit": True}, open=True)
    raw = Raw(schema)

    def ours_inbox() -> None:
        session = uuid.uuid4().hex
        msg = message(session)
        for _ in range(chunk):
            ours.inbox.deliver(msg)
        got = 0
        while got < chunk:
            got += len(ours.inbox.collect(session).messages)

    def raw_inbox() -> None:
        session = uuid.uuid4().hex
        for _ in range(chunk):
            with pool.connection() as conn:
                conn.execute(raw.deliver, raw.deliver_params(session)).fetchone()
        got = 0
        while got < chunk:
            with pool.connection() as conn, conn.transaction():
                rows = conn.execute(raw.collect, [session, 2]).fetchall()
            rows.sort(key=lambda r: (r[1], r[0]))
            got += len([json.loads(r[2]) for r in rows])

    def ours_lease() -> None:
        session = uuid.uuid4().hex
        for _ in range(chunk):
            lease = ours.leases.try_acquire(session, "node-a", TTL)
            assert lease is not None
            ours.leases.release(lease)

    def raw_lease() -> None:
        session = uuid.uuid4().hex
        for _ in range(chunk):
            with pool.connection() as conn:
                row = conn.execute(raw.acquire, {"sid": session, "holder": "node-a", "ttl": TTL}).fetchone()
            assert row is not None
            with pool.connection() as conn:
                conn.execute(raw.release, [session, "node-a", row[0]])

    sides = {CASES[0]: (ours_inbox, raw_inbox), CASES[1]: (ours_lease, raw_lease)}
    try:
        for ours_fn, raw_fn in sides.values():  # warm-up: connections, prepared statements
            ours_fn(), raw_fn()
        for index in range(rounds):
            for case, (ours_fn, raw_fn) in sides.items():
                if index % 2:
                    raw_result, ours_result = timed(raw_fn), timed(ours_fn)
                else:
                    ours_result, raw_result = timed(ours_fn), timed(raw_fn)
                tally.add(f"sync {case}", ours_result, raw_result)
    finally:
        ours.close()
        pool.close()


def timed(fn: Callable[[], None]) -> Result:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


# ----------------------------------------------------------------------------------------------- async


async def run_async(dsn: str, schema: str, chunk: int, rounds: int, tally: Tally) -> None:
    ours = AsyncPostgresSessionBackends(dsn, "bench-ours", schema=schema, pool_min_size=1, pool_max_size=1)
    pool = AsyncConnectionPool(dsn, min_size=1, max_size=1, kwargs={"autocommit": True}, open=False)
    await pool.open()
    raw = Raw(schema)

    async def ours_inbox() -> None:
        session = uuid.uuid4().hex
        msg = message(session)
        for _ in range(chunk):
            await ours.inbox.deliver(msg)
        got = 0
        while got < chunk:
            got += len((await ours.inbox.collect(session)).messages)

    async def raw_inbox() -> None:
        session = uuid.uuid4().hex
        for _ in range(chunk):
            async with pool.connection() as conn:
                await (await conn.execute(raw.deliver, raw.deliver_params(session))).fetchone()
        got = 0
        while got < chunk:
            async with pool.connection() as conn, conn.transaction():
                rows = await (await conn.execute(raw.collect, [session, 2])).fetchall()
            rows.sort(key=lambda r: (r[1], r[0]))
            got += len([json.loads(r[2]) for r in rows])

    async def ours_lease() -> None:
        session = uuid.uuid4().hex
        for _ in range(chunk):
            lease = await ours.leases.try_acquire(session, "node-a", TTL)
            assert lease is not None
            await ours.leases.release(lease)

    async def raw_lease() -> None:
        session = uuid.uuid4().hex
        for _ in range(chunk):
            async with pool.connection() as conn:
                cur = await conn.execute(raw.acquire, {"sid": session, "holder": "node-a", "ttl": TTL})
                row = await cur.fetchone()
            assert row is not None
            async with pool.connection() as conn:
                await conn.execute(raw.release, [session, "node-a", row[0]])

    sides = {CASES[0]: (ours_inbox, raw_inbox), CASES[1]: (ours_lease, raw_lease)}
    try:
        for ours_fn, raw_fn in sides.values():
            await ours_fn()
            await raw_fn()
        for index in range(rounds):
            for case, (ours_fn, raw_fn) in sides.items():
                if index % 2:
                    raw_result, ours_result = await atimed(raw_fn), await atimed(ours_fn)
                else:
                    ours_result, raw_result = await atimed(ours_fn), await atimed(raw_fn)
                tally.add(f"async {case}", ours_result, raw_result)
    finally:
        await ours.close()
        await pool.close()


async def atimed(fn: Callable[[], Awaitable[None]]) -> Result:
    wall, cpu = time.perf_counter(), time.process_time()
    await fn()
    return time.perf_counter() - wall, time.process_time() - cpu


# ------------------------------------------------------------------------------------------------ main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: under 10 seconds, exit 0")
    parser.add_argument("--synchronous-commit", action="store_true", help="keep the server's synchronous_commit")
    args = parser.parse_args()
    chunk, rounds = (20, 2) if args.smoke else (50, 60)
    base_dsn = os.environ.get("POSTGRES_DSN") or DEFAULT_DSN
    dsn = base_dsn if args.synchronous_commit else make_conninfo(base_dsn, options="-c synchronous_commit=off")
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    ensure_schema(base_dsn, schema)
    tally = Tally()
    try:
        run_sync(dsn, schema, chunk, rounds, tally)
        asyncio.run(run_async(dsn, schema, chunk, rounds, tally))
        with psycopg.connect(dsn) as conn:
            settings = conn.execute("SELECT version(), current_setting('synchronous_commit')").fetchone()
    finally:
        with psycopg.connect(base_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    assert settings is not None
    print(f"{settings[0].split(' on ')[0]} at {base_dsn.split('@')[-1]}, synchronous_commit={settings[1]}")
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; {rounds} rounds x {chunk} operations per case\n")
    worst = min(tally.report(chunk))
    print(f"\ntarget: every ratio >= 0.90x -> worst {worst:.2f}x: {'met' if worst >= 0.90 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
