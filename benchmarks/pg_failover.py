"""What the PostgreSQL replication guard costs per lease acquisition: guard on against guard off.

    python benchmarks/pg_failover.py           # full run (about a minute)
    python benchmarks/pg_failover.py --smoke   # tiny sizes, a few seconds

Servers: a private primary (``initdb``, its own port and directory under a temp dir, loopback only) and a
streaming standby made by ``pg_basebackup -R`` (``tests/reliability/servers.py``'s ``PrivatePostgres``),
the primary with ``synchronous_standby_names = '*'`` and ``synchronous_commit = local``: the deployment's
own commits wait for the local flush only. Both sides acquire leases on fresh sessions (one
``try_acquire`` each, no release), on a pool of one connection:

* **ours**: ``replication_guard="require"``: the acquisition commits with ``synchronous_commit = on``,
  so its reply waits for the standby's flush (the guarantee of docs/guarantees.md, "Failover");
* **baseline**: ``replication_guard="off"``: the same statement with the session's ``local``, what a
  deployment without the guarantee (asynchronous replication) pays.

Each round runs one chunk on each side, the order rotating. Printed per case: acquisitions/s of each side
(medians over rounds), the per-round ratio on / off, and in a note the wall time per acquisition of each
side and their difference: the cost of the guarantee. No target: this is a price, not a speed goal.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import uuid
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from _timing import Report, Result, Sample, main, rounds  # benchmarks/_timing.py (run as a script)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tests.reliability.servers
from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends, ensure_schema
from tests.reliability.servers import PrivatePostgres

TITLE = "PostgreSQL failover guard"
CASES = ("sync acquisition, guard on / off", "async acquisition, guard on / off")
SCHEMA = "bench_guard"
TTL = timedelta(seconds=30)


def note(on: Sequence[Sample], off: Sequence[Sample]) -> str:
    on_ms, off_ms = (statistics.median(s.wall / s.operations for s in side) * 1e3 for side in (on, off))
    return f"per acquisition {on_ms:.2f} ms guard on vs {off_ms:.2f} ms off (+{on_ms - off_ms:.2f} ms)"


def run_sync(dsn: str, chunk: int, repeats: int) -> Result:
    on = PostgresSessionBackends(dsn, "bench-on", schema=SCHEMA, pool_max_size=1, replication_guard="require")
    off = PostgresSessionBackends(dsn, "bench-off", schema=SCHEMA, pool_max_size=1, replication_guard="off")
    assert on.check_replication().guaranteed

    def side(bundle: PostgresSessionBackends) -> float:
        for _ in range(chunk):
            assert bundle.leases.try_acquire(uuid.uuid4().hex, "node-a", TTL) is not None
        return chunk

    try:
        samples = rounds({"on": lambda: side(on), "off": lambda: side(off)}, repeats)
    finally:
        on.close()
        off.close()
    return Result.timed(TITLE, CASES[0], samples["on"], samples["off"], note=note(samples["on"], samples["off"]))


def run_async(runner: asyncio.Runner, dsn: str, chunk: int, repeats: int) -> Result:
    on = AsyncPostgresSessionBackends(dsn, "bench-on", schema=SCHEMA, pool_max_size=1, replication_guard="require")
    off = AsyncPostgresSessionBackends(dsn, "bench-off", schema=SCHEMA, pool_max_size=1, replication_guard="off")
    assert runner.run(on.check_replication()).guaranteed

    async def block(bundle: AsyncPostgresSessionBackends) -> float:
        for _ in range(chunk):
            assert await bundle.leases.try_acquire(uuid.uuid4().hex, "node-a", TTL) is not None
        return chunk

    try:
        samples = rounds({"on": lambda: runner.run(block(on)), "off": lambda: runner.run(block(off))}, repeats)
    finally:
        runner.run(on.close())
        runner.run(off.close())
    return Result.timed(TITLE, CASES[1], samples["on"], samples["off"], note=note(samples["on"], samples["off"]))


def measure(args: argparse.Namespace) -> Report:
    chunk = 5 if args.smoke else 100
    primary = PrivatePostgres()
    standby: PrivatePostgres | None = None
    try:
        primary.start()
        standby = PrivatePostgres(replica_of=primary)
        standby.start()
        primary.configure(synchronous_standby_names="*", synchronous_commit="local")
        primary.wait_synchronous()
        ensure_schema(primary.dsn, SCHEMA)
        found = [run_sync(primary.dsn, chunk, args.repeats)]
        with asyncio.Runner() as runner:
            found.append(run_async(runner, primary.dsn, chunk, args.repeats))
    finally:
        for server in (standby, primary):
            if server is not None:
                server.destroy()
    return Report(found, {
        "PostgreSQL failover guard servers": "a private primary and one synchronous streaming standby "
        f"(PostgreSQL {primary.bin.parts[-2]}, same host, same disk, fsync on), "
        "synchronous_commit=local on the primary",
        "PostgreSQL failover guard sizes": f"{chunk} acquisitions (fresh sessions) per round and side, a pool of one "
        "connection per side",
    })  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, repeats=15))
