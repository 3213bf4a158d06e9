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
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from aimon_mongo.memory import AsyncMemorySessionBackends, MemorySessionBackends, MemoryStorage
from tests.conformance.backends import AsyncFacade
from tests.conformance.helpers import new_id
from tests.reliability.lease_log import merge, read_events
from tests.reliability.lease_process import WAIT_SECONDS, workers
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


@dataclass
class PauseRound:
    session: str
    old: list[dict[str, Any]]
    """The old holder's events: ``acquired``, its ``write``s, ``holding``, ``done``."""
    new: dict[str, Any]
    """The new holder's ``took-over`` event."""
    resumed_at: float
    """``time.monotonic()`` just before the old holder was let go on."""


async def test_paused_holder_late_writes_are_refused(
    cluster: Any, tmp_path: Path, backend_name: str, sizes: Sizes, reliability_counts: Counts
) -> None:
    sessions = [new_id() for _ in range(sizes.pick(ci=3, full=30))]
    seed = random.randrange(2**32)
    conn = describe(cluster)
    if conn is None:
        played, observer = await _pause_in_threads(cluster, sessions)
    else:
        played = await _pause_in_processes(conn, sessions, random.Random(seed), tmp_path)
        observer = await cluster.node("observer")
    for played_round in played:
        await _check_pause(played_round, observer, backend_name, reliability_counts, f"seed {seed}")


async def _check_pause(played: PauseRound, observer: Any, backend_name: str, counts: Counts, context: str) -> None:
    acquired = next(e for e in played.old if e["event"] == "acquired")
    writes = [e for e in played.old if e["event"] == "write"]
    late = [w for w in writes if w["start"] > played.resumed_at]
    refused = [w for w in writes if w["outcome"] == "stale"]
    counts.add("lease-pause", backend_name, messages=len(writes) + 2, refused_stale=len(refused))
    context = f"{context}, session {played.session}, events {played.old}"
    assert played.new["token"] > acquired["token"], context
    assert played.new["start"] >= acquired["expires"], f"the new lease began before the old one lapsed; {context}"
    assert late, f"the old holder wrote nothing after it was resumed; {context}"
    assert [w for w in late if w["outcome"] != "stale"] == [], f"a late write was accepted; {context}"
    # a write in flight when it was stopped may end either way; both kinds end refused after the resume
    assert {w["kind"] for w in refused if w["end"] > played.resumed_at} == {"record", "segment"}, context
    record = await observer.records.load(played.session)
    assert record is not None and record.transcript == played.new["label"], context
    stored = {info.segment_id for info in await observer.segments.list(played.session)}
    accepted = {w["label"] for w in writes if w["kind"] == "segment" and w["outcome"] == "ok"}
    assert stored == accepted | {played.new["label"]}, context


async def _pause_in_processes(
    conn: dict[str, Any], sessions: list[str], rng: random.Random, log_dir: Path
) -> list[PauseRound]:
    specs: list[dict[str, Any]] = [
        {"conn": conn, "node": "node-a", "script": "hold", "ttl_ms": HOLD_TTL_MS},
        {"conn": conn, "node": "node-b", "script": "take_over"},
    ]
    played: list[PauseRound] = []
    async with workers(specs, log_dir) as (old, new):
        for session in sessions:
            events: list[dict[str, Any]] = []
            await old.go(session)
            events.append(await old.wait_for("holding", events))
            await asyncio.sleep(rng.uniform(0, 0.02))  # stop it anywhere: writing, or between two rounds
            os.kill(old.pid, signal.SIGSTOP)  # paused while it holds the lease; the lease lapses meanwhile
            await new.go(session)
            took_over = await new.wait_for("took-over")
            await new.wait_for("finished")
            resumed_at = time.monotonic()
            os.kill(old.pid, signal.SIGCONT)
            await old.wait_for("finished", events)
            played.append(PauseRound(session, events, took_over, resumed_at))
        await old.close()
        await new.close()
    return played


async def _pause_in_threads(cluster: Any, sessions: list[str]) -> tuple[list[PauseRound], Any]:
    """The memory flavour of the pause (the old holder in its own thread and event loop, as another node
    would be); returns the rounds and a bundle on the same storage to read the results with."""
    clock = ManualClock()
    storage = MemoryStorage(clock)
    flavour = AsyncMemorySessionBackends if cluster.is_async else MemorySessionBackends
    nodes: list[Any] = [flavour(node, storage) for node in ("node-a", "node-b", "observer")]
    old_node, new_node, observer = nodes if cluster.is_async else [AsyncFacade(node) for node in nodes]
    played: list[PauseRound] = []
    for session in sessions:
        events: list[dict[str, Any]] = []
        holding, parked, running = threading.Event(), threading.Event(), threading.Event()
        running.set()

        def emit(event: dict[str, Any], events: list[dict[str, Any]] = events, holding: Any = holding) -> None:
            events.append(event)
            if event["event"] == "holding":
                holding.set()

        async def pace(parked: Any = parked, running: Any = running) -> None:  # the old holder's stop point
            await asyncio.sleep(0.01)
            if not running.is_set():
                parked.set()
                await asyncio.to_thread(running.wait)

        holder = asyncio.ensure_future(
            asyncio.to_thread(asyncio.run, hold(old_node, session, "node-a", HOLD_TTL_MS, emit, pace))
        )
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
        played.append(PauseRound(session, events, took_over[0], resumed_at))
    return played, observer


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
            {"conn": conn, "node": f"node-{i}", "script": "contend",
             "acquisitions": per_contender, "seed": seed + i, "log": str(log)}
            for i, log in enumerate(logs)
        ]  # fmt: skip
        async with workers(specs, tmp_path) as started:
            for worker in started:
                await worker.go(session)
            for worker in started:  # a whole contest is one round: allow it 1 s per acquisition
                await worker.wait_for("finished", timeout=max(WAIT_SECONDS, per_contender * CONTENDERS))
                await worker.close()

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
