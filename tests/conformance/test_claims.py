"""Acknowledged delivery: claim / acknowledge under a fencing token, redelivery with attempt counts,
quarantine after ``max_attempts``, ``quarantine_entries`` + replay, the paged ``sessions_with_entries``,
and a reference ``collect`` after a claim (a redelivery, never a loss)."""

from __future__ import annotations

from typing import Any

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model import ClaimedBatch, Priority
from tests.conformance.helpers import bounded_gather, message, new_id

CLAIM_BOUND = 64


async def test_claim_hands_out_in_priority_then_fifo_order_and_keeps_entries(node: Any) -> None:
    session = new_id()
    plan = [("later-1", Priority.LATER), ("next-1", Priority.NEXT), ("now-1", Priority.NOW), ("next-2", Priority.NEXT)]
    ids = {turn: await node.inbox.deliver(message(session, turn_id=turn, priority=p)) for turn, p in plan}
    batch = await node.inbox.claim(session, 7)
    assert isinstance(batch, ClaimedBatch)
    assert [m.turn_id for m in batch.messages] == ["now-1", "next-1", "next-2", "later-1"]
    assert [m.id for m in batch.messages] == [ids[t] for t in ["now-1", "next-1", "next-2", "later-1"]]
    assert batch.attempts == {entry_id: 1 for entry_id in ids.values()}
    assert (batch.attempt, batch.fencing_token, batch.unreadable, batch.quarantined) == (1, 7, [], [])
    # claimed entries stay stored: present for peek and is_empty
    assert not await node.inbox.is_empty(session)
    assert len((await node.inbox.peek(session)).messages) == 4
    assert await node.inbox.acknowledge(session, 7, [m.id for m in batch.messages]) == 4
    assert await node.inbox.is_empty(session)
    empty = await node.inbox.claim(session, 7)
    assert (empty.messages, empty.attempts, empty.attempt) == ([], {}, 0)


async def test_claim_max_priority_leaves_lower_tiers(node: Any) -> None:
    session = new_id()
    for turn, priority in [("l", Priority.LATER), ("n", Priority.NEXT), ("w", Priority.NOW)]:
        await node.inbox.deliver(message(session, turn_id=turn, priority=priority))
    now_only = await node.inbox.claim(session, 3, max_priority=Priority.NOW)
    assert [m.turn_id for m in now_only.messages] == ["w"]
    up_to_next = await node.inbox.claim(session, 3, max_priority=Priority.NEXT)
    w, n = up_to_next.messages
    assert (w.turn_id, n.turn_id, w.id) == ("w", "n", now_only.messages[0].id)
    # Redis stream ids are unique per tier only: two tiers' entries may share an id (then the higher count)
    assert up_to_next.attempts == ({w.id: 2} if w.id == n.id else {w.id: 2, n.id: 1})


async def test_claim_batch_bound(node: Any) -> None:
    session = new_id()
    total = CLAIM_BOUND + 3
    await node.inbox.deliver_many([message(session, turn_id=f"{i:03d}") for i in range(total)])
    first = await node.inbox.claim(session, 5)
    assert [m.turn_id for m in first.messages] == [f"{i:03d}" for i in range(CLAIM_BOUND)]
    # the same holder claims again before acknowledging: the same batch, one attempt more
    again = await node.inbox.claim(session, 5)
    assert [m.id for m in again.messages] == [m.id for m in first.messages] and again.attempt == 2
    assert await node.inbox.acknowledge(session, 5, [m.id for m in first.messages]) == CLAIM_BOUND
    rest = await node.inbox.claim(session, 5)
    assert [m.turn_id for m in rest.messages] == [f"{i:03d}" for i in range(CLAIM_BOUND, total)]


async def test_redelivery_under_a_higher_token_counts_attempts_and_fences_the_old_holder(cluster: Any) -> None:
    old, new = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    await old.inbox.deliver_many([message(session, turn_id=t) for t in ("a", "b")])
    first = await old.inbox.claim(session, 10)
    assert first.attempts == {m.id: 1 for m in first.messages} and first.attempt == 1
    # a new holder (higher token) gets the unacknowledged entries again, with their attempt count
    taken_over = await new.inbox.claim(session, 11)
    assert [m.turn_id for m in taken_over.messages] == ["a", "b"]
    assert taken_over.attempts == {m.id: 2 for m in first.messages} and taken_over.attempt == 2
    # the superseded holder can neither claim them back nor acknowledge them
    assert (await old.inbox.claim(session, 10)).messages == []
    assert await old.inbox.acknowledge(session, 10, [m.id for m in first.messages]) == 0
    assert len((await new.inbox.peek(session)).messages) == 2
    assert await new.inbox.acknowledge(session, 11, [first.messages[0].id]) == 1
    assert await new.inbox.acknowledge(session, 11, [first.messages[0].id]) == 0  # already gone
    assert [m.turn_id for m in (await new.inbox.peek(session)).messages] == ["b"]


