"""Idempotency store: the state machine, holder-loss detection and TTLs."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from aimon_mongo.model import (
    CompletionReason,
    IdempotencyEntry,
    IdempotencyStatus,
    PutOutcome,
    TurnResult,
)
from tests.conformance.helpers import new_id, now_ms, seconds

LONG = seconds(60)
RESULT = TurnResult(success=True, final_answer="42", completion_reason=CompletionReason.COMPLETED, was_streamed=True)


def entry(
    key: str, holder: str | None = "node-a/t/1", *, touched: Any = None, session: str = "s-1"
) -> IdempotencyEntry:
    stamp = now_ms() if touched is None else touched
    return IdempotencyEntry(
        key=key,
        session_id=session,
        input_hash="hash-1",
        status=IdempotencyStatus.IN_FLIGHT,
        holder_id=holder,
        created_at=stamp,
        last_touched_at=stamp,
    )


async def test_put_if_absent_inserts_once(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    key = new_id("k")
    first = entry(key)
    inserted = await a.idempotency.put_if_absent(first, LONG)
    assert inserted.outcome is PutOutcome.INSERTED and inserted.inserted and inserted.existing is None
    again = await b.idempotency.put_if_absent(entry(key, "node-b/t/9", session="s-2"), LONG)
    assert again.outcome is PutOutcome.EXISTING
    assert again.existing == first
    assert await b.idempotency.find(key) == first
    assert await b.idempotency.find(new_id("k")) is None


async def test_concurrent_put_if_absent_has_one_winner(cluster: Any) -> None:
    nodes = [await cluster.node(f"node-{i}") for i in range(4)]
    key = new_id("k")
    results = await asyncio.gather(
        *(n.idempotency.put_if_absent(entry(key, f"node-{i}/t/1"), LONG) for i, n in enumerate(nodes))
    )
    assert [r.outcome for r in results].count(PutOutcome.INSERTED) == 1
    winner = next(i for i, r in enumerate(results) if r.inserted)
    for r in results:
        if not r.inserted:
            assert r.existing is not None and r.existing.holder_id == f"node-{winner}/t/1"


async def test_state_machine(node: Any) -> None:
    store = node.idempotency
    key = new_id("k")
    await store.put_if_absent(entry(key, "h1"), LONG)
    # IN_FLIGHT with a holder: only that holder touches / releases; nobody acquires.
    assert await store.touch(key, "h1") is True
    assert await store.touch(key, "h2") is False
    assert await store.acquire_holder(key, "h2", LONG) is False
    assert await store.release_holder(key, "h2", LONG) is False
    assert await store.discard_reservation(key) is False
    # release: reserved, waiting (no holder) — never stale, nobody touches it.
    assert await store.release_holder(key, "h1", LONG) is True
    waiting = await store.find(key)
    assert waiting is not None and waiting.holder_id is None and waiting.status is IdempotencyStatus.IN_FLIGHT
    assert await store.touch(key, "h1") is False
    assert await store.compare_and_reset(key, "h1") is False
    # acquire by a new holder.
    assert await store.acquire_holder(key, "h3", LONG) is True
    assert await store.acquire_holder(key, "h4", LONG) is False
    held = await store.find(key)
    assert held is not None and held.holder_id == "h3"
    # done: holder cleared, result cached, nothing else applies any more.
    await store.mark_done(key, RESULT)
    done = await store.find(key)
    assert done is not None
    assert (done.status, done.holder_id, done.result) == (IdempotencyStatus.DONE, None, RESULT)
    assert (done.key, done.session_id, done.input_hash) == (key, "s-1", "hash-1")
    for attempt in (
        store.touch(key, "h3"),
        store.release_holder(key, "h3", LONG),
        store.acquire_holder(key, "h5", LONG),
        store.discard_reservation(key),
        store.compare_and_reset(key, "h3"),
    ):
        assert await attempt is False
    assert await store.find(key) == done
    await store.mark_done(new_id("missing"), RESULT)  # missing key: a warning, nothing stored
    assert (await store.put_if_absent(entry(key), LONG)).outcome is PutOutcome.EXISTING


async def test_discard_reservation_only_without_holder(node: Any) -> None:
    store = node.idempotency
    key = new_id("k")
    await store.put_if_absent(entry(key, None), LONG)
    assert await store.discard_reservation(key) is True
    assert await store.find(key) is None
    assert await store.discard_reservation(key) is False


async def test_compare_and_reset_has_exactly_one_winner(cluster: Any) -> None:
    nodes = [await cluster.node(f"node-{i}") for i in range(4)]
    key = new_id("k")
    await nodes[0].idempotency.put_if_absent(entry(key, "lost-holder"), LONG)
    assert await nodes[0].idempotency.compare_and_reset(key, "someone-else") is False
    wins = await asyncio.gather(*(n.idempotency.compare_and_reset(key, "lost-holder") for n in nodes))
    assert wins.count(True) == 1
    assert await nodes[1].idempotency.find(key) is None


async def test_find_stale_in_flight(node: Any) -> None:
    store = node.idempotency
    old = now_ms() - timedelta(minutes=10)
    stale_key, fresh_key, waiting_key, done_key = (new_id(p) for p in ("stale", "fresh", "wait", "done"))
    await store.put_if_absent(entry(stale_key, "h1", touched=old), LONG)
    await store.put_if_absent(entry(fresh_key, "h2"), LONG)
    await store.put_if_absent(entry(waiting_key, None, touched=old), LONG)
    await store.put_if_absent(entry(done_key, "h4", touched=old), LONG)
    await store.mark_done(done_key, RESULT)
    cutoff = now_ms() - timedelta(minutes=1)
    stale = await store.find_stale_in_flight(cutoff)
    keys = {e.key for e in stale}
    assert stale_key in keys
    assert not keys & {fresh_key, waiting_key, done_key}
    assert all(e.status is IdempotencyStatus.IN_FLIGHT and e.holder_id is not None for e in stale)
    assert len(await store.find_stale_in_flight(cutoff, limit=1)) == 1
    # A touch makes it fresh again.
    assert await store.touch(stale_key, "h1") is True
    assert stale_key not in {e.key for e in await store.find_stale_in_flight(cutoff)}


async def test_ttl_lapsed_entry_is_absent(node: Any) -> None:
    store = node.idempotency
    key = new_id("k")
    await store.put_if_absent(entry(key, "h1"), timedelta(milliseconds=200))
    assert await store.find(key) is not None
    await asyncio.sleep(0.6)
    assert await store.find(key) is None
    assert await store.touch(key, "h1") is False
    replacement = entry(key, "h2")
    assert (await store.put_if_absent(replacement, LONG)).outcome is PutOutcome.INSERTED
    assert await store.find(key) == replacement


async def test_touch_slides_the_entrys_own_span(node: Any) -> None:
    store = node.idempotency
    key = new_id("k")
    await store.put_if_absent(entry(key, "h1"), seconds(1.2))
    await asyncio.sleep(0.7)
    assert await store.touch(key, "h1") is True
    await asyncio.sleep(0.7)  # 1.4 s after the put: alive only because the touch re-armed 1.2 s
    touched = await store.find(key)
    assert touched is not None and touched.holder_id == "h1"
    await asyncio.sleep(1.5)
    assert await store.find(key) is None


async def test_release_and_acquire_set_the_given_ttl(node: Any) -> None:
    store = node.idempotency
    key = new_id("k")
    await store.put_if_absent(entry(key, "h1"), LONG)
    assert await store.release_holder(key, "h1", timedelta(milliseconds=200)) is True
    await asyncio.sleep(0.6)
    assert await store.find(key) is None
    assert await store.acquire_holder(key, "h2", LONG) is False  # a lapsed reservation cannot be taken

    other = new_id("k")
    await store.put_if_absent(entry(other, None), timedelta(milliseconds=300))
    assert await store.acquire_holder(other, "h2", LONG) is True
    await asyncio.sleep(0.6)
    kept = await store.find(other)
    assert kept is not None and kept.holder_id == "h2"


async def test_done_entries_outlive_the_in_flight_ttl(node: Any) -> None:
    store = node.idempotency
    key = new_id("k")
    await store.put_if_absent(entry(key, "h1"), timedelta(milliseconds=300))
    await store.mark_done(key, RESULT)
    await asyncio.sleep(0.6)
    done = await store.find(key)
    assert done is not None and done.status is IdempotencyStatus.DONE


async def test_concurrent_acquire_holder_has_one_winner(cluster: Any) -> None:
    nodes = [await cluster.node(f"node-{i}") for i in range(4)]
    key = new_id("k")
    await nodes[0].idempotency.put_if_absent(entry(key, None), LONG)
    takers = (n.idempotency.acquire_holder(key, f"node-{i}/t/1", LONG) for i, n in enumerate(nodes))
    wins = await asyncio.gather(*takers)
    assert wins.count(True) == 1
    held = await nodes[1].idempotency.find(key)
    assert held is not None and held.holder_id == f"node-{wins.index(True)}/t/1"
