"""Load: 8 collectors (threads for sync bundles, asyncio tasks for async ones) drain one session while 4
deliverers fill it with mixed priorities → no message lost, none delivered twice, and every batch in
priority order, then delivery order within a priority.

CI sizes are per family (the MongoDB stand-in does a few hundred ``find_one_and_delete`` per second);
``--scale`` runs 10,000 messages on every family.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from tests.conformance.helpers import new_id
from tests.reliability import load_run as run
from tests.reliability.families import family_name, is_memory, is_mongo
from tests.reliability.plugin import Counts, Sizes


def _size(request: pytest.FixtureRequest, sizes: Sizes) -> int:
    if is_mongo(request):
        return sizes.pick(ci=500, full=10_000)
    return sizes.pick(ci=2_000, full=10_000)


async def test_concurrent_collectors_take_every_message_once_in_order(
    cluster: Any, request: pytest.FixtureRequest, sizes: Sizes, reliability_counts: Counts
) -> None:
    total = _size(request, sizes)
    plans = run.plan(total, seed=total)
    collectors = [await cluster.node(f"collector-{i}") for i in range(run.COLLECTORS)]
    deliverers = [await cluster.node(f"deliverer-{i}") for i in range(run.DELIVERERS)]
    session = new_id("load")
    if cluster.is_async:
        taken = await run.run_tasks([c.inbox for c in collectors], [d.inbox for d in deliverers], session, plans)
    else:  # the sync bundles themselves (not the test facade), driven from real threads
        taken = await asyncio.to_thread(
            run.run_threads,
            [c.unwrapped.inbox for c in collectors],
            [d.unwrapped.inbox for d in deliverers],
            session,
            plans,
        )
        assert len(taken.collector_threads) == run.COLLECTORS

    everything = [turn for batches in taken.batches for batch in batches for turn, _ in batch]
    counted = Counter(everything)
    duplicates = sum(n - 1 for n in counted.values())
    lost = sum(1 for part in plans for p in part if p.turn_id not in counted)
    reliability_counts.add("load", family_name(request), messages=total, duplicates=duplicates, lost=lost)
    assert (duplicates, lost, taken.unreadable) == (0, 0, 0), "(duplicates, lost, unreadable)"
    assert len(everything) == total
    assert run.largest_batch(taken) >= 2  # the backlog: order inside a batch was really checked
    assert run.order_violations(taken, plans) == []
    if not is_memory(request):
        # Collect calls really overlapped (an in-memory collect holds one lock and never awaits).
        assert taken.max_in_flight >= 2, taken.max_in_flight
