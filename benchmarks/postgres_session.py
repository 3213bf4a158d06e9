"""PostgreSQL session stores against raw psycopg doing the same operations on the same server.

    python benchmarks/postgres_session.py           # full run (under a minute)
    python benchmarks/postgres_session.py --smoke   # tiny sizes, a few seconds

Server: ``POSTGRES_DSN`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``); a schema
``bench_<random>`` is created with ``ensure_schema`` and dropped at the end. Both sides' sessions run with
``synchronous_commit = off`` (``--synchronous-commit`` keeps the server's setting): with it on, every
commit waits for a disk flush (milliseconds here), which hides the client-side cost being compared.
Ours runs with ``replication_guard="off"``, so its acquisition is raw's statement (the guard's cost is
``benchmarks/pg_failover.py``'s subject).

Operations, each in the sync flavour (``ConnectionPool``) and the async one (``AsyncConnectionPool``),
both sides on a pool of one autocommit connection:

* **deliver+collect**: deliver a chunk of text messages one by one, then collect them all. Ours:
  ``inbox.deliver(msg)`` (encode the envelope, INSERT … RETURNING id) and ``inbox.collect`` (one DELETE …
  FOR UPDATE SKIP LOCKED … RETURNING in a transaction, every row decoded to an ``InboundMessage``). Raw:
  the same INSERT with ``json.dumps`` of a ready-made envelope dict, the same DELETE in a transaction and
  ``json.loads`` of every returned payload — the least a raw caller must do.
* **lease acquire+release**: ``try_acquire`` + ``release`` against the same two statements run raw.
* **deliver_many x64 + collect, 1 ms** (sync), through the test TCP proxy with 1 ms added each way, where
  round trips are what costs: ours ``deliver_many`` of 64 messages (one statement) and ``collect`` (one
  transaction); raw the naive per-message loop, 64 INSERTs and 64 single-row ``DELETE … LIMIT 1`` takes.

Each round runs one chunk on each side, the order rotating, so load from other processes hits both alike.
Printed per case: operations/s of each side (medians over rounds), the per-round ratio ours / raw, min /
median / max (target >= 0.90x), and in a note the client CPU time per operation of each side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
from _timing import Report, Result, Sample, cpu_note, main, rounds  # benchmarks/_timing.py (run as a script)
from codec import text_message  # benchmarks/codec.py
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from aimon_mongo._async.postgres.inbox import _COLLECT, _DELIVER
from aimon_mongo._async.postgres.leases import _ACQUIRE, _RELEASE
from aimon_mongo.codec.inbound import to_json_envelope
from aimon_mongo.model import InboundMessage
from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends, ensure_schema
from aimon_mongo.postgres.sqltext import qualify

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: the tests' TCP proxy
from tests.fixtures.tcp_proxy import TcpProxy

DEFAULT_DSN = "postgresql://postgres@127.0.0.1:5432/postgres"
MANY = 64
"""Messages per round of the ``, 1 ms`` case."""
LATENCY = 0.001
"""Seconds the TCP proxy adds each way in the ``, 1 ms`` case."""
LATENCY_CASE = f"sync deliver_many x{MANY} + collect, 1 ms"
_TAKE_ONE = """
DELETE FROM {inbox} WHERE id = (
    SELECT id FROM {inbox} WHERE conversation_id = %s ORDER BY priority, id FOR UPDATE SKIP LOCKED LIMIT 1
) RETURNING id, priority, payload::text
"""
TTL = timedelta(seconds=30)
TITLE = "PostgreSQL session"
OPERATIONS = {"inbox": "deliver+collect", "lease": "lease acquire+release"}
CASES = (
    *(f"{flavour} {operation}" for flavour in ("sync", "async") for operation in OPERATIONS.values()),
    LATENCY_CASE,
)


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


def results(flavour: str, samples: dict[str, list[Sample]]) -> list[Result]:
    found = []
    for side, case in OPERATIONS.items():
        ours, raw = samples[f"{side}/ours"], samples[f"{side}/raw"]
        found.append(Result.timed(TITLE, f"{flavour} {case}", ours, raw, target=0.90,
                                  note=cpu_note(ours, raw)))  # fmt: skip
    return found


# ------------------------------------------------------------------------------------------------ sync


def run_sync(dsn: str, schema: str, chunk: int, repeats: int) -> list[Result]:
    ours = PostgresSessionBackends(
        dsn, "bench-ours", schema=schema, pool_min_size=1, pool_max_size=1, replication_guard="off"
    )
    pool = ConnectionPool(dsn, min_size=1, max_size=1, kwargs={"autocommit": True}, open=True)
    raw = Raw(schema)

    def ours_inbox() -> float:
        session = uuid.uuid4().hex
        msg = message(session)
        for _ in range(chunk):
            ours.inbox.deliver(msg)
        got = 0
        while got < chunk:
            got += len(ours.inbox.collect(session).messages)
        return chunk

    def raw_inbox() -> float:
        session = uuid.uuid4().hex
        for _ in range(chunk):
            with pool.connection() as conn:
                conn.execute(raw.deliver, raw.deliver_params(session)).fetchone()
        got = 0
        while got < chunk:
            with pool.connection() as conn, conn.transaction():
                rows = conn.execute(raw.collect, {"sid": session, "ceiling": 2}).fetchall()
            rows.sort(key=lambda r: (r[1], r[0]))
            got += len([json.loads(r[2]) for r in rows])
        return chunk

    def ours_lease() -> float:
        session = uuid.uuid4().hex
        for _ in range(chunk):
            lease = ours.leases.try_acquire(session, "node-a", TTL)
            assert lease is not None
            ours.leases.release(lease)
        return chunk

    def raw_lease() -> float:
        session = uuid.uuid4().hex
        for _ in range(chunk):
            with pool.connection() as conn:
                row = conn.execute(raw.acquire, {"sid": session, "holder": "node-a", "ttl": TTL}).fetchone()
            assert row is not None
            with pool.connection() as conn:
                conn.execute(raw.release, [session, "node-a", row[0]])
        return chunk

    sides = {"inbox/ours": ours_inbox, "inbox/raw": raw_inbox, "lease/ours": ours_lease, "lease/raw": raw_lease}
    try:
        return results("sync", rounds(sides, repeats))
    finally:
        ours.close()
        pool.close()


# ----------------------------------------------------------------------------------------------- async


def run_async(runner: asyncio.Runner, dsn: str, schema: str, chunk: int, repeats: int) -> list[Result]:
    ours = AsyncPostgresSessionBackends(
        dsn, "bench-ours", schema=schema, pool_min_size=1, pool_max_size=1, replication_guard="off"
    )
    pool = AsyncConnectionPool(dsn, min_size=1, max_size=1, kwargs={"autocommit": True}, open=False)
    runner.run(pool.open())
    raw = Raw(schema)

    async def ours_inbox() -> float:
        session = uuid.uuid4().hex
        msg = message(session)
        for _ in range(chunk):
            await ours.inbox.deliver(msg)
        got = 0
        while got < chunk:
            got += len((await ours.inbox.collect(session)).messages)
        return chunk

    async def raw_inbox() -> float:
        session = uuid.uuid4().hex
        for _ in range(chunk):
            async with pool.connection() as conn:
                await (await conn.execute(raw.deliver, raw.deliver_params(session))).fetchone()
        got = 0
        while got < chunk:
            async with pool.connection() as conn, conn.transaction():
                rows = await (await conn.execute(raw.collect, {"sid": session, "ceiling": 2})).fetchall()
            rows.sort(key=lambda r: (r[1], r[0]))
            got += len([json.loads(r[2]) for r in rows])
        return chunk

    async def ours_lease() -> float:
        session = uuid.uuid4().hex
        for _ in range(chunk):
            lease = await ours.leases.try_acquire(session, "node-a", TTL)
            assert lease is not None
            await ours.leases.release(lease)
        return chunk

    async def raw_lease() -> float:
        session = uuid.uuid4().hex
        for _ in range(chunk):
            async with pool.connection() as conn:
                cur = await conn.execute(raw.acquire, {"sid": session, "holder": "node-a", "ttl": TTL})
                row = await cur.fetchone()
            assert row is not None
            async with pool.connection() as conn:
                await conn.execute(raw.release, [session, "node-a", row[0]])
        return chunk

    coroutines = {"inbox/ours": ours_inbox, "inbox/raw": raw_inbox, "lease/ours": ours_lease, "lease/raw": raw_lease}
    try:
        return results("async", rounds({name: blocking(runner, fn) for name, fn in coroutines.items()}, repeats))
    finally:
        runner.run(ours.close())
        runner.run(pool.close())


def run_latency(dsn: str, schema: str, repeats: int) -> Result:
    """The ``, 1 ms`` case: both sides reach the server through a TCP proxy adding :data:`LATENCY` each way."""
    params = conninfo_to_dict(dsn)
    proxy = TcpProxy(str(params.get("host") or "127.0.0.1"), int(params.get("port") or 5432), delay=LATENCY)
    slow = make_conninfo(dsn, host="127.0.0.1", port=str(proxy.port))
    ours = PostgresSessionBackends(
        slow, "bench-ours", schema=schema, pool_min_size=1, pool_max_size=1, replication_guard="off"
    )
    pool = ConnectionPool(slow, min_size=1, max_size=1, kwargs={"autocommit": True}, open=True)
    raw = Raw(schema)
    take_one = qualify(_TAKE_ONE, schema)

    def ours_many() -> float:
        session = uuid.uuid4().hex
        ours.inbox.deliver_many([message(session) for _ in range(MANY)])
        assert len(ours.inbox.collect(session).messages) == MANY
        return 1

    def raw_loop() -> float:
        session = uuid.uuid4().hex
        for _ in range(MANY):
            with pool.connection() as conn:
                conn.execute(raw.deliver, raw.deliver_params(session)).fetchone()
        taken = 0
        for _ in range(MANY):
            with pool.connection() as conn:
                taken += len([json.loads(row[2]) for row in conn.execute(take_one, [session]).fetchall()])
        assert taken == MANY
        return 1

    try:
        samples = rounds({"ours": ours_many, "raw": raw_loop}, max(3, repeats // 4))
    finally:
        ours.close()
        pool.close()
        proxy.close()
    ours_side, raw_side = samples["ours"], samples["raw"]
    return Result.timed(TITLE, LATENCY_CASE, ours_side, raw_side, note=cpu_note(ours_side, raw_side))


def blocking(runner: asyncio.Runner, fn: Callable[[], Awaitable[float]]) -> Callable[[], float]:
    return lambda: runner.run(fn())  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------ main


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--synchronous-commit", action="store_true", help="keep the server's synchronous_commit")


def measure(args: argparse.Namespace) -> Report:
    chunk = 20 if args.smoke else 200
    base_dsn = os.environ.get("POSTGRES_DSN") or DEFAULT_DSN
    dsn = base_dsn if args.synchronous_commit else make_conninfo(base_dsn, options="-c synchronous_commit=off")
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    ensure_schema(base_dsn, schema)
    try:
        found = run_sync(dsn, schema, chunk, args.repeats)
        with asyncio.Runner() as runner:
            found += run_async(runner, dsn, schema, chunk, args.repeats)
        found.append(run_latency(dsn, schema, args.repeats))
        with psycopg.connect(dsn) as conn:
            settings = conn.execute("SELECT version(), current_setting('synchronous_commit')").fetchone()
    finally:
        with psycopg.connect(base_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    assert settings is not None
    return Report(found, {
        "PostgreSQL server": f"{settings[0].split(' on ')[0]} at {base_dsn.split('@')[-1]}, "
                             f"synchronous_commit={settings[1]}",
        "PostgreSQL sizes": f"{chunk} operations per round and side, a pool of one connection per side; "
                            f"deliver_many x{MANY} + collect once per round through the proxy (1 ms each way)",
    })  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, options, repeats=61))
