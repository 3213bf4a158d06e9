"""Concurrent transactional collectors on one session (MongoDB): 8 collectors on 8 bundles of one client
take batches in transactions while 4 deliverers fill the session → no message lost, none delivered twice,
every batch in order; the commands show that the collects really ran as transactions and really conflicted
(more transactions begun than committed with entries), so the retry path carried part of the load.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from typing import Any

from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo.mongo import AsyncMongoSessionBackends, MongoSessionBackends, ensure_schema
from aimon_mongo.mongo.command_log import CommandLog, Recording
from tests.conformance.helpers import new_id
from tests.fixtures.mongo import CLIENT_OPTIONS
from tests.reliability import load_run as run
from tests.reliability.plugin import Counts, Sizes


def _check(taken: run.Taken, plans: list[list[run.Planned]], seen: Recording, counts: Counts, backend: str) -> None:
    everything = [turn for batches in taken.batches for batch in batches for turn, _ in batch]
    counted = Counter(everything)
    duplicates = sum(n - 1 for n in counted.values())
    lost = sum(1 for part in plans for p in part if p.turn_id not in counted)
    counts.add("load, transactional collect", backend, messages=len(counted), duplicates=duplicates, lost=lost)
    assert (duplicates, lost, taken.unreadable) == (0, 0, 0), "(duplicates, lost, unreadable)"
    assert run.order_violations(taken, plans) == []
    assert taken.max_in_flight >= 2, taken.max_in_flight
    taken_batches = sum(1 for batches in taken.batches for batch in batches if batch)
    deletes = [c for c in seen.commands if c.name == "delete" and c.collection == "conversation_inbox"]
    assert deletes and seen.by_name()["commitTransaction"], seen.by_name()  # batches taken in transactions
    # Collectors really conflicted: more batches were deleted inside transactions than were handed out, so
    # some commits were refused and those transactions ran again.
    assert len(deletes) > taken_batches, (len(deletes), taken_batches)


def _size(sizes: Sizes) -> int:
    return sizes.pick(ci=500, full=10_000)


def test_sync_transactional_collectors_on_one_session(mongo_uri: str, sizes: Sizes, reliability_counts: Counts) -> None:
    log = CommandLog()
    client: MongoClient[dict[str, Any]] = MongoClient(mongo_uri, event_listeners=[log], **CLIENT_OPTIONS)
    name = f"t_{uuid.uuid4().hex[:16]}"
    try:
        ensure_schema(client[name])
        bundles = [MongoSessionBackends(client[name], f"node-{i}") for i in range(run.COLLECTORS + run.DELIVERERS)]
        total = _size(sizes)
        plans = run.plan(total, seed=total + 1)
        session = new_id("txn")
        with log.recording() as seen:
            taken = run.run_threads(
                [b.inbox for b in bundles[: run.COLLECTORS]],
                [b.inbox for b in bundles[run.COLLECTORS :]],
                session,
                plans,
            )
        assert len(taken.collector_threads) == run.COLLECTORS
        _check(taken, plans, seen, reliability_counts, "mongo-sync")
    finally:
        client.drop_database(name)
        client.close()


async def test_async_transactional_collectors_on_one_session(
    mongo_uri: str, sizes: Sizes, reliability_counts: Counts
) -> None:
    log = CommandLog()
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(mongo_uri, event_listeners=[log], **CLIENT_OPTIONS)
    name = f"t_{uuid.uuid4().hex[:16]}"
    try:
        await asyncio.to_thread(_ensure, mongo_uri, name)
        bundles = [AsyncMongoSessionBackends(client[name], f"node-{i}") for i in range(run.COLLECTORS + run.DELIVERERS)]
        total = _size(sizes)
        plans = run.plan(total, seed=total + 2)
        session = new_id("txn")
        with log.recording() as seen:
            taken = await run.run_tasks(
                [b.inbox for b in bundles[: run.COLLECTORS]],
                [b.inbox for b in bundles[run.COLLECTORS :]],
                session,
                plans,
            )
        _check(taken, plans, seen, reliability_counts, "mongo-async")
    finally:
        await client.drop_database(name)
        await client.close()


def _ensure(uri: str, name: str) -> None:
    client: MongoClient[dict[str, Any]] = MongoClient(uri, **CLIENT_OPTIONS)
    try:
        ensure_schema(client[name])
    finally:
        client.close()
