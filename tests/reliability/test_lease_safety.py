"""Lease safety across processes: a paused holder's late writes are refused; contested acquisitions never
give two live holders, and fencing tokens strictly increase in acquisition order.

MongoDB, Redis and PostgreSQL run every node as its own process (:mod:`tests.reliability.lease_worker`),
paused with SIGSTOP / resumed with SIGCONT. The in-memory backend keeps its state inside one process, so
its nodes are threads of the test process: the pause is a gate the holder waits at while the test moves
the storage's clock past the lease, and the contest runs on the storage's (system) clock.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from aimon_mongo.memory import AsyncMemorySessionBackends, MemorySessionBackends, MemoryStorage
from tests.conformance.backends import AsyncFacade
from tests.conformance.helpers import new_id
from tests.reliability.lease_log import merge, read_events
from tests.reliability.lease_process import workers
from tests.reliability.lease_scripts import StoreClock, contend, hold, line_writer, micros, take_over
from tests.reliability.lease_worker import describe
from tests.reliability.plugin import Counts, Sizes

HOLD_TTL_MS = 300
CONTENDERS = 4


@pytest.fixture
def backend_name(request: pytest.FixtureRequest) -> str:
    name: str = request.node.callspec.params["cluster"].name
    return name


class ManualClock:
    """The memory storage's clock, moved by the test (the pause scenario)."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


# --- a holder paused past its lease ----------------------------------------------------------------


async def test_paused_holder_late_writes_are_refused(
    cluster: Any, tmp_path: Path, backend_name: str, reliability_counts: Counts
) -> None:
    session = new_id()
    conn = describe(cluster)
    if conn is None:
        old, new, resumed_at, observer = await _pause_in_threads(cluster, session)
    else:
        old, new, resumed_at = await _pause_in_processes(conn, session, tmp_path)
        observer = await cluster.node("observer")

    acquired = next(e for e in old if e["event"] == "acquired")
    writes = [e for e in old if e["event"] == "write"]
    late = [w for w in writes if w["start"] > resumed_at]
    refused = [w for w in writes if w["outcome"] == "stale"]
    reliability_counts.add("lease-pause", backend_name, messages=len(writes) + 2, refused_stale=len(refused))

    assert new["token"] > acquired["token"]
    assert new["start"] >= acquired["expires"], "the new holder's lease began before the old one lapsed"
    assert late, "the old holder wrote nothing after it was resumed"
    assert [w for w in late if w["outcome"] != "stale"] == [], "a write of the resumed old holder was accepted"
    assert {w["kind"] for w in late} == {"record", "segment"}
    record = await observer.records.load(session)
    assert record is not None and record.transcript == new["label"]
    stored = {info.segment_id for info in await observer.segments.list(session)}
    accepted = {w["label"] for w in writes if w["kind"] == "segment" and w["outcome"] == "ok"}
    assert stored == accepted | {new["label"]}


async def _pause_in_processes(
    conn: dict[str, Any], session: str, log_dir: Path
) -> tuple[list[dict[str, Any]], dict[str, Any], float]:
    specs: list[dict[str, Any]] = [
        {"conn": conn, "node": "node-a", "session": session, "script": "hold", "ttl_ms": HOLD_TTL_MS},
        {"conn": conn, "node": "node-b", "session": session, "script": "take_over"},
    ]
    async with workers(specs, log_dir) as (old, new):
        events: list[dict[str, Any]] = []
        await old.go()
        events.append(await old.wait_for("holding", events))
        os.kill(old.pid, signal.SIGSTOP)  # paused while it holds the lease; the lease lapses meanwhile
        await new.go()
        took_over = await new.wait_for("took-over")
        await new.finished()
        resumed_at = time.monotonic()
        os.kill(old.pid, signal.SIGCONT)
        await old.wait_for("done", events)
        await old.finished()
    return events, took_over, resumed_at


