"""The idempotency driver's primitives are atomic on every backend family: of N nodes racing for one key,
exactly one inserts it (also over a lapsed entry), exactly one takes a reservation, exactly one releases
a holder, exactly one deletes a held entry; a primitive whose condition does not hold changes nothing."""

from __future__ import annotations

import asyncio
import inspect
from datetime import timedelta
from typing import Any

from aimon_mongo.model import CompletionReason, IdempotencyEntry, IdempotencyStatus, TurnResult
from tests.conformance.helpers import new_id, now_ms, seconds
from tests.drivers.conftest import driver_of

N = 6
LONG = seconds(60)
RESULT = TurnResult(success=True, completion_reason=CompletionReason.COMPLETED)


def _entry(key: str, holder: str | None) -> IdempotencyEntry:
    stamp = now_ms()
    return IdempotencyEntry(
        key=key,
        session_id="s-1",
        input_hash="hash-1",
        status=IdempotencyStatus.IN_FLIGHT,
        holder_id=holder,
        created_at=stamp,
        last_touched_at=stamp,
    )


async def _drivers(cluster: Any) -> list[Any]:
    """One driver per node: N separate bundles (clients, pools) on the cluster's shared storage."""
    return [driver_of((await cluster.node(f"node-{i}")).idempotency) for i in range(N)]


async def _decoded(driver: Any, raw: Any) -> IdempotencyEntry:
    entry = driver.decode(raw)  # a plain call on an async driver, awaited through the sync facade
    return await entry if inspect.isawaitable(entry) else entry


async def test_concurrent_puts_of_one_key_have_one_winner(cluster: Any) -> None:
    drivers = await _drivers(cluster)
    key = new_id("k")
    results = await asyncio.gather(*(d.put(_entry(key, f"h{i}"), LONG) for i, d in enumerate(drivers)))
    winners = [i for i, (inserted, _) in enumerate(results) if inserted]
    assert len(winners) == 1, results
    for driver, (inserted, raw) in zip(drivers, results, strict=True):
        if not inserted:
            assert raw is not None  # the loser read the live entry in the same attempt
            assert (await _decoded(driver, raw)).holder_id == f"h{winners[0]}"
    stored = await drivers[0].find(key)
    assert stored is not None and (await _decoded(drivers[0], stored)).holder_id == f"h{winners[0]}"


async def test_concurrent_puts_over_a_lapsed_entry_have_one_winner(cluster: Any) -> None:
    drivers = await _drivers(cluster)
    key = new_id("k")
    assert (await drivers[0].put(_entry(key, "old"), timedelta(milliseconds=200)))[0] is True
    await asyncio.sleep(0.6)  # lapsed: every backend treats it as absent (PostgreSQL / MongoDB still hold it)
    results = await asyncio.gather(*(d.put(_entry(key, f"h{i}"), LONG) for i, d in enumerate(drivers)))
    winners = [i for i, (inserted, _) in enumerate(results) if inserted]
    assert len(winners) == 1, results
    stored = await drivers[1].find(key)
    assert stored is not None and (await _decoded(drivers[1], stored)).holder_id == f"h{winners[0]}"


async def test_acquiring_a_reservation_under_contention_has_one_winner(cluster: Any) -> None:
    drivers = await _drivers(cluster)
    key = new_id("k")
    assert (await drivers[0].put(_entry(key, None), LONG))[0] is True
    wins = await asyncio.gather(*(d.rehold(key, None, f"h{i}", LONG) for i, d in enumerate(drivers)))
    assert wins.count(True) == 1, wins
    stored = await drivers[2].find(key)
    assert stored is not None and (await _decoded(drivers[2], stored)).holder_id == f"h{wins.index(True)}"


async def test_releasing_a_holder_under_contention_has_one_winner(cluster: Any) -> None:
    drivers = await _drivers(cluster)
    key = new_id("k")
    assert (await drivers[0].put(_entry(key, "h"), LONG))[0] is True
    wins = await asyncio.gather(*(d.rehold(key, "h", None, LONG) for d in drivers))
    assert wins.count(True) == 1, wins
    stored = await drivers[3].find(key)
    assert stored is not None and (await _decoded(drivers[3], stored)).holder_id is None


async def test_compare_and_reset_under_contention_has_one_winner(cluster: Any) -> None:
    drivers = await _drivers(cluster)
    key = new_id("k")
    assert (await drivers[0].put(_entry(key, "lost"), LONG))[0] is True
    # the wrong holder and "no holder" race with the right one and never delete it
    assert await drivers[1].delete_held(key, "other") is False
    assert await drivers[1].delete_held(key, None) is False
    wins = await asyncio.gather(*(d.delete_held(key, "lost") for d in drivers))
    assert wins.count(True) == 1, wins
    assert await drivers[4].find(key) is None


async def test_takeover_and_reset_race_has_one_winner(cluster: Any) -> None:
    """A recovery sweep deleting a lost holder's entry races with that holder's release: one of them wins,
    and the entry ends in the state the winner left."""
    drivers = await _drivers(cluster)
    key = new_id("k")
    assert (await drivers[0].put(_entry(key, "h"), LONG))[0] is True
    calls = [d.delete_held(key, "h") if i % 2 else d.rehold(key, "h", None, LONG) for i, d in enumerate(drivers)]
    wins = await asyncio.gather(*calls)
    assert wins.count(True) == 1, wins
    stored = await drivers[5].find(key)
    if wins.index(True) % 2:
        assert stored is None
    else:
        assert stored is not None and (await _decoded(drivers[5], stored)).holder_id is None


async def test_primitives_whose_condition_fails_change_nothing(node: Any) -> None:
    driver = driver_of(node.idempotency)
    key = new_id("k")
    assert (await driver.put(_entry(key, "h1"), LONG))[0] is True
    before = await _decoded(driver, await driver.find(key))
    assert await driver.touch(key, "h2") is False
    assert await driver.rehold(key, None, "h2", LONG) is False
    assert await driver.rehold(key, "h2", None, LONG) is False
    assert await driver.delete_held(key, None) is False
    assert await _decoded(driver, await driver.find(key)) == before
    missing = new_id("missing")
    assert await driver.mark_done(missing, RESULT, LONG) is False
    assert await driver.find(missing) is None


async def test_stale_candidates_hold_every_stale_entry(node: Any) -> None:
    driver = driver_of(node.idempotency)
    old = now_ms() - timedelta(minutes=10)
    key = new_id("stale")
    entry = _entry(key, "h1").model_copy(update={"created_at": old, "last_touched_at": old})
    assert (await driver.put(entry, LONG))[0] is True
    candidates = await driver.stale_candidates(now_ms() - timedelta(minutes=1), 100_000)
    found = {k: raw for k, raw in candidates if (await _decoded(driver, raw)).key == key}
    assert len(found) == 1
    assert await _decoded(driver, next(iter(found.values()))) == entry