async def test_new_entries_join_a_claim_beside_entries_claimed_under_a_higher_token(node: Any) -> None:
    session = new_id()
    held = await node.inbox.deliver(message(session, turn_id="held", priority=Priority.NOW))
    assert [m.id for m in (await node.inbox.claim(session, 20)).messages] == [held]
    fresh = await node.inbox.deliver(message(session, turn_id="fresh"))
    lower = await node.inbox.claim(session, 19)  # skips the entry claimed under 20
    assert [m.id for m in lower.messages] == [fresh] and lower.attempts == {fresh: 1}
    assert await node.inbox.acknowledge(session, 20, [held, fresh]) == 1  # fresh is claimed under 19
    assert await node.inbox.acknowledge(session, 19, [fresh]) == 1
    assert await node.inbox.is_empty(session)


async def test_max_attempts_moves_an_entry_to_the_quarantine(node: Any) -> None:
    session = new_id()
    poison = await node.inbox.deliver(message(session, turn_id="poison", priority=Priority.NOW))
    for token in (1, 2, 3):
        batch = await node.inbox.claim(session, token, max_attempts=3)
        assert batch.attempts == {poison: token} and batch.quarantined == []
    good = await node.inbox.deliver(message(session, turn_id="good"))
    batch = await node.inbox.claim(session, 4, max_attempts=3)
    assert [m.id for m in batch.messages] == [good] and batch.attempts == {good: 1}
    assert batch.quarantined == [poison]
    [kept] = await node.inbox.list_quarantined(session)
    assert (kept.entry_id, kept.error) == (poison, "handed out 3 times")
    assert await node.inbox.acknowledge(session, 4, [good]) == 1
    assert await node.inbox.is_empty(session)
    # the poison message is never lost: a replay delivers it again, as a fresh entry
    replayed = await node.inbox.replay_quarantined(kept.id)
    again = await node.inbox.claim(session, 5, max_attempts=3)
    assert [(m.id, m.turn_id) for m in again.messages] == [(replayed, "poison")] and again.attempt == 1
    assert await node.inbox.list_quarantined(session) == []


async def test_quarantine_entries_then_replay(node: Any) -> None:
    session = new_id()
    ids = await node.inbox.deliver_many([message(session, turn_id=t, text=f"text {t}") for t in ("a", "b", "c")])
    await node.inbox.claim(session, 2)
    assert await node.inbox.quarantine_entries(session, [ids[0], ids[2], "no-such-entry"], "handler raised") == 2
    assert await node.inbox.quarantine_entries(session, [ids[0]], "again") == 0  # already moved
    assert await node.inbox.quarantine_entries(new_id(), [ids[1]], "other session") == 0
    kept = await node.inbox.list_quarantined(session)
    expected = sorted([(ids[0], "handler raised"), (ids[2], "handler raised")])
    assert sorted((q.entry_id, q.error) for q in kept) == expected
    assert [m.id for m in (await node.inbox.peek(session)).messages] == [ids[1]]
    for entry in kept:
        await node.inbox.replay_quarantined(entry.id)
    assert await node.inbox.list_quarantined(session) == []
    batch = await node.inbox.claim(session, 3)
    assert sorted(m.turn_id or "" for m in batch.messages) == ["a", "b", "c"]
    assert {m.user_input.as_text() for m in batch.messages} == {"text a", "text b", "text c"}


async def test_collect_after_a_claim_takes_claimed_entries(node: Any) -> None:
    """The reference build's ``collect`` knows nothing of claims: it removes claimed entries too (a
    redelivery to that node, never a loss); the holder's acknowledgement then removes nothing."""
    session = new_id()
    ids = await node.inbox.deliver_many([message(session, turn_id=t) for t in ("a", "b")])
    claimed = await node.inbox.claim(session, 4)
    collected = await node.inbox.collect(session)
    assert [m.id for m in collected.messages] == ids == [m.id for m in claimed.messages]
    assert await node.inbox.is_empty(session)
    assert await node.inbox.acknowledge(session, 4, ids) == 0
    assert (await node.inbox.sessions_with_entries(after=session[:-1], limit=1)).session_ids != [session]