async def _pause_in_threads(cluster: Any, session: str) -> tuple[list[dict[str, Any]], dict[str, Any], float, Any]:
    """The memory flavour of the pause: returns the old holder's events, the new one's, the resume time and
    a bundle on the same storage to read the result with."""
    clock = ManualClock()
    storage = MemoryStorage(clock)
    flavour = AsyncMemorySessionBackends if cluster.is_async else MemorySessionBackends
    nodes: list[Any] = [flavour(node, storage) for node in ("node-a", "node-b", "observer")]
    old_node, new_node, observer = nodes if cluster.is_async else [AsyncFacade(node) for node in nodes]
    events: list[dict[str, Any]] = []
    holding, parked, running = threading.Event(), threading.Event(), threading.Event()
    running.set()

    def emit(event: dict[str, Any]) -> None:
        events.append(event)
        if event["event"] == "holding":
            holding.set()

    async def pace() -> None:  # where the paused holder stops: between two rounds of writes
        await asyncio.sleep(0.01)
        if not running.is_set():
            parked.set()
            await asyncio.to_thread(running.wait)

    holder = asyncio.ensure_future(
        asyncio.to_thread(asyncio.run, hold(old_node, session, "node-a", HOLD_TTL_MS, emit, pace))
    )  # its own thread and event loop, as another node would be
    try:
        assert await asyncio.to_thread(holding.wait, 30)
        running.clear()
        assert await asyncio.to_thread(parked.wait, 30)
        clock.now += timedelta(milliseconds=HOLD_TTL_MS + 1)  # paused past its lease
        took_over: list[dict[str, Any]] = []
        await take_over(new_node, session, "node-b", took_over.append)
        resumed_at = time.monotonic()
    finally:
        running.set()
        await asyncio.wait_for(holder, 60)
    assert events[-1]["event"] == "done"
    return events, took_over[0], resumed_at, observer


# --- contested acquisitions ------------------------------------------------------------------------


async def test_contested_acquisitions_never_two_live_holders(
    cluster: Any, tmp_path: Path, backend_name: str, sizes: Sizes, reliability_counts: Counts
) -> None:
    per_contender = sizes.pick(ci=100, full=1000) // CONTENDERS
    session = new_id()
    seed = random.randrange(2**32)
    logs = [tmp_path / f"node-{i}.log" for i in range(CONTENDERS)]
    conn = describe(cluster)
    if conn is None:
        await _contest_in_threads(cluster, session, per_contender, seed, logs)
    else:
        specs = [
            {"conn": conn, "node": f"node-{i}", "session": session, "script": "contend",
             "acquisitions": per_contender, "seed": seed + i, "log": str(log)}
            for i, log in enumerate(logs)
        ]  # fmt: skip
        async with workers(specs, tmp_path) as started:
            for worker in started:
                await worker.go()
            for worker in started:
                await worker.finished()

    report = merge(read_events(logs))
    stale = [s for s in report.leases if s.write == "stale"]
    reliability_counts.add(
        "lease-contest", backend_name, messages=len(report.leases), refused_stale=len(stale), errors=report.errors
    )
    context = f"seed {seed}, logs in {tmp_path}"
    assert report.errors == 0, context
    assert len(report.leases) == CONTENDERS * per_contender, context
    assert report.future_starts == [], context
    assert report.overlaps == [], context
    assert report.token_regressions == [], context
    assert report.after_release > 0 and report.after_lapse > 0, context
    # Fencing under contention: the record holds the write made with the highest accepted token.
    accepted = [s for s in report.leases if s.write == "ok"]
    assert accepted, context
    top = max(accepted, key=lambda s: s.token)
    assert all(s.token < top.token for s in stale), context
    record = await (await cluster.node("observer")).records.load(session)
    assert record is not None and record.transcript == f"{top.holder} {top.token}", context


async def _contest_in_threads(cluster: Any, session: str, per_contender: int, seed: int, logs: list[Path]) -> None:
    nodes = [await cluster.node(f"node-{i}") for i in range(CONTENDERS)]
    storage: MemoryStorage = cluster.storage

    async def now() -> int:
        return micros(storage.clock())

    def run(index: int) -> None:
        with logs[index].open("a") as log:
            emit = line_writer(log)
            clock = StoreClock(now)
            asyncio.run(contend(nodes[index], session, f"node-{index}", per_contender, seed + index, emit, clock))

    await asyncio.gather(*(asyncio.to_thread(run, i) for i in range(CONTENDERS)))  # one thread each
