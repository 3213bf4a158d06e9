"""Driver-level tests of the log-segment primitives on every backend family: a put never overwrites (of
concurrent puts of one segment id exactly one is stored), and a put with a lower token never lands after
one with a higher token was accepted — the fence being the one the session records share."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from aimon_mongo.model.record import LogSegment
from aimon_mongo.services.fencing import Stale
from tests.conformance.helpers import new_id, now_ms
from tests.drivers.conftest import driver_of
from tests.drivers.fenced_calls import Call, late_lower_writes, timed

TOP = 5
TOP_ROUNDS = 8
LOWER_ROUNDS_AFTER_TOP = 3


def segment(session: str, segment_id: str, payload: str = "[]") -> LogSegment:
    return LogSegment(
        session_id=session, segment_id=segment_id, from_seq=0, to_seq=0, entry_count=1, payload=payload,
        created_at=now_ms() - timedelta(minutes=1),
    )  # fmt: skip


async def test_of_concurrent_puts_of_one_segment_id_exactly_one_is_stored(cluster: Any) -> None:
    nodes = [await cluster.node(f"node-{i}") for i in range(4)]
    session = new_id()
    payloads = [f'[{{"writer":{i}}}]' for i in range(12)]
    stored = await asyncio.gather(
        *(driver_of(nodes[i % 4].segments).put(segment(session, "seg", p), 1) for i, p in enumerate(payloads))
    )
    assert stored.count(True) == 1 and stored.count(False) == len(payloads) - 1
    kept = await nodes[1].segments.get(session, "seg")
    assert kept is not None and kept.payload == payloads[stored.index(True)]
    assert [info.segment_id for info in await nodes[2].segments.list(session)] == ["seg"]


async def test_a_lower_token_put_never_lands_after_a_higher_one_was_accepted(cluster: Any) -> None:
    session = new_id()
    drivers = {token: driver_of((await cluster.node(f"node-{token}")).segments) for token in range(2, TOP + 1)}
    top_done = asyncio.Event()

    async def writer(token: int) -> list[tuple[str, Call]]:
        calls, round_, after_top = [], 0, 0
        while (round_ < TOP_ROUNDS) if token == TOP else (after_top < LOWER_ROUNDS_AFTER_TOP):
            after_top += top_done.is_set()
            seg = segment(session, f"t{token}-{round_}")
            calls.append((seg.segment_id, await timed(token, drivers[token].put, seg, token)))
            round_ += 1
        if token == TOP:
            top_done.set()
        return calls

    runs = await asyncio.gather(*(writer(token) for token in range(TOP, 1, -1)))
    calls = [call for run in runs for call in run]
    assert all(call.result is True for _, call in runs[0])  # the highest token is never refused
    assert late_lower_writes([call for _, call in calls]) == []
    refused = [call for _, call in calls if not call.accepted]
    assert len(refused) >= LOWER_ROUNDS_AFTER_TOP * (TOP - 2)
    assert all(isinstance(call.result, Stale) for call in refused)
    listed = {info.segment_id for info in await (await cluster.node("node-2")).segments.list(session)}
    assert listed == {segment_id for segment_id, call in calls if call.result is True}  # no refused put stays


async def test_record_writes_are_refused_once_a_higher_segment_put_was_accepted(cluster: Any) -> None:
    session = new_id()
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    records, segments = driver_of(a.records), driver_of(b.segments)
    top_done = asyncio.Event()

    async def puts() -> list[Call]:
        calls = []
        for round_ in range(TOP_ROUNDS):
            seg = segment(session, f"s{round_}")
            calls.append(await timed(TOP, segments.put, seg, TOP))
        top_done.set()
        return calls

    async def merges() -> list[Call]:
        calls, after_top = [], 0
        while after_top < LOWER_ROUNDS_AFTER_TOP:
            after_top += top_done.is_set()
            calls.append(await timed(2, records.merge_transcript, session, "low", 2))
        return calls

    top, low = await asyncio.gather(puts(), merges())
    assert all(call.result is True for call in top)
    assert late_lower_writes(top + low) == []
    assert sum(not call.accepted for call in low) >= LOWER_ROUNDS_AFTER_TOP