async def test_sessions_with_entries_pages_in_ascending_order(node: Any) -> None:
    prefix = new_id("swe")
    sessions = [f"{prefix}-{i:02d}" for i in range(5)]
    await bounded_gather([lambda s=s: node.inbox.deliver(message(s)) for s in reversed(sessions)], 2)
    # one session's only entry is claimed: still listed
    await node.inbox.claim(sessions[1], 1)
    # one emptied session is not listed
    emptied = f"{prefix}-99"
    await node.inbox.deliver(message(emptied))
    await node.inbox.collect(emptied)
    seen: list[str] = []
    after: str | None = prefix
    pages = 0
    while after is not None:
        page = await node.inbox.sessions_with_entries(after=after, limit=2)
        pages += 1
        assert page.session_ids == sorted(page.session_ids) and len(page.session_ids) <= 2
        mine = [s for s in page.session_ids if s.startswith(prefix)]
        seen += mine
        if len(mine) < len(page.session_ids):
            break  # past this test's sessions (other tests may share the store)
        after = page.next_after
        if page.next_after is not None:
            assert page.next_after == page.session_ids[-1]
    assert seen == sessions and pages >= 3
    last = await node.inbox.sessions_with_entries(after=sessions[-1] + "\U0010ffff", limit=256)
    assert all(s > sessions[-1] for s in last.session_ids)


async def test_sessions_with_entries_without_cursor(node: Any) -> None:
    session = new_id()
    await node.inbox.deliver(message(session))
    page = await node.inbox.sessions_with_entries()
    assert page.session_ids == sorted(page.session_ids) and len(page.session_ids) <= 256
    assert page.next_after is None or page.next_after == page.session_ids[-1]
    assert session in page.session_ids or page.next_after is not None


async def test_concurrent_claimers_each_entry_ends_with_one_token(cluster: Any) -> None:
    """Six holders (tokens 30..35) claim at once: however they interleave, every entry ends claimed under
    exactly one token, so the six acknowledgements together remove each entry once."""
    nodes = [await cluster.node(f"node-{i}") for i in range(2)]
    session = new_id()
    ids = await nodes[0].inbox.deliver_many([message(session, turn_id=f"{i}") for i in range(20)])
    tokens = list(range(30, 36))
    claims = [lambda t=t: nodes[t % 2].inbox.claim(session, t, max_attempts=10) for t in tokens]
    batches = await bounded_gather(claims, 6)
    assert all(set(batch.attempts) <= set(ids) for batch in batches)
    removed = [await nodes[t % 2].inbox.acknowledge(session, t, ids) for t in tokens]
    assert sum(removed) == len(ids) and await nodes[0].inbox.is_empty(session)


@pytest.mark.parametrize("bad", [0, -1, True, "3", 1.0, None])
async def test_tokens_are_checked(node: Any, bad: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="fencing_token"):
        await node.inbox.claim(new_id(), bad)
    with pytest.raises(InvalidArgumentError, match="fencing_token"):
        await node.inbox.acknowledge(new_id(), bad, ["x"])


@pytest.mark.parametrize("bad", [0, -2, False, 2.5, "5"])
async def test_max_attempts_is_checked(node: Any, bad: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="max_attempts"):
        await node.inbox.claim(new_id(), 1, max_attempts=bad)


async def test_other_arguments_are_checked(node: Any) -> None:
    session = new_id()
    with pytest.raises(InvalidArgumentError, match="session_id"):
        await node.inbox.claim("", 1)
    with pytest.raises(InvalidArgumentError, match="max_priority"):
        await node.inbox.claim(session, 1, max_priority="NOW")
    with pytest.raises(InvalidArgumentError, match="entry_ids"):
        await node.inbox.acknowledge(session, 1, "abc")
    with pytest.raises(InvalidArgumentError, match=r"entry_ids\[1\]"):
        await node.inbox.acknowledge(session, 1, ["a", ""])
    with pytest.raises(InvalidArgumentError, match=r"entry_ids\[0\]"):
        await node.inbox.quarantine_entries(session, [{"$ne": None}], "why")
    with pytest.raises(InvalidArgumentError, match="reason"):
        await node.inbox.quarantine_entries(session, ["a"], " ")
    with pytest.raises(InvalidArgumentError, match="limit"):
        await node.inbox.sessions_with_entries(limit=0)
    with pytest.raises(InvalidArgumentError, match="after"):
        await node.inbox.sessions_with_entries(after="")
    assert await node.inbox.acknowledge(session, 1, []) == 0
    assert await node.inbox.quarantine_entries(session, [], "nothing") == 0


async def test_unreadable_entry_under_claim_is_quarantined(cluster: Any) -> None:
    if not cluster.can_damage_entries:
        return  # declared: the in-memory inbox keeps objects, nothing is ever unreadable
    node = await cluster.node("node-a")
    session = new_id()
    good = await node.inbox.deliver(message(session, turn_id="good"))
    damaged = await cluster.store_damaged_entry(message(session, turn_id="bad", text="secret payload text"))
    batch = await node.inbox.claim(session, 2)
    assert [m.id for m in batch.messages] == [good] and batch.attempts == {good: 1}
    assert [u.id for u in batch.unreadable] == [damaged]
    [kept] = await node.inbox.list_quarantined(session)
    assert kept.entry_id == damaged and "secret payload text" not in kept.error
    assert await node.inbox.acknowledge(session, 2, [good]) == 1
    assert await node.inbox.is_empty(session)
