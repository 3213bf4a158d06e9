"""The inbox drivers' primitives, on every backend family: concurrent takers never share an entry, a take
keeps to its ceiling, a take that quarantines in its transaction loses nothing when that transaction fails,
a quarantined entry restored by two replays at once comes back once, and concurrent claims count every
hand-out once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from aimon_mongo.model import Priority, UnreadableEntry
from tests.conformance.backends import AsyncFacade
from tests.conformance.helpers import message, new_id
from tests.drivers.conftest import driver_of


def _pure(store: Any) -> Any:
    """The driver itself, for its pure primitives (``encode`` / ``decode``), which run no I/O."""
    return (store.unwrapped if isinstance(store, AsyncFacade) else store).driver


def _nothing_unreadable(raws: Sequence[Any]) -> list[tuple[Any, UnreadableEntry]]:
    return []


async def _append(node: Any, session: str, turns: Sequence[tuple[str, Priority]]) -> list[str]:
    messages = [message(session, turn_id=turn, priority=priority) for turn, priority in turns]
    pure = _pure(node.inbox)
    return list(await driver_of(node.inbox).append([(m, pure.encode(m)) for m in messages]))


def _ids(node: Any, session: str, raws: Sequence[Any]) -> list[str]:
    pure = _pure(node.inbox)
    return [pure.decode(raw, session).id for raw in raws]


async def test_concurrent_takers_never_share_an_entry(cluster: Any) -> None:
    nodes = [await cluster.node(f"node-{i}") for i in range(4)]
    session = new_id()
    appended: list[str] = []  # turn ids: a Redis stream id is unique within its tier's stream only
    for part in range(4):
        plan = [(f"{part}-{i}", list(Priority)[i % 3]) for i in range(75)]
        await _append(nodes[part], session, plan)
        appended += [turn for turn, _ in plan]
    taken: list[list[str]] = [[] for _ in range(8)]

    async def taker(index: int) -> None:
        node = nodes[index % 4]
        driver = driver_of(node.inbox)
        while True:
            raws = await driver.take(session, Priority.LATER, _nothing_unreadable)
            taken[index] += [_pure(node.inbox).decode(raw, session).turn_id for raw in raws]
            if not raws and await driver.is_empty(session):
                return

    await asyncio.gather(*(taker(i) for i in range(8)))
    everything = [turn for part in taken for turn in part]
    assert len(everything) == len(set(everything)), "an entry was taken twice"
    assert sorted(everything) == sorted(appended)


async def test_a_take_keeps_to_its_ceiling_and_to_delivery_order(node: Any) -> None:
    session = new_id()
    plan = [("l-1", Priority.LATER), ("w-1", Priority.NOW), ("n-1", Priority.NEXT), ("w-2", Priority.NOW)]
    ids = dict(zip([turn for turn, _ in plan], await _append(node, session, plan), strict=True))
    driver = driver_of(node.inbox)
    urgent = await driver.take(session, Priority.NOW, _nothing_unreadable)
    assert _ids(node, session, urgent) == [ids["w-1"], ids["w-2"]]
    assert [_pure(node.inbox).decode(raw, session).turn_id for raw in await driver.peek(session, 10)] == ["n-1", "l-1"]
    rest = _ids(node, session, await driver.take(session, Priority.LATER, _nothing_unreadable))
    assert sorted(rest) == sorted([ids["n-1"], ids["l-1"]])
    if driver.takes_in_order:
        assert rest == [ids["n-1"], ids["l-1"]]
    assert await driver.is_empty(session)


class _Refused(Exception):
    pass


def _refusing(raws: Sequence[Any]) -> list[tuple[Any, UnreadableEntry]]:
    raise _Refused("the triage failed inside the take")


async def test_a_take_that_quarantines_in_its_transaction_loses_nothing_when_it_fails(node: Any) -> None:
    session = new_id()
    ids = await _append(node, session, [("a", Priority.NOW), ("b", Priority.NEXT), ("c", Priority.LATER)])
    driver = driver_of(node.inbox)
    if not driver.quarantines_in_take:
        # Such a driver never calls the triage: the take succeeds and removes the batch.
        assert sorted(_ids(node, session, await driver.take(session, Priority.LATER, _refusing))) == sorted(ids)
        assert await driver.is_empty(session)
        return
    try:
        await driver.take(session, Priority.LATER, _refusing)
    except _Refused:
        pass
    else:
        raise AssertionError("the triage's failure did not fail the take")
    # The transaction rolled back: every entry is still there, nothing was quarantined.
    assert _ids(node, session, await driver.peek(session, 10)) == ids
    assert await driver.list_quarantined(session, 10) == []

    def second_is_unreadable(raws: Sequence[Any]) -> list[tuple[Any, UnreadableEntry]]:
        return [(raws[1], UnreadableEntry(id=ids[1], reason="CodecError: test"))]

    taken = await driver.take(session, Priority.LATER, second_is_unreadable)
    assert _ids(node, session, taken) == ids and await driver.is_empty(session)
    [kept] = await driver.list_quarantined(session, 10)
    assert (kept.session_id, kept.entry_id, kept.error) == (session, ids[1], "CodecError: test")


async def test_two_replays_at_once_restore_a_quarantined_entry_once(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    (entry_id,) = await _append(a, session, [("q", Priority.NEXT)])
    driver = driver_of(a.inbox)
    report = UnreadableEntry(id=entry_id, reason="CodecError: test")
    taken = await driver.take(session, Priority.LATER, lambda raws: [(raw, report) for raw in raws])
    if not driver.quarantines_in_take:
        await driver.quarantine(session, [(raw, report) for raw in taken])
    listed = await driver.list_quarantined(session, 10)
    if not cluster.can_damage_entries:
        # Declared: the in-memory inbox keeps objects, so it keeps no quarantine at all.
        assert listed == [] and await driver.find_quarantined("anything") is None
        assert await driver.restore("anything", message(session), _pure(a.inbox).encode(message(session))) is None
        return
    [kept] = listed
    assert kept.entry_id == entry_id and await driver.find_quarantined(kept.id) is not None
    replayed = message(session, turn_id="q", priority=Priority.NEXT)
    results = await asyncio.gather(
        *(driver_of(n.inbox).restore(kept.id, replayed, _pure(n.inbox).encode(replayed)) for n in (a, b))
    )
    [new_id_] = [r for r in results if r is not None]
    assert results.count(None) == 1
    back = await driver.take(session, Priority.LATER, _nothing_unreadable)
    assert _ids(a, session, back) == [new_id_]
    assert await driver.find_quarantined(kept.id) is None
    assert await driver.delete_quarantined(kept.id) is False


async def test_concurrent_claims_count_every_hand_out_once(cluster: Any) -> None:
    """Eight claimers (tokens 101..108 on four nodes) at once: the hand-outs of one entry are serialised, so
    the attempt numbers they report are exactly 1..k — none lost to a race, none counted twice — and the
    entry ends claimed under one token (acknowledged once)."""
    nodes = [await cluster.node(f"node-{i}") for i in range(4)]
    session = new_id()
    turns = [f"t-{i:02d}" for i in range(30)]
    await _append(nodes[0], session, [(turn, list(Priority)[i % 3]) for i, turn in enumerate(turns)])
    handed: dict[str, list[int]] = {turn: [] for turn in turns}

    async def claimer(token: int) -> None:
        node = nodes[token % 4]
        claimed = await driver_of(node.inbox).claim(session, token, Priority.LATER, 64, 1000)
        for raw, attempts in claimed.handed:
            handed[_pure(node.inbox).decode(raw, session).turn_id or ""].append(attempts)

    await asyncio.gather(*(claimer(token) for token in range(101, 109)))
    assert all(sorted(counts) == list(range(1, len(counts) + 1)) for counts in handed.values()), handed
    assert all(handed.values())  # the first claim to reach an entry always hands it out
    ids = await driver_of(nodes[0].inbox).peek(session, 64)
    entry_ids = _ids(nodes[0], session, ids)
    removed = [await driver_of(nodes[0].inbox).acknowledge(session, token, entry_ids) for token in range(101, 109)]
    assert sum(removed) == len(turns) and await driver_of(nodes[0].inbox).is_empty(session)
