"""MongoDB's fencing token has Redis's clock floor: ``max(token + 1, $$NOW ms x 1024)``.

A rolled-back lock document (an acquisition acknowledged with ``w:1`` and lost in a failover, or a member
restored from an older state) is simulated by restoring the document to what it held before the last
acquisitions. The next token is still above every token handed out; the reference build's steal (token + 1,
reference fact sheet §3.3) on the same restored document hands out a token again (the control: the floor
is what prevents the reissue).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from bson.int64 import Int64
from pymongo import MongoClient, ReturnDocument

from aimon_mongo import names as n
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema
from tests.fixtures.mongo import CLIENT_OPTIONS

TTL = timedelta(seconds=30)
ROUNDS = 3
REFERENCE_STEAL = [
    {
        "$set": {
            "holderId": {"$literal": "reference-node"},
            "fencingToken": {"$add": [{"$ifNull": ["$fencingToken", Int64(0)]}, Int64(1)]},
            "acquiredAt": "$$NOW",
            "leaseExpiresAt": {"$add": ["$$NOW", 30_000]},
        }
    }
]
"""The reference build's steal update (fact sheet §3.3): the counter alone, no clock floor."""


@pytest.fixture
def db(mongo_uri: str, mongo_db_name: str) -> Iterator[Any]:
    client: MongoClient[Any] = MongoClient(mongo_uri, **CLIENT_OPTIONS)
    ensure_schema(client[mongo_db_name])
    yield client[mongo_db_name]
    client.close()


def server_millis(db: Any) -> int:
    """The server's clock ($$NOW) in epoch milliseconds."""
    probe = [{"$set": {"t": {"$toLong": "$$NOW"}}}]
    found = db["clock_probe"].find_one_and_update(
        {"_id": "now"}, probe, upsert=True, return_document=ReturnDocument.AFTER
    )
    return int(found["t"])


def wait_past(db: Any, token: int) -> None:
    """Poll until the server clock is past the millisecond of ``token`` (a failover takes far longer)."""
    deadline = time.monotonic() + 10
    while server_millis(db) <= token // 1024:
        assert time.monotonic() < deadline, "the server clock did not advance"
        time.sleep(0.002)


def test_a_rolled_back_lock_document_hands_out_no_token_twice(db: Any) -> None:
    bundle = MongoSessionBackends(db, "node-a", signal_mode="poll")
    locks = db[n.MONGO_LOCKS]
    reissued, reissued_by_counter = 0, 0
    try:
        for round_ in range(ROUNDS):
            session = f"s-rollback-{round_}"
            first = bundle.leases.try_acquire(session, "node-a", TTL)
            assert first is not None
            bundle.leases.release(first)
            before = locks.find_one({"_id": session})  # what a lagging member still holds
            handed_out = [first.fencing_token]
            for _ in range(3):  # acknowledged with w:1, then lost in the failover
                lease = bundle.leases.try_acquire(session, "node-a", TTL)
                assert lease is not None
                handed_out.append(lease.fencing_token)
                bundle.leases.release(lease)
            assert handed_out == sorted(set(handed_out))
            locks.replace_one({"_id": session}, before)  # the rollback
            wait_past(db, max(handed_out))
            counter_only = locks.find_one_and_update(
                {"_id": session}, REFERENCE_STEAL, return_document=ReturnDocument.AFTER
            )["fencingToken"]
            if counter_only <= max(handed_out):
                reissued_by_counter += 1
            locks.replace_one({"_id": session}, before)  # the control leaves nothing behind
            after = bundle.leases.try_acquire(session, "node-a", TTL)
            assert after is not None
            if after.fencing_token <= max(handed_out):
                reissued += 1
    finally:
        bundle.close()
    assert reissued_by_counter == ROUNDS
    assert reissued == 0
