"""MongoDB session stores against raw PyMongo doing the same operations on the same server, in one run.

    python benchmarks/mongo_session.py           # full run (a few minutes on the stand-in)
    python benchmarks/mongo_session.py --smoke   # tiny sizes, under 15 s, exits 0

Server: ``MONGODB_URI`` when set, else the local mongoeco stand-in (started and stopped here).

Cases, each timed for ours (``MongoSessionBackends``, sync) and for raw PyMongo sending the same commands:

* **deliver+collect**: deliver a batch of text messages to one session (pipeline upsert on a pre-allocated
  ObjectId, ``deliveredAt = $$NOW``), then collect until empty (``find_one_and_delete`` loop with the FIFO
  sort, at most 64 per call). Ours also encodes and decodes every message; raw sends prebuilt documents
  and decodes nothing.
* **acquire+release**: take a lease (the *steal* ``find_one_and_update`` on ``$$NOW``) and release it
  (expire in place), again and again on one session.

Ours and raw run back to back in pairs (the order alternating); medians count, and the throughput ratio is
the median of the per-pair ratios, so load from other processes affects both sides of a pair alike.
Printed per case: operations per second (wall clock) and the ratio ours / raw (target >= 0.90x), and the
client-side CPU time per operation (``time.process_time`` of this process; the server is another
process) with its ratio. On a stand-in, absolute numbers measure the stand-in.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from statistics import median
from typing import Any

from _machine import machine  # benchmarks/_machine.py (run as a script)
from bson import ObjectId
from bson.int64 import Int64
from pymongo import MongoClient, ReturnDocument

from aimon_mongo.codec.inbound import to_mongo_document
from aimon_mongo.model import InboundMessage, Principal, Priority, TextInput
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema
from aimon_mongo.standin import StandinServer, configured_uri

TTL = timedelta(seconds=30)
FIFO = [("priority", 1), ("deliveredAt", 1)]


def message(session_id: str, i: int) -> InboundMessage:
    return InboundMessage(
        turn_id=f"turn-{i}",
        session_id=session_id,
        agent_ref="support-agent",
        user_input=TextInput(text="Please summarise the attached report and list the open action items."),
        priority=Priority.NEXT,
        idempotency_key=f"idem-{i}",
        initiator=Principal.user("user-42", "Ada Lovelace"),
        delivered_at=datetime(2024, 5, 1, 12, 34, 56, 789000, tzinfo=UTC),
        metadata={"channel": "web"},
    )


class Cases:
    """The two implementations of each case; every call returns the number of store operations done."""

    def __init__(self, client: MongoClient[dict[str, Any]], db_name: str, batch: int) -> None:
        self.db = client[db_name]
        ensure_schema(self.db)
        self.ours = MongoSessionBackends(self.db, "bench-node")
        self.inbox = self.db["conversation_inbox"]
        self.locks = self.db["conversation_locks"]
        self.batch = batch
        self.messages = [message("bench-ours", i) for i in range(batch)]
        # Raw PyMongo gets its documents prebuilt (it does no encoding of its own).
        self.raw_docs = [
            {k: v for k, v in to_mongo_document(message("bench-raw", i), ObjectId()).items() if k != "_id"}
            for i in range(batch)
        ]
        self.lease = self.ours.leases.try_acquire("lease-ours", "bench-node", TTL)
        self.raw_lease_token = 0

    def ours_deliver_collect(self) -> int:
        for msg in self.messages:
            self.ours.inbox.deliver(msg)
        operations, collected = self.batch, 0
        while True:
            batch = self.ours.inbox.collect("bench-ours")
            operations += len(batch) + 1
            collected += len(batch)
            if batch.is_empty():
                break
        assert collected == self.batch
        return operations

    def raw_deliver_collect(self) -> int:
        for doc in self.raw_docs:
            stage: dict[str, Any] = {k: {"$literal": v} for k, v in doc.items()}
            stage["deliveredAt"] = "$$NOW"
            self.inbox.update_one({"_id": ObjectId()}, [{"$set": stage}], upsert=True)
        operations, collected = self.batch, 0
        query = {"conversationId": "bench-raw", "priority": {"$lte": 2}}
        while True:
            taken = 0
            for _ in range(64):
                operations += 1
                if self.inbox.find_one_and_delete(query, sort=FIFO) is None:
                    break
                taken += 1
            collected += taken
            if taken == 0:
                break
        assert collected == self.batch
        return operations

    def ours_acquire_release(self) -> int:
        assert self.lease is not None
        self.ours.leases.release(self.lease)
        self.lease = self.ours.leases.try_acquire("lease-ours", "bench-node", TTL)
        assert self.lease is not None
        return 2

    def raw_acquire_release(self) -> int:
        self.locks.update_one(
            {"_id": "lease-raw", "holderId": "bench-node", "fencingToken": self.raw_lease_token},
            [{"$set": {"holderId": None, "leaseExpiresAt": "$$NOW"}}],
        )
        doc = self.locks.find_one_and_update(
            {"_id": "lease-raw", "$expr": {"$lte": ["$leaseExpiresAt", "$$NOW"]}},
            [{"$set": {
                "holderId": {"$literal": "bench-node"},
                "fencingToken": {"$toLong": {"$add": [{"$ifNull": ["$fencingToken", Int64(0)]}, Int64(1)]}},
                "acquiredAt": "$$NOW",
                "leaseExpiresAt": {"$add": ["$$NOW", 30000]},
            }}],
            return_document=ReturnDocument.AFTER,
        )  # fmt: skip
        if doc is None:  # first round: cold start
            doc = self.locks.find_one_and_update(
                {"_id": "lease-raw", "fencingToken": {"$exists": False}},
                [{"$set": {"holderId": {"$literal": "bench-node"}, "fencingToken": {"$literal": Int64(1)},
                           "acquiredAt": "$$NOW", "leaseExpiresAt": {"$add": ["$$NOW", 30000]}}}],
                upsert=True,
                return_document=ReturnDocument.AFTER,
            )  # fmt: skip
        assert doc is not None
        self.raw_lease_token = int(doc["fencingToken"])
        return 2

    def close(self) -> None:
        self.ours.close()


@dataclass(frozen=True)
class Result:
    ours_rate: float
    raw_rate: float
    ours_cpu: float
    raw_cpu: float
    ratio: float


def measure(fn: Callable[[], int], repeat: int) -> tuple[float, float]:
    """(operations per wall second, client CPU seconds per operation) of ``repeat`` calls."""
    wall, cpu = time.perf_counter(), time.process_time()
    operations = sum(fn() for _ in range(repeat))
    return operations / (time.perf_counter() - wall), (time.process_time() - cpu) / operations


def run(cases: Cases, pairs: int, inbox_repeat: int, lease_repeat: int) -> dict[str, Result]:
    """Per case: ``pairs`` back-to-back (ours, raw) measurements, the order alternating pair by pair; the
    medians count (the ratio is the median of the per-pair ratios, so load that comes and goes hits both
    sides of a pair alike)."""
    plan = {
        "deliver+collect": (cases.ours_deliver_collect, cases.raw_deliver_collect, inbox_repeat),
        "acquire+release": (cases.ours_acquire_release, cases.raw_acquire_release, lease_repeat),
    }
    results: dict[str, Result] = {}
    for name, (ours, raw, repeat) in plan.items():
        ours()  # warm-up (connections, first documents)
        raw()
        samples: dict[str, list[tuple[float, float]]] = {"ours": [], "raw": []}
        ratios: list[float] = []
        for i in range(pairs):
            sides = [("ours", ours), ("raw", raw)]
            got = {side: measure(fn, repeat) for side, fn in (sides if i % 2 == 0 else sides[::-1])}
            for side in samples:
                samples[side].append(got[side])
            ratios.append(got["ours"][0] / got["raw"][0])
        results[name] = Result(
            ours_rate=median(rate for rate, _ in samples["ours"]),
            raw_rate=median(rate for rate, _ in samples["raw"]),
            ours_cpu=median(cpu for _, cpu in samples["ours"]),
            raw_cpu=median(cpu for _, cpu in samples["raw"]),
            ratio=median(ratios),
        )
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: under 15 s, exit 0")
    args = parser.parse_args()
    batch, pairs, inbox_repeat, lease_repeat = (10, 3, 1, 10) if args.smoke else (64, 21, 1, 50)

    uri = configured_uri()
    server = None if uri else StandinServer("mongoeco")
    if server is not None:
        uri = server.start()
    assert uri is not None
    client: MongoClient[dict[str, Any]] = MongoClient(uri, tz_aware=True, serverSelectionTimeoutMS=20000)
    db_name = f"bench_{uuid.uuid4().hex[:12]}"
    try:
        cases = Cases(client, db_name, batch)
        try:
            results = run(cases, pairs, inbox_repeat, lease_repeat)
        finally:
            cases.close()
        version = client.admin.command("buildInfo").get("version", "?")
    finally:
        client.drop_database(db_name)
        client.close()
        if server is not None:
            server.stop()

    where = "MONGODB_URI" if server is None else "mongoeco stand-in (memory engine)"
    print(f"machine: {machine()}")
    print(f"server: {where}, version {version}; medians of {pairs} back-to-back pairs (ours, raw)")
    print(f"deliver+collect: {batch} messages per batch x {inbox_repeat}; acquire+release: {lease_repeat} cycles\n")
    print(f"| {'case':<16} | {'ours ops/s':>10} | {'raw ops/s':>10} | {'ratio':>6} | "
          f"{'ours CPU/op':>11} | {'raw CPU/op':>10} | {'CPU ratio':>9} |")  # fmt: skip
    print(f"|{'-' * 18}|{'-' * 12}|{'-' * 12}|{'-' * 8}|{'-' * 13}|{'-' * 12}|{'-' * 11}|")
    met = True
    for name, r in results.items():
        met = met and r.ratio >= 0.90
        print(
            f"| {name:<16} | {r.ours_rate:>10,.0f} | {r.raw_rate:>10,.0f} | {r.ratio:>5.2f}x | "
            f"{r.ours_cpu * 1e6:>8,.0f} µs | {r.raw_cpu * 1e6:>7,.0f} µs | {r.ours_cpu / r.raw_cpu:>8.2f}x |"
        )
    print(f"\ntarget: throughput ratio >= 0.90x in every case -> {'met' if met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
