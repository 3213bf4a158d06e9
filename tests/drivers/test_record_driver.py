"""Driver-level tests of the session-record primitives on every backend family: the fence check and the
write are one atomic step, so concurrent writers with different tokens never let a lower token land after
a higher one was accepted; a counter increment and an agent binding are atomic under contention."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from aimon_mongo.model.record import SessionRecord
from aimon_mongo.services.fencing import Stale
from tests.conformance.helpers import new_id
from tests.drivers.conftest import driver_of
from tests.drivers.fenced_calls import Call, late_lower_writes, timed

TOP = 5
"""The highest token of the race (writers 2..TOP, one node each)."""

TOP_ROUNDS = 8
LOWER_ROUNDS_AFTER_TOP = 3


async def _decoded(store: Any, raw: Any, session_id: str) -> SessionRecord:
    """``driver.decode`` through either flavour (a sync store's driver is wrapped: every call awaited)."""
    record = driver_of(store).decode(raw, session_id)
    return await record if inspect.isawaitable(record) else record


async def test_a_lower_token_never_lands_after_a_higher_one_was_accepted(cluster: Any) -> None:
    session = new_id()
    drivers = {token: driver_of((await cluster.node(f"node-{token}")).records) for token in range(2, TOP + 1)}
    assert await drivers[2].merge_transcript(session, "token 2", 2) is None
    top_done = asyncio.Event()

    async def top_writer() -> list[Call]:
        calls = []
        for _ in range(TOP_ROUNDS):
            calls.append(await timed(TOP, drivers[TOP].merge_transcript, session, f"token {TOP}", TOP))
        top_done.set()
        return calls

    async def lower_writer(token: int) -> list[Call]:
        calls, after_top = [], 0
        while after_top < LOWER_ROUNDS_AFTER_TOP:  # keeps writing until after the top writer finished
            after_top += top_done.is_set()
            calls.append(await timed(token, drivers[token].merge_transcript, session, f"token {token}", token))
        return calls

    runs = await asyncio.gather(top_writer(), *(lower_writer(token) for token in range(2, TOP)))
    calls = [call for run in runs for call in run]
    assert all(call.accepted for call in runs[0])  # the highest token is never refused
    assert late_lower_writes(calls) == []
    refused = [call for call in calls if not call.accepted]
    assert len(refused) >= LOWER_ROUNDS_AFTER_TOP * (TOP - 2)  # every lower writer was refused after the top
    assert all(isinstance(call.result, Stale) and call.result.highest is not None for call in refused)
    record = await (await cluster.node("node-2")).records.load(session)
    assert record is not None and record.transcript == f"token {TOP}"


async def test_concurrent_increments_with_one_token_each_count_once(cluster: Any) -> None:
    nodes = [await cluster.node(f"node-{i}") for i in range(4)]
    session = new_id()
    assert await driver_of(nodes[0].records).merge_transcript(session, "t", 3) is None
    counts = await asyncio.gather(*(driver_of(nodes[i % 4].records).increment_failures(session, 3) for i in range(16)))
    assert sorted(counts) == list(range(1, 17))
    record = await nodes[1].records.load(session)
    assert record is not None and record.compaction_failure_count == 16


async def test_concurrent_provisions_bind_exactly_one_agent(cluster: Any) -> None:
    nodes = [await cluster.node(f"node-{i}") for i in range(4)]
    session = new_id()
    agents = [f"agent-{i}" for i in range(12)]
    raws = await asyncio.gather(
        *(driver_of(nodes[i % 4].records).provision(session, agent, 1) for i, agent in enumerate(agents))
    )
    assert not any(isinstance(raw, Stale) for raw in raws)
    bound = {(await _decoded(nodes[0].records, raw, session)).agent_ref for raw in raws}
    assert len(bound) == 1 and bound <= set(agents)  # every provision saw the one binding that won
    record = await nodes[2].records.load(session)
    assert record is not None and {record.agent_ref} == bound
