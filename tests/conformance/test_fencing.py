"""Fenced writes: a paused old holder's late write is refused once a newer holder has taken the session
(the acquisition raises the write fence; the new holder need not have written)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from aimon_mongo.errors import StaleFencingTokenError
from aimon_mongo.model.record import LogSegment, SessionTotals
from tests.conformance.helpers import new_id, now_ms


def segment(session: str, segment_id: str) -> LogSegment:
    return LogSegment(
        session_id=session, segment_id=segment_id, from_seq=0, to_seq=0, entry_count=1, payload="[]",
        created_at=now_ms(),
    )  # fmt: skip


async def _take_over(cluster: Any, session: str) -> tuple[Any, Any, Any, Any]:
    """node-a holds the lease, pauses past its expiry; node-b takes over. Returns (a, old, b, new)."""
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    old = await a.leases.try_acquire(session, "node-a", timedelta(milliseconds=150))
    assert old is not None
    await a.records.provision(session, "assistant", old.fencing_token)
    await a.records.merge_transcript(session, "written by a", old.fencing_token)
    await asyncio.sleep(0.4)  # node-a is "paused" past its lease
    new = await b.leases.try_acquire(session, "node-b", timedelta(seconds=30))
    assert new is not None and new.fencing_token > old.fencing_token
    return a, old, b, new


async def test_late_record_write_of_a_paused_holder_is_refused(cluster: Any) -> None:
    session = new_id()
    a, old, b, new = await _take_over(cluster, session)
    await b.records.merge_transcript(session, "written by b", new.fencing_token)
    with pytest.raises(StaleFencingTokenError) as info:
        await a.records.merge_transcript(session, "late write by a", old.fencing_token)
    assert (info.value.session_id, info.value.token) == (session, old.fencing_token)
    for late in (
        a.records.provision(session, "x", old.fencing_token),
        a.records.set_totals_and_budget_override(session, SessionTotals(turn_count=9), None, old.fencing_token),
        a.records.increment_compaction_failure_count(session, old.fencing_token),
        a.records.reset_compaction_failure_count(session, old.fencing_token),
        a.records.delete(session, old.fencing_token),
    ):
        with pytest.raises(StaleFencingTokenError):
            await late
    record = await b.records.load(session)
    assert record is not None
    assert (record.transcript, record.agent_ref, record.session_totals) == ("written by b", "assistant", None)
    await b.records.merge_transcript(session, "b again", new.fencing_token)  # an equal token is accepted


async def test_taking_a_session_fences_the_old_holder_before_the_new_one_writes(cluster: Any) -> None:
    session = new_id()
    a, old, b, new = await _take_over(cluster, session)  # node-b has written nothing yet
    with pytest.raises(StaleFencingTokenError) as info:
        await a.records.merge_transcript(session, "late write by a", old.fencing_token)
    assert (info.value.token, info.value.highest) == (old.fencing_token, new.fencing_token)
    with pytest.raises(StaleFencingTokenError):
        await a.segments.put(segment(session, "by-a"), old.fencing_token)
    with pytest.raises(StaleFencingTokenError):
        await a.records.delete(session, old.fencing_token)
    record = await b.records.load(session)
    assert record is not None and record.transcript == "written by a"
    assert await b.segments.list(session) == []
    await b.records.merge_transcript(session, "written by b", new.fencing_token)  # the holder's own token passes
    await b.segments.put(segment(session, "by-b"), new.fencing_token)


async def test_re_acquiring_under_the_same_holder_id_fences_the_older_process(cluster: Any) -> None:
    """A host restarted under the same node id re-acquires its own live lease: the older process's writes
    are refused at once."""
    before, restarted = await cluster.node("node-a"), await cluster.node("node-a")
    session = new_id()
    old = await before.leases.try_acquire(session, "node-a", timedelta(seconds=30))
    assert old is not None
    await before.records.provision(session, "assistant", old.fencing_token)
    new = await restarted.leases.try_acquire(session, "node-a", timedelta(seconds=30))
    assert new is not None and new.fencing_token > old.fencing_token
    with pytest.raises(StaleFencingTokenError):
        await before.records.merge_transcript(session, "by the older process", old.fencing_token)
    with pytest.raises(StaleFencingTokenError):
        await before.segments.put(segment(session, "old"), old.fencing_token)
    await restarted.records.merge_transcript(session, "by the new process", new.fencing_token)
    record = await restarted.records.load(session)
    assert record is not None and record.transcript == "by the new process"


async def test_records_and_segments_share_one_fence(cluster: Any) -> None:
    session = new_id()
    a, old, b, new = await _take_over(cluster, session)
    await b.segments.put(segment(session, "by-b"), new.fencing_token)  # the new holder wrote a segment only
    with pytest.raises(StaleFencingTokenError):
        await a.records.merge_transcript(session, "late", old.fencing_token)
    with pytest.raises(StaleFencingTokenError):
        await a.segments.put(segment(session, "by-a"), old.fencing_token)
    with pytest.raises(StaleFencingTokenError):
        await a.segments.delete(session, "by-b", old.fencing_token)
    with pytest.raises(StaleFencingTokenError):
        await a.segments.delete_all(session, old.fencing_token)
    assert await b.segments.get(session, "by-a") is None
    assert [i.segment_id for i in await b.segments.list(session)] == ["by-b"]
    record = await b.records.load(session)
    assert record is not None and record.transcript == "written by a"


async def test_fences_are_per_session(node: Any) -> None:
    first, second = new_id(), new_id()
    await node.records.merge_transcript(first, "high", 50)
    await node.records.merge_transcript(second, "low", 2)  # another session's fence is unaffected
    with pytest.raises(StaleFencingTokenError):
        await node.records.merge_transcript(first, "lower", 49)
    record = await node.records.load(second)
    assert record is not None and record.transcript == "low"


async def test_fence_survives_record_deletion(node: Any) -> None:
    session = new_id()
    await node.records.merge_transcript(session, "t", 7)
    await node.records.delete(session, 7)
    with pytest.raises(StaleFencingTokenError):
        await node.records.merge_transcript(session, "resurrected by a stale writer", 6)
    assert await node.records.load(session) is None


async def test_concurrent_writers_the_newest_token_wins(cluster: Any) -> None:
    nodes = [await cluster.node(f"node-{i}") for i in range(4)]
    session = new_id()
    await nodes[0].records.merge_transcript(session, "token 1", 1)

    async def write(index: int, token: int) -> str:
        try:
            await nodes[index].records.merge_transcript(session, f"token {token}", token)
            return "ok"
        except StaleFencingTokenError:
            return "stale"

    outcomes = await asyncio.gather(*(write(i % 4, token) for i, token in enumerate(range(2, 14))))
    assert "ok" in outcomes
    record = await nodes[0].records.load(session)
    assert record is not None and record.transcript == "token 13"
    with pytest.raises(StaleFencingTokenError):
        await nodes[1].records.merge_transcript(session, "too late", 12)


async def test_a_stale_refusal_names_the_session_the_token_and_the_winner(node: Any) -> None:
    session = new_id()
    await node.segments.put(segment(session, "by-9"), 9)  # the fence the records share is at 9
    with pytest.raises(StaleFencingTokenError) as info:
        await node.records.merge_transcript(session, "secret transcript", 4)
    assert (info.value.session_id, info.value.token, info.value.highest) == (session, 4, 9)
    assert repr(session) in str(info.value) and "token 4" in str(info.value)
    assert "secret" not in str(info.value)
    assert await node.records.load(session) is None
