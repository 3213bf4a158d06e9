"""Session records and log segments: partial writes round-trip; segments are per session and immutable."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from aimon_mongo.errors import InvalidArgumentError, SessionLogSegmentStoreError
from aimon_mongo.model.record import LogSegment, SessionTotals
from tests.conformance.helpers import new_id, now_ms

TOTALS = SessionTotals(
    turn_count=3, iterations=7, prompt_tokens=1000, completion_tokens=200, total_tokens=1200, reasoning_tokens=50
)


async def test_record_partial_writes_round_trip(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    assert await a.records.load(session) is None
    assert await a.records.exists(session) is False

    provisioned = await a.records.provision(session, "assistant", 1)
    assert (provisioned.session_id, provisioned.agent_ref, provisioned.transcript) == (session, "assistant", None)
    assert provisioned.compaction_failure_count == 0
    assert await a.records.exists(session) is True
    rebound = await a.records.provision(session, "another-agent", 1)  # an existing binding wins
    assert rebound.agent_ref == "assistant"

    transcript = '{"entries":[{"role":"user","text":"h\\u00e9llo \\u0000"}]}'
    await a.records.merge_transcript(session, transcript, 1)
    await a.records.set_totals_and_budget_override(session, TOTALS, {"maxTokens": 5000, "nested": {"a": [1]}}, 1)
    assert await a.records.increment_compaction_failure_count(session, 1) == 1
    assert await a.records.increment_compaction_failure_count(session, 1) == 2

    record = await b.records.load(session)
    assert record is not None
    assert record.transcript == transcript
    assert record.agent_ref == "assistant"
    assert record.session_totals == TOTALS
    assert record.budget_override == {"maxTokens": 5000, "nested": {"a": [1]}}
    assert record.compaction_failure_count == 2
    assert record.updated_at is not None

    await b.records.merge_transcript(session, "second", 1)  # side fields are preserved
    await b.records.reset_compaction_failure_count(session, 1)
    await b.records.set_totals_and_budget_override(session, TOTALS, None, 1)
    record = await a.records.load(session)
    assert record is not None
    assert (record.transcript, record.compaction_failure_count, record.budget_override) == ("second", 0, None)
    assert (record.agent_ref, record.session_totals) == ("assistant", TOTALS)
    assert session in await b.records.list_session_ids()

    await a.records.delete(session, 1)
    assert await b.records.load(session) is None
    assert session not in await b.records.list_session_ids()
    await a.records.delete(session, 1)  # deleting a missing record is a no-op


async def test_merge_creates_and_side_writes_need_a_record(node: Any) -> None:
    merged, untouched = new_id(), new_id()
    await node.records.merge_transcript(merged, "t", 1)
    record = await node.records.load(merged)
    assert record is not None and (record.transcript, record.agent_ref) == ("t", None)
    await node.records.set_totals_and_budget_override(untouched, TOTALS, {"x": 1}, 1)
    assert await node.records.increment_compaction_failure_count(untouched, 1) == 0
    await node.records.reset_compaction_failure_count(untouched, 1)
    assert await node.records.load(untouched) is None
    late = await node.records.provision(merged, "bound-late", 1)
    assert late.agent_ref == "bound-late" and late.transcript == "t"


def segment(session: str, segment_id: str, created_delta: timedelta = timedelta(0)) -> LogSegment:
    return LogSegment(
        session_id=session,
        segment_id=segment_id,
        from_seq=10,
        to_seq=19,
        entry_count=10,
        payload='[{"seq":10,"text":"caf\\u00e9"}]',
        created_at=now_ms() + created_delta,
    )


async def test_segments_round_trip_and_are_per_session(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session, other = new_id(), new_id()
    first = segment(session, "seg-1", -timedelta(minutes=2))
    second = segment(session, "seg-2")
    foreign = segment(other, "seg-1")
    await a.segments.put(first, 1)
    await a.segments.put(second, 1)
    await b.segments.put(foreign, 1)
    assert await b.segments.get(session, "seg-1") == first
    assert await b.segments.get(other, "seg-1") == foreign
    assert await b.segments.get(session, "seg-9") is None
    listed = await b.segments.list(session)
    assert [(i.segment_id, i.created_at) for i in listed] == [("seg-1", first.created_at), ("seg-2", second.created_at)]
    with pytest.raises(SessionLogSegmentStoreError):
        await b.segments.put(segment(session, "seg-1"), 1)  # never overwritten
    assert await a.segments.get(session, "seg-1") == first

    await a.segments.delete(session, "seg-1", 1)
    assert [i.segment_id for i in await a.segments.list(session)] == ["seg-2"]
    assert await a.segments.get(other, "seg-1") == foreign
    await a.segments.delete_all(session, 1)
    assert await a.segments.list(session) == []
    assert [i.segment_id for i in await a.segments.list(other)] == ["seg-1"]


async def test_load_many_reads_the_existing_records_of_many_sessions(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    sessions = [new_id() for _ in range(4)]
    for i, session in enumerate(sessions[:3]):
        await a.records.merge_transcript(session, f"transcript {i}", 1)
    loaded = await b.records.load_many([sessions[2], sessions[3], sessions[0], sessions[2]])  # one missing
    assert sorted(loaded) == sorted([sessions[0], sessions[2]])
    assert loaded[sessions[0]] == await b.records.load(sessions[0])
    assert loaded[sessions[2]].transcript == "transcript 2"
    assert await b.records.load_many([]) == {}
    with pytest.raises(InvalidArgumentError, match="session_ids"):
        await b.records.load_many(sessions[0])


async def test_get_many_reads_the_asked_segments_of_one_session_in_the_asked_order(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session, other = new_id(), new_id()
    stored = [segment(session, f"seg-{i}") for i in range(5)]
    for one in stored:
        await a.segments.put(one, 1)
    await a.segments.put(segment(other, "seg-9"), 1)
    assert await b.segments.get_many(session, ["seg-3", "seg-0", "seg-4"]) == [stored[3], stored[0], stored[4]]
    assert await b.segments.get_many(session, ["seg-1", "seg-7", "seg-9", "seg-1"]) == [stored[1]]  # missing left out
    assert await b.segments.get_many(session, []) == []
    assert await b.segments.get_many(new_id(), ["seg-0"]) == []
    with pytest.raises(InvalidArgumentError, match="segment_ids"):
        await b.segments.get_many(session, "seg-0")


PAGED_IDS = ["A", "Z", "_x", "a", "a%20b", "a%2Fb", "a-b", "a_b", "abcd", "abcdA", "abcde", "a~b", "b", "z", "~"]
PAGED_IDS += ["\u00e9", "\u4e2d", "\U0001f600"]
"""Segment ids in code-point order (= the byte order of their UTF-8): upper before lower case, ``%`` before
``-`` before ``_`` before ``~``, non-ASCII last (``sorted`` on ``str`` is code-point order)."""


async def test_list_page_pages_the_ids_in_code_point_order(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session, other = new_id(), new_id()
    assert sorted(PAGED_IDS) == PAGED_IDS
    created = {seg: now_ms() - timedelta(seconds=i) for i, seg in enumerate(reversed(PAGED_IDS))}
    for seg in PAGED_IDS[1::2][::-1] + PAGED_IDS[::2]:  # stored out of order
        await a.segments.put(segment(session, seg).model_copy(update={"created_at": created[seg]}), 1)
    for seg in ("0", "a%20a", "zz"):  # another session's ids, some between ours: never seen
        await a.segments.put(segment(other, seg), 1)
    assert {i.segment_id for i in await a.segments.list(session)} == set(PAGED_IDS)

    first = await b.segments.list_page(session, None, 4)
    assert [(i.segment_id, i.created_at) for i in first] == [(seg, created[seg]) for seg in PAGED_IDS[:4]]
    walked: list[str] = []
    after = None
    for _ in range(len(PAGED_IDS)):
        page = await b.segments.list_page(session, after, 4)
        assert len(page) <= 4
        walked += [i.segment_id for i in page]
        if len(page) < 4:
            break
        after = page[-1].segment_id
    assert walked == PAGED_IDS
    assert [i.segment_id for i in await b.segments.list_page(session, None, 100)] == PAGED_IDS
    assert [i.segment_id for i in await b.segments.list_page(session, "a", 3)] == ["a%20b", "a%2Fb", "a-b"]
    # ``after`` need not be an id the session has
    assert [i.segment_id for i in await b.segments.list_page(session, "a%21", 2)] == ["a%2Fb", "a-b"]
    assert [i.segment_id for i in await b.segments.list_page(session, "B", 2)] == ["Z", "_x"]
    assert [i.segment_id for i in await b.segments.list_page(session, "a~a", 1)] == ["a~b"]
    assert [i.segment_id for i in await b.segments.list_page(session, "\u00ff", 5)] == ["\u4e2d", "\U0001f600"]
    assert await b.segments.list_page(session, "\U0001f600", 5) == []
    assert await b.segments.list_page(new_id(), None, 5) == []
    assert [i.segment_id for i in await b.segments.list_page(other, None, 5)] == ["0", "a%20a", "zz"]


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        (("", None, 5), "session_id"),
        ((None, None, 5), "session_id"),
        (("s", "", 5), "after"),
        (("s", 7, 5), "after"),
        (("s", None, 0), "limit"),
        (("s", None, True), "limit"),
        (("s", None, "5"), "limit"),
    ],
)
async def test_list_page_refuses_bad_arguments_naming_them(node: Any, arguments: tuple[Any, ...], named: str) -> None:
    with pytest.raises(InvalidArgumentError, match=named) as info:
        await node.segments.list_page(*arguments)
    assert repr(arguments[("session_id", "after", "limit").index(named)]) in str(info.value)


async def test_scan_sessions_pages_without_missing_any(node: Any) -> None:
    prefix = new_id("scan")
    old = [f"{prefix}-{i:02d}" for i in range(7)]
    for i, session in enumerate(old):
        await node.segments.put(segment(session, "a", -timedelta(hours=2)), 1)
        if i % 2 == 0:
            await node.segments.put(segment(session, "b", -timedelta(hours=3)), 1)
    young = f"{prefix}-young"
    await node.segments.put(segment(young, "a"), 1)
    cutoff = now_ms() - timedelta(hours=1)
    seen: list[str] = []
    cursor = None
    for _ in range(100):
        page = await node.segments.scan_sessions(cutoff, cursor, 3)
        assert len(page.session_ids) <= 3
        seen.extend(page.session_ids)
        cursor = page.next_cursor
        if cursor is None:
            break
    mine = {s for s in seen if s.startswith(prefix)}
    assert mine == set(old)


async def test_a_duplicate_segment_refusal_names_the_ids_never_the_payload(node: Any) -> None:
    session = new_id()
    first = segment(session, "seg-1")
    await node.segments.put(first, 1)
    with pytest.raises(SessionLogSegmentStoreError) as info:
        await node.segments.put(segment(session, "seg-1").model_copy(update={"payload": '["secret"]'}), 1)
    assert "'seg-1'" in str(info.value) and repr(session) in str(info.value)
    assert "secret" not in str(info.value)
    assert await node.segments.get(session, "seg-1") == first
