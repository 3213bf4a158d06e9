"""The lease driver's primitives under real concurrency, on every backend family (both flavours).

The service trusts its driver for three things: one grant per free lock however many nodes ask at once,
a token counter that only goes up (across release and expiry), and extend / release as a holder-and-token
CAS that a stale or forged lease never passes. Each contender is its own node (its own connections); a
sync store's calls run in worker threads, so the calls really overlap on the server.
"""

from __future__ import annotations

import asyncio
import itertools
from datetime import timedelta
from typing import Any

from aimon_mongo.model import Lease
from tests.conformance.helpers import new_id, seconds
from tests.drivers.conftest import driver_of

CONTENDERS = 8
LONG = seconds(30)
SHORT = timedelta(milliseconds=200)
MEDIUM = seconds(5)
"""Long enough never to lapse during a test (a lapsed Redis lock keeps only its token, not its holder)."""
LAPSE = 0.5
"""Seconds to wait for a ``SHORT`` lease to lapse on the store's clock."""


async def _drivers(cluster: Any, count: int = CONTENDERS) -> list[Any]:
    return [driver_of((await cluster.node(f"node-{i}")).leases) for i in range(count)]


def _lease(session_id: str, holder_id: str, granted: Any) -> Lease:
    return Lease(
        session_id=session_id,
        holder_id=holder_id,
        fencing_token=granted.fencing_token,
        expires_at=granted.expires_at,
    )


async def _contest(drivers: list[Any], session: str, ttl: timedelta) -> tuple[int, Any]:
    """Every driver asks for the lease at once; exactly one is granted it. Returns (winner, grant)."""
    grants = await asyncio.gather(*(d.acquire(session, f"node-{i}", ttl) for i, d in enumerate(drivers)))
    winners = [(i, g) for i, g in enumerate(grants) if g is not None]
    assert len(winners) == 1, f"{len(winners)} grants for one free lock: {winners}"
    return winners[0]


async def test_concurrent_acquirers_get_one_grant_and_tokens_strictly_increase(cluster: Any) -> None:
    """Rounds of 8 simultaneous acquisitions of one lock (the first on a session never seen, where the
    stores create the lock): one grant each round, the store agrees who holds it (checked in the rounds
    whose lease cannot lapse meanwhile), and the tokens strictly increase across release (even rounds)
    and expiry (odd rounds)."""
    drivers = await _drivers(cluster)
    session = new_id()
    tokens: list[int] = []
    for round_ in range(4):
        released = round_ % 2 == 0
        index, granted = await _contest(drivers, session, LONG if released else SHORT)
        tokens.append(granted.fencing_token)
        if released:
            found = await drivers[-1 - index].find(session)
            assert found is not None
            assert (found.holder_id, found.fencing_token) == (f"node-{index}", granted.fencing_token)
            await drivers[index].release(_lease(session, f"node-{index}", granted))
        else:
            await asyncio.sleep(LAPSE)
        assert await drivers[0].find(session) is None
    assert all(earlier < later for earlier, later in itertools.pairwise(tokens)), tokens


async def test_a_lapsed_lease_goes_to_exactly_one_of_its_reviver_and_the_acquirers(cluster: Any) -> None:
    """The lapsed holder's extend (a revival where the store resurrects lapsed leases) races 7 fresh
    acquisitions: exactly one call succeeds, and the store holds what that call was told."""
    drivers = await _drivers(cluster)
    session = new_id()
    first = await drivers[0].acquire(session, "node-0", SHORT)
    assert first is not None
    lapsed = _lease(session, "node-0", first)
    await asyncio.sleep(LAPSE)
    revived, *grants = await asyncio.gather(
        drivers[0].extend(lapsed, LONG), *(d.acquire(session, f"node-{i}", LONG) for i, d in enumerate(drivers) if i)
    )
    winners = [(i, g) for i, g in enumerate(grants, start=1) if g is not None]
    assert isinstance(revived, bool)
    assert int(revived) + len(winners) == 1, (revived, winners)
    if not drivers[0].resurrects_lapsed:
        assert revived is False
    found = await drivers[0].find(session)
    assert found is not None
    if revived:
        assert (found.holder_id, found.fencing_token) == ("node-0", first.fencing_token)
    else:
        index, granted = winners[0]
        assert (found.holder_id, found.fencing_token) == (f"node-{index}", granted.fencing_token)
        assert granted.fencing_token > first.fencing_token


async def test_stale_and_forged_leases_never_pass_the_cas_under_contention(cluster: Any) -> None:
    """After a hand-over, the old holder's extends and releases, and forged leases (the successor's token
    with another holder, the successor's holder with the old token), all racing the successor's own
    extends, never succeed and never touch the successor's lease; the successor's extends all do."""
    drivers = await _drivers(cluster)
    session = new_id()
    first = await drivers[0].acquire(session, "node-0", LONG)
    assert first is not None
    stale = _lease(session, "node-0", first)
    await drivers[0].release(stale)
    granted = await drivers[1].acquire(session, "node-1", MEDIUM)
    assert granted is not None and granted.fencing_token > first.fencing_token
    successor = _lease(session, "node-1", granted)
    forged = [
        stale,
        successor.model_copy(update={"holder_id": "node-0"}),
        stale.model_copy(update={"holder_id": "node-1"}),
    ]
    attempts = [(d, lease) for d, lease in zip(itertools.cycle(drivers), forged * 4, strict=False)]
    outcomes = await asyncio.gather(
        *(d.extend(lease, LONG) for d, lease in attempts),
        *(d.release(lease) for d, lease in attempts),
        *(d.extend(successor, LONG) for d in drivers[1:4]),
    )
    stale_extends, releases, own_extends = (
        outcomes[: len(attempts)],
        outcomes[len(attempts) : 2 * len(attempts)],
        outcomes[2 * len(attempts) :],
    )
    assert stale_extends == [False] * len(attempts)
    assert releases == [None] * len(attempts)
    assert own_extends == [True] * 3
    found = await drivers[5].find(session)
    assert found is not None
    assert (found.holder_id, found.fencing_token) == ("node-1", successor.fencing_token)
    assert found.expires_at > granted.expires_at + timedelta(seconds=20)
