"""PostgreSQL under many publishers and behind PgBouncer: the publish split and the LISTEN connection.

    python benchmarks/postgres_scale.py           # full run (about a minute)
    python benchmarks/postgres_scale.py --smoke   # tiny sizes, a few seconds

Server: ``POSTGRES_DSN`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``), with the server's own
``synchronous_commit`` (the NOTIFY commit lock serialises commit flushes, so it only shows when commits
flush); a schema ``bench_<random>`` is created with ``ensure_schema`` and dropped at the end.

* **publish, 32 publishers**: 32 threads, each with its own sync bundle (a pool of one connection),
  publish signals in a loop. Ours: ``signals.publish`` as it is now — the row insert, then a separate
  ``SELECT pg_notify(...)``. Baseline: the statement ``publish`` sent before the split, the insert and
  ``pg_notify`` in one statement (one transaction), on the same kind of pool. Figures: publishes/s of all 32
  together; the note gives the insert alone (no doorbell at all) measured in the same rounds.
* **signal latency through PgBouncer**: a real PgBouncer (``tests/fixtures/pgbouncer.py``, transaction
  mode) in front of the server; node A publishes through it (``pooled=True``), node B listens with
  ``listen_dsn`` direct to the server; the time from ``publish`` returning to B's handler running. Baseline:
  the same two nodes without the pooler. Lower is better (the ratio is direct / through PgBouncer). The note
  gives the latency without ``listen_dsn`` (B's LISTEN through the pooler: it never hears a doorbell, and each
  signal waits for the listener's 5 s self-poll).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg
from _timing import Report, Result, Sample, main, rounds  # benchmarks/_timing.py (run as a script)
from psycopg import sql
from psycopg_pool import ConnectionPool

from aimon_mongo import names as n
from aimon_mongo.model import SessionSignal, SignalKind
from aimon_mongo.postgres import PostgresSessionBackends, ensure_schema
from aimon_mongo.postgres.sqltext import qualify

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for the PgBouncer fixture
from tests.fixtures.pgbouncer import PgBouncer, executable

DEFAULT_DSN = "postgresql://postgres@127.0.0.1:5432/postgres"
TITLE = "PostgreSQL at scale"
PUBLISHERS = 32
CASES = (f"publish, {PUBLISHERS} publishers (split vs one statement)", "signal latency through PgBouncer")
ONE_STATEMENT = """
WITH ins AS (
    INSERT INTO {signal} (conversation_id, kind, origin_node_id, payload)
    VALUES (%s, %s, %s, %s::jsonb) RETURNING id
)
SELECT pg_notify(%s, id::text) FROM ins
"""
"""What ``publish`` sent before the split (the baseline)."""
INSERT_ONLY = "INSERT INTO {signal} (conversation_id, kind, origin_node_id, payload) VALUES (%s, %s, %s, %s::jsonb)"


def event(session: str, origin: str, marker: int = 0) -> SessionSignal:
    return SessionSignal(session_id=session, kind=SignalKind.EVENT, origin_node_id=origin, payload={"n": marker})


def concurrently(count: int, per_publisher: int, publish: list[Any]) -> float:
    """``publish[i]()`` ``per_publisher`` times on each of ``count`` threads started together."""
    start = threading.Barrier(count)

    def run(index: int) -> None:
        start.wait()
        for _ in range(per_publisher):
            publish[index]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return float(count * per_publisher)


def publish_case(dsn: str, schema: str, per_publisher: int, repeats: int) -> Result:
    ours = [PostgresSessionBackends(dsn, f"bench-{i}", schema=schema, pool_max_size=1) for i in range(PUBLISHERS)]
    pools = [ConnectionPool(dsn, min_size=1, max_size=1, kwargs={"autocommit": True}) for _ in range(PUBLISHERS)]
    one_statement, insert_only = qualify(ONE_STATEMENT, schema), qualify(INSERT_ONLY, schema)
    params = [uuid.uuid4().hex, "EVENT", "bench-raw", '{"n":0}']

    def ours_call(i: int) -> Any:
        signal = event(uuid.uuid4().hex, f"bench-{i}")
        return lambda: ours[i].signals.publish(signal)

    def raw_call(i: int, text: str, *extra: str) -> Any:
        def call() -> None:
            with pools[i].connection() as conn:
                conn.execute(text, [*params, *extra])

        return call

    sides = {
        "split": lambda: concurrently(PUBLISHERS, per_publisher, [ours_call(i) for i in range(PUBLISHERS)]),
        "one": lambda: concurrently(
            PUBLISHERS,
            per_publisher,
            [raw_call(i, one_statement, n.PG_SIGNAL_DOORBELL_CHANNEL) for i in range(PUBLISHERS)],
        ),
        "insert": lambda: concurrently(
            PUBLISHERS, per_publisher, [raw_call(i, insert_only) for i in range(PUBLISHERS)]
        ),
    }
    try:
        samples = rounds(sides, repeats)
    finally:
        for bundle in ours:
            bundle.close()
        for pool in pools:
            pool.close()
    insert = statistics.median(s.rate("wall") for s in samples["insert"])
    return Result.timed(
        TITLE,
        CASES[0],
        samples["split"],
        samples["one"],
        unit="publishes/s",
        note=f"the insert alone, no doorbell: {insert:,.0f}/s in the same rounds",
    )


class Latency:
    """Node A publishes, node B (subscribed) records when each signal arrives."""

    def __init__(self, publisher: PostgresSessionBackends, listener: PostgresSessionBackends) -> None:
        self.publisher, self.listener = publisher, listener
        self.session = uuid.uuid4().hex
        self.arrived: dict[int, float] = {}
        self._got = threading.Condition()
        listener.signals.subscribe(self.session, self._handle)

    def _handle(self, signal: SessionSignal) -> None:
        with self._got:
            self.arrived[int(signal.payload["n"])] = time.perf_counter()
            self._got.notify_all()

    def one(self, marker: int, timeout: float = 30.0) -> float:
        """Seconds from calling ``publish`` to the handler running (measured from the call, not its return:
        the listener may hear the doorbell before the publisher has read the reply of its ``pg_notify``)."""
        sent = time.perf_counter()
        self.publisher.signals.publish(event(self.session, self.publisher.node_id, marker))
        with self._got:
            if not self._got.wait_for(lambda: marker in self.arrived, timeout):
                raise SystemExit(f"signal {marker} did not arrive within {timeout:.0f} s")
        return self.arrived[marker] - sent

    def close(self) -> None:
        self.listener.close()
        self.publisher.close()


def latency_case(dsn: str, schema: str, per_round: int, repeats: int, deaf_signals: int) -> Result:
    with PgBouncer(dsn) as bouncer:
        through = Latency(
            PostgresSessionBackends(bouncer.dsn, "bench-a", schema=schema, pooled=True, listen_dsn=dsn),
            PostgresSessionBackends(bouncer.dsn, "bench-b", schema=schema, pooled=True, listen_dsn=dsn),
        )
        direct = Latency(
            PostgresSessionBackends(dsn, "bench-c", schema=schema),
            PostgresSessionBackends(dsn, "bench-d", schema=schema),
        )
        counter = iter(range(1, 1_000_000))

        def block(probe: Latency) -> Any:
            def side() -> float:
                total = sum(probe.one(next(counter)) for _ in range(per_round))
                return total * 1000 / per_round  # the "operations" slot carries the mean latency in ms

            return side

        try:
            samples = rounds({"through": block(through), "direct": block(direct)}, repeats)
            deaf = Latency(
                PostgresSessionBackends(bouncer.dsn, "bench-e", schema=schema, pooled=True),
                PostgresSessionBackends(bouncer.dsn, "bench-f", schema=schema, pooled=True),
            )
            try:
                without = [deaf.one(next(counter)) * 1000 for _ in range(deaf_signals)]
            finally:
                deaf.close()
        finally:
            through.close()
            direct.close()

    def ms(side: list[Sample]) -> tuple[float, ...]:
        return tuple(s.operations for s in side)

    return Result(
        TITLE,
        CASES[1],
        "ms",
        ms(samples["through"]),
        ms(samples["direct"]),
        higher_is_better=False,
        note=f"without listen_dsn (LISTEN through PgBouncer): {statistics.median(without):,.0f} ms median over "
        f"{deaf_signals} signals (max {max(without):,.0f} ms); every signal waited for the 5 s self-poll",
    )


def measure(args: argparse.Namespace) -> Report:
    dsn = os.environ.get("POSTGRES_DSN") or DEFAULT_DSN
    per_publisher, per_round, deaf = (5, 2, 1) if args.smoke else (60, 10, 4)
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    ensure_schema(dsn, schema)
    try:
        found = [publish_case(dsn, schema, per_publisher, args.repeats)]
        found.append(latency_case(dsn, schema, per_round, args.repeats, deaf))
        with psycopg.connect(dsn) as conn:
            settings = conn.execute("SELECT version(), current_setting('synchronous_commit')").fetchone()
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    assert settings is not None
    return Report(found, {
        "PostgreSQL at scale": f"{settings[0].split(' on ')[0]}, synchronous_commit={settings[1]}; "
                               f"{PUBLISHERS} publisher threads x {per_publisher} publishes per round and side; "
                               f"PgBouncer {pgbouncer_version()} in transaction mode; {per_round} signals per "
                               "latency round",
    })  # fmt: skip


def pgbouncer_version() -> str:
    done = subprocess.run([executable(), "--version"], capture_output=True, text=True, check=False)
    return done.stdout.split("\n")[0].removeprefix("PgBouncer ").strip() or "?"


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, repeats=7))
