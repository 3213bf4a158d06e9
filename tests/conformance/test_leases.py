"""Leases: holder election, fencing tokens strictly increasing across release and expiry."""

from __future__ import annotations

import asyncio
import itertools
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from aimon_mongo.errors import InvalidArgumentError
from tests.conformance.helpers import new_id, seconds
from tests.reliability.plugin import Sizes

LONG = seconds(30)


async def test_acquire_find_release(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    assert await a.leases.find_holder(session) is None
    before = datetime.now(UTC)
    lease = await a.leases.try_acquire(session, "node-a", LONG)
    assert lease is not None
    assert (lease.session_id, lease.holder_id) == (session, "node-a")
    assert lease.fencing_token >= 1
    assert before + timedelta(seconds=25) < lease.expires_at < before + timedelta(seconds=40)
    assert await b.leases.try_acquire(session, "node-b", LONG) is None
    held = await b.leases.find_holder(session)
    assert held is not None
    assert (held.holder_id, held.fencing_token) == ("node-a", lease.fencing_token)
    await a.leases.release(lease)
    assert await b.leases.find_holder(session) is None
    second = await b.leases.try_acquire(session, "node-b", LONG)
    assert second is not None and second.fencing_token > lease.fencing_token


CLOCK_SLACK = 60_000
"""Milliseconds a store's clock may differ from the test's (both run on this host)."""


async def test_a_token_is_never_below_the_clock_floor(cluster: Any) -> None:
    """Every backend issues ``max(counter + 1, store clock ms x 1024)`` (docs/guarantees.md, "Failover"):
    a new session's first token is the clock floor, not 1, and tokens still strictly increase."""
    a = await cluster.node("node-a")
    session = new_id()
    before = time.time_ns() // 1_000_000
    first = await a.leases.try_acquire(session, "node-a", LONG)
    assert first is not None
    await a.leases.release(first)
    second = await a.leases.try_acquire(session, "node-a", LONG)
    after = time.time_ns() // 1_000_000
    assert second is not None and second.fencing_token > first.fencing_token
    for token in (first.fencing_token, second.fencing_token):
        assert (before - CLOCK_SLACK) * 1024 <= token <= (after + CLOCK_SLACK) * 1024, token


async def test_tokens_increase_across_expiry_and_sessions_are_independent(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session, other = new_id(), new_id()
    first = await a.leases.try_acquire(session, "node-a", timedelta(milliseconds=150))
    assert first is not None
    assert await b.leases.try_acquire(other, "node-b", LONG) is not None  # another session is unaffected
    await asyncio.sleep(0.5)
    assert await b.leases.find_holder(session) is None  # expired
    second = await b.leases.try_acquire(session, "node-b", LONG)
    assert second is not None and second.fencing_token > first.fencing_token
    # The expired holder's lease is stale now: extend and release are refused / have no effect.
    assert await a.leases.extend(first, LONG) is False
    await a.leases.release(first)
    held = await a.leases.find_holder(session)
    assert held is not None and (held.holder_id, held.fencing_token) == ("node-b", second.fencing_token)


async def test_extend_pushes_expiry_and_stale_extend_release_refused(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id()
    lease = await a.leases.try_acquire(session, "node-a", timedelta(milliseconds=400))
    assert lease is not None
    assert await a.leases.extend(lease, LONG) is True
    await asyncio.sleep(0.6)
    held = await b.leases.find_holder(session)
    assert held is not None and held.holder_id == "node-a"
    assert held.expires_at > datetime.now(UTC) + timedelta(seconds=20)
    await a.leases.release(lease)
    successor = await b.leases.try_acquire(session, "node-b", LONG)
    assert successor is not None
    assert await a.leases.extend(lease, LONG) is False  # stale token
    await a.leases.release(lease)  # stale: no effect on the successor
    forged = lease.model_copy(update={"fencing_token": successor.fencing_token})
    assert await a.leases.extend(forged, LONG) is False  # right token, wrong holder
    held = await a.leases.find_holder(session)
    assert held is not None and (held.holder_id, held.fencing_token) == ("node-b", successor.fencing_token)


async def test_extend_of_a_lapsed_lease_follows_the_declared_capability(cluster: Any) -> None:
    a = await cluster.node("node-a")
    session = new_id()
    lease = await a.leases.try_acquire(session, "node-a", timedelta(milliseconds=100))
    assert lease is not None
    await asyncio.sleep(0.3)
    assert await a.leases.find_holder(session) is None
    assert await a.leases.extend(lease, LONG) is a.leases.resurrects_lapsed
    held = await a.leases.find_holder(session)
    if a.leases.resurrects_lapsed:
        assert held is not None and (held.holder_id, held.fencing_token) == ("node-a", lease.fencing_token)
    else:
        assert held is None


async def test_a_holder_re_acquiring_its_own_live_lease_gets_a_new_token(cluster: Any) -> None:
    """A host restarted under the same node id does not wait out its predecessor's lease: the new process
    gets a new, higher token, and the older process's lease is superseded (its extend fails, its release
    leaves the new lease alone). Another holder is still refused."""
    before, restarted = await cluster.node("node-a"), await cluster.node("node-a")
    other = await cluster.node("node-b")
    session = new_id()
    old = await before.leases.try_acquire(session, "node-a", LONG)
    assert old is not None
    new = await restarted.leases.try_acquire(session, "node-a", LONG)
    assert new is not None, "the holder's own live lease was not re-acquired"
    assert new.fencing_token > old.fencing_token
    assert await other.leases.try_acquire(session, "node-b", LONG) is None
    assert await before.leases.extend(old, LONG) is False
    await before.leases.release(old)
    held = await other.leases.find_holder(session)
    assert held is not None and (held.holder_id, held.fencing_token) == ("node-a", new.fencing_token)
    assert await restarted.leases.extend(new, LONG) is True
    again = await restarted.leases.try_acquire(session, "node-a", LONG)  # and again: each time a new token
    assert again is not None and again.fencing_token > new.fencing_token
    await restarted.leases.release(again)
    assert await other.leases.find_holder(session) is None


@pytest.mark.parametrize("holder", ["$where", "a.b", "node:1|x", "ünïcode holder"])
async def test_unusual_holder_ids_stay_literal(cluster: Any, holder: str) -> None:
    node = await cluster.node("node-a")
    session = new_id("$s")
    forbidden = [c for c in node.leases.holder_id_forbidden_chars if c in holder]
    if forbidden:  # a declared capability difference (Redis: ":" separates holder and token)
        with pytest.raises(InvalidArgumentError, match="holder_id"):
            await node.leases.try_acquire(session, holder, LONG)
        return
    lease = await node.leases.try_acquire(session, holder, LONG)
    if lease is None:
        pytest.fail(f"holder id {holder!r} was not accepted")
    held = await node.leases.find_holder(session)
    assert held is not None and held.holder_id == holder
    assert await node.leases.extend(lease, LONG)
    await node.leases.release(lease)
    assert await node.leases.find_holder(session) is None


@pytest.mark.slow
async def test_contested_acquisitions_never_two_live_holders(cluster: Any, sizes: Sizes) -> None:
    """4 contenders, 1,000 acquisition attempts (400 without ``--scale``): holders never overlap; tokens strictly
    increase."""
    attempts = sizes.pick(ci=100, full=250)
    nodes = [await cluster.node(f"node-{i}") for i in range(4)]
    session = new_id()
    state: dict[str, Any] = {"holder": None}
    overlaps: list[tuple[str, str]] = []
    tokens: list[int] = []
    mismatches: list[Any] = []

    async def contender(index: int) -> None:
        name = f"node-{index}"
        leases = nodes[index].leases
        for _ in range(attempts):
            lease = await leases.try_acquire(session, name, LONG)
            if lease is None:
                await asyncio.sleep(0)
                continue
            if state["holder"] is not None:
                overlaps.append((state["holder"], name))
            state["holder"] = name
            tokens.append(lease.fencing_token)
            held = await leases.find_holder(session)
            if held is None or (held.holder_id, held.fencing_token) != (name, lease.fencing_token):
                mismatches.append(held)
            state["holder"] = None
            await leases.release(lease)

    await asyncio.gather(*(contender(i) for i in range(4)))
    assert overlaps == []
    assert mismatches == []
    assert tokens, "nobody ever acquired the lease"
    assert all(earlier < later for earlier, later in itertools.pairwise(tokens)), tokens
