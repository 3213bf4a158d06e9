"""Inbox: deliver / collect (priority then FIFO, batch bound, max_priority) / peek / is_empty / purge."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model import Priority
from tests.conformance.helpers import bounded_gather, message, new_id, rich_message
from tests.reliability.plugin import Sizes


async def test_deliver_assigns_ids_and_collect_round_trips(node: Any) -> None:
    session = new_id()
    original = rich_message(session)
    entry_id = await node.inbox.deliver(original.model_copy(update={"id": "caller-id-is-ignored"}))
    assert isinstance(entry_id, str) and entry_id and entry_id != "caller-id-is-ignored"
    batch = await node.inbox.collect(session)
    assert batch.unreadable == ()
    assert batch.messages == (original.with_id(entry_id),)
    assert await node.inbox.is_empty(session)


async def test_priority_then_fifo(node: Any) -> None:
    session = new_id()
    plan = [
        ("later-1", Priority.LATER),
        ("next-1", Priority.NEXT),
        ("now-1", Priority.NOW),
        ("later-2", Priority.LATER),
        ("next-2", Priority.NEXT),
        ("now-2", Priority.NOW),
        ("next-3", Priority.NEXT),
    ]
    for turn, priority in plan:
        await node.inbox.deliver(message(session, turn_id=turn, priority=priority))
    batch = await node.inbox.collect(session)
    assert [m.turn_id for m in batch.messages] == [
        "now-1", "now-2", "next-1", "next-2", "next-3", "later-1", "later-2",
    ]  # fmt: skip


async def test_max_priority_leaves_lower_tiers(node: Any) -> None:
    session = new_id()
    for turn, priority in [("l", Priority.LATER), ("n", Priority.NEXT), ("w", Priority.NOW)]:
        await node.inbox.deliver(message(session, turn_id=turn, priority=priority))
    assert [m.turn_id for m in (await node.inbox.collect(session, Priority.NOW)).messages] == ["w"]
    assert [m.turn_id for m in (await node.inbox.collect(session, Priority.NOW)).messages] == []
    assert not await node.inbox.is_empty(session)
    assert [m.turn_id for m in (await node.inbox.collect(session, Priority.NEXT)).messages] == ["n"]
    assert [m.turn_id for m in (await node.inbox.collect(session, Priority.LATER)).messages] == ["l"]
    assert await node.inbox.is_empty(session)


async def test_batch_bound(node: Any) -> None:
    session = new_id()
    bound = node.inbox.batch_limit
    assert bound is None or (isinstance(bound, int) and bound >= 1)
    total = (bound or 64) + 3
    await bounded_gather(
        [lambda i=i: node.inbox.deliver(message(session, turn_id=f"{i:03d}")) for i in range(total)], 4
    )
    first = await node.inbox.collect(session)
    expected_first = total if bound is None else bound
    assert len(first.messages) == expected_first
    rest = await node.inbox.collect(session)
    assert len(rest.messages) == total - expected_first
    turns = [m.turn_id for m in first.messages + rest.messages]
    assert sorted(turns, key=int) == [f"{i:03d}" for i in range(total)]
    assert len(set(turns)) == total


async def test_deliver_many_keeps_the_order_of_the_call_after_earlier_deliveries(node: Any) -> None:
    session, other = new_id(), new_id()
    await node.inbox.deliver(message(session, turn_id="before"))
    plan = [(f"{i:03d}", [Priority.NEXT, Priority.NOW, Priority.LATER][i % 3]) for i in range(40)]
    batch = [message(session, turn_id=turn, priority=priority) for turn, priority in plan]
    batch.insert(7, message(other, turn_id="elsewhere"))
    ids = await node.inbox.deliver_many(batch)
    assert len(ids) == len(batch) and all(isinstance(i, str) and i for i in ids)  # Redis: unique per tier
    await node.inbox.deliver(message(session, turn_id="after"))
    collected = await node.inbox.collect(session)
    tiers = {p: [turn for turn, priority in plan if priority is p] for p in Priority}
    expected = [*tiers[Priority.NOW], "before", *tiers[Priority.NEXT], "after", *tiers[Priority.LATER]]
    assert [m.turn_id for m in collected.messages] == expected
    by_turn = {m.turn_id: m.id for m in collected.messages}
    assert [by_turn[m.turn_id] for m in batch if m.session_id == session] == [
        i for i, m in zip(ids, batch, strict=True) if m.session_id == session
    ]
    assert [(m.id, m.turn_id) for m in (await node.inbox.collect(other)).messages] == [(ids[7], "elsewhere")]


async def test_deliver_many_round_trips_like_deliver(node: Any) -> None:
    session = new_id()
    original = rich_message(session)
    (entry_id,) = await node.inbox.deliver_many((original,))
    assert (await node.inbox.collect(session)).messages == (original.with_id(entry_id),)
    assert await node.inbox.deliver_many([]) == []


@pytest.mark.parametrize("bad", [None, 7, "text", {"session_id": "s"}])
async def test_deliver_many_refuses_a_bad_item_and_stores_nothing(node: Any, bad: Any) -> None:
    session = new_id()
    with pytest.raises(InvalidArgumentError, match=r"messages\[2\] must be"):
        await node.inbox.deliver_many([message(session, turn_id="a"), message(session, turn_id="b"), bad])
    assert await node.inbox.is_empty(session)


@pytest.mark.parametrize("bad", [None, "text", message("s-1"), {"a": 1}])
async def test_deliver_many_refuses_what_is_not_a_list(node: Any, bad: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="messages must be a list or tuple"):
        await node.inbox.deliver_many(bad)


async def test_peek_does_not_remove(node: Any) -> None:
    session = new_id()
    for turn, priority in [("b", Priority.NEXT), ("a", Priority.NOW), ("c", Priority.LATER)]:
        await node.inbox.deliver(message(session, turn_id=turn, priority=priority))
    peeked = await node.inbox.peek(session)
    assert [m.turn_id for m in peeked.messages] == ["a", "b", "c"]
    assert [m.turn_id for m in (await node.inbox.peek(session, limit=2)).messages] == ["a", "b"]
    collected = await node.inbox.collect(session)
    assert collected.messages == peeked.messages


async def test_purge_and_is_empty_are_per_session(node: Any) -> None:
    first, second = new_id(), new_id()
    assert await node.inbox.is_empty(first)
    for session in (first, first, second):
        await node.inbox.deliver(message(session))
    assert not await node.inbox.is_empty(first)
    await node.inbox.purge(first)
    assert await node.inbox.is_empty(first)
    assert (await node.inbox.collect(first)).is_empty()
    assert not await node.inbox.is_empty(second)
    await node.inbox.purge(new_id())  # purging an unknown session is a no-op


async def test_collect_sees_entries_delivered_by_another_node(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    entry_id = await a.inbox.deliver(message(session, turn_id="from-a"))
    batch = await b.inbox.collect(session)
    assert [(m.id, m.turn_id) for m in batch.messages] == [(entry_id, "from-a")]


async def test_quarantine_is_empty_without_damage(node: Any) -> None:
    session = new_id()
    await node.inbox.deliver(message(session))
    await node.inbox.collect(session)
    assert await node.inbox.list_quarantined(session) == []
    assert await node.inbox.delete_quarantined("000000000000000000000000") is False


@pytest.mark.slow
async def test_eight_concurrent_collectors_take_each_message_exactly_once(cluster: Any, sizes: Sizes) -> None:
    """2,000 messages (400 without ``--scale``), 8 collectors on 8 nodes: every message delivered exactly once."""
    nodes = [await cluster.node(f"node-{i}") for i in range(8)]
    session = new_id()
    total = sizes.pick(ci=400, full=2000)
    await bounded_gather(
        [lambda i=i: nodes[i % 8].inbox.deliver(message(session, turn_id=str(i))) for i in range(total)], 8
    )
    taken: list[list[str]] = [[] for _ in nodes]

    async def collector(index: int) -> None:
        inbox = nodes[index].inbox
        while True:
            batch = await inbox.collect(session)
            assert batch.unreadable == ()
            taken[index].extend(m.turn_id for m in batch.messages)
            if batch.is_empty() and await inbox.is_empty(session):
                return

    await asyncio.gather(*(collector(i) for i in range(8)))
    everything = [turn for part in taken for turn in part]
    duplicated = len(everything) - len(set(everything))
    assert (total - len(set(everything)), duplicated) == (0, 0), "(lost, duplicated)"
    assert sorted(everything, key=int) == [str(i) for i in range(total)]
