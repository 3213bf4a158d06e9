"""MongoDB session stores against raw PyMongo doing the same operations on the same server, in one run.

    python benchmarks/mongo_session.py           # full run (a few minutes on the stand-in)
    python benchmarks/mongo_session.py --smoke   # tiny sizes, a few seconds

Server: ``MONGODB_URI`` when set, else the local mongoeco stand-in (started and stopped here).

Cases, each timed for ours (``MongoSessionBackends``, sync) and for raw PyMongo sending the same commands:

* **deliver+collect**: deliver a batch of text messages to one session (pipeline upsert on a pre-allocated
  ObjectId, ``deliveredAt = $$NOW``), then collect until empty (``find_one_and_delete`` loop with the FIFO
  sort, at most 64 per call). Ours also encodes and decodes every message; raw sends prebuilt documents
  and decodes nothing.
* **acquire+release**: take a lease (the *steal* ``find_one_and_update`` on ``$$NOW``) and release it
  (expire in place), again and again on one session.
* **deliver_many+collect**: ours delivers the batch with one ``deliver_many`` and collects it in
  transactions; raw is the same naive per-message loop as above.
* The same cases again **through the test TCP proxy with 1 ms added each way** (``, 1 ms``), where the
  round trips are what costs: 64 messages; the wall-clock ratio of deliver_many+collect is reported, its
  targets are the rows below.
* **deliver_many+collect stated in what our code decides** (issue 31: on the stand-in the server's own
  cost decides the wall clock): round trips per 64 messages against the naive loop (target >= 10x fewer:
  the 10x speed target restated) and against **raw batched**, plain PyMongo doing the same logical work
  with the same batching (one ordered bulk of the 64 pipeline upserts; the take as one ``find`` and one
  ``delete`` of those ids in a ``with_transaction``; prebuilt documents, nothing decoded) — target: no
  more round trips and no more bytes on the wire (BSON of commands sent + replies, ``CommandLog``) than
  raw batched, and client CPU per message (``time.process_time``, from the ``, 1 ms`` rounds) no more
  than the naive loop's.

Round trips per operation: every public session operation of the sync bundle once, counted by
``CommandLog`` (the commands sent; stable on a noisy machine), listed under the table.

Ours and raw run back to back in rounds (the order alternating), so load from other processes affects both
sides of a round alike. Printed per case: operations per second (wall clock, medians) and the per-round
ratio ours / raw, min / median / max (target >= 0.90x), and in a note the client-side CPU time per
operation (``time.process_time`` of this process; the server is another process). On a stand-in,
absolute numbers measure the stand-in.
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from _timing import (  # benchmarks/_timing.py
    SHARED_STANDIN,
    Report,
    Result,
    Sample,
    cpu_note,
    main,
    rounds,
    times,
)
from bson import ObjectId
from bson.int64 import Int64
from pymongo import MongoClient, ReturnDocument, UpdateOne
from pymongo.client_session import ClientSession
from pymongo.read_concern import ReadConcern
from pymongo.write_concern import WriteConcern

from aimon_mongo.codec.inbound import to_mongo_document
from aimon_mongo.model import InboundMessage, Principal, Priority, TextInput
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema
from aimon_mongo.mongo.command_log import CommandLog, Recording
from aimon_mongo.standin import StandinServer, configured_uri

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: the tests' TCP proxy
from tests.fixtures.tcp_proxy import TcpProxy

TTL = timedelta(seconds=30)
MANY = 64
"""Messages of the counted deliver_many+collect (smoke runs too: the counts are cheap and exact)."""
FIFO = [("priority", 1), ("deliveredAt", 1)]
MAJORITY_WRITE, MAJORITY_READ = WriteConcern("majority"), ReadConcern("majority")


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
        # Raw batched keeps ours' guarantees: majority writes, majority reads (the same concerns on the wire).
        self.durable_inbox = self.inbox.with_options(write_concern=MAJORITY_WRITE, read_concern=MAJORITY_READ)
        self.batch = batch
        self.messages = [message("bench-ours", i) for i in range(batch)]
        # Raw PyMongo gets its documents prebuilt (it does no encoding of its own).
        self.raw_docs = [
            {k: v for k, v in to_mongo_document(message("bench-raw", i), ObjectId()).items() if k != "_id"}
            for i in range(batch)
        ]
        self.bulk_docs = [  # the same length of session id as ours: the same bytes per document
            {k: v for k, v in to_mongo_document(message("bench-bulk", i), ObjectId()).items() if k != "_id"}
            for i in range(batch)
        ]
        self.lease = self.ours.leases.try_acquire("lease-ours", "bench-node", TTL)
        self.raw_lease_token = 0

    def ours_deliver_collect(self) -> int:
        for msg in self.messages:
            self.ours.inbox.deliver(msg)
        return self.ours_collect_all()

    def ours_collect_all(self) -> int:
        """Collect until empty; the operations of the round (the deliveries counted as one each)."""
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

    def raw_batched_deliver_collect(self) -> int:
        """The same logical work as ``deliver_many`` + ``collect`` in plain PyMongo, batched as ours is."""
        writes = []
        for doc in self.bulk_docs:
            stage: dict[str, Any] = {k: {"$literal": v} for k, v in doc.items()}
            stage["deliveredAt"] = "$$NOW"
            target = {"_id": ObjectId(), "conversationId": "bench-bulk"}
            writes.append(UpdateOne(target, [{"$set": stage}], upsert=True))
        self.durable_inbox.bulk_write(writes, ordered=True)
        query = {"conversationId": "bench-bulk"}
        operations, collected = self.batch, 0

        def take(session: ClientSession) -> list[dict[str, Any]]:
            docs = self.durable_inbox.find(query).sort(FIFO).limit(64).to_list()
            if docs:
                ids = [doc["_id"] for doc in docs]
                named = {"conversationId": "bench-bulk", "_id": {"$in": ids}}
                removed = self.durable_inbox.delete_many(named, session=session)
                assert removed.deleted_count == len(ids)
            return docs

        with self.db.client.start_session() as session:
            while True:
                taken = session.with_transaction(take, read_concern=MAJORITY_READ, write_concern=MAJORITY_WRITE)
                operations += len(taken) + 1
                collected += len(taken)
                if not taken:
                    break
        assert collected == self.batch
        return operations

    def ours_deliver_many_collect(self) -> int:
        self.ours.inbox.deliver_many(self.messages)
        return self.ours_collect_all()

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


BATCH_TARGETS = (
    "round trips vs the naive raw loop",
    "round trips vs raw batched",
    "bytes on the wire vs raw batched",
    "client CPU per message vs the naive raw loop",
    "client CPU per message vs raw batched",
)
"""The rows stating deliver_many+collect in what our code decides (their cases: ``deliver_many+collect: …``)."""
TITLE = "MongoDB session"
LATENCY = 0.001
"""Seconds the TCP proxy adds each way in the ``, 1 ms`` cases."""
CASES = (
    "deliver+collect",
    "acquire+release",
    "deliver_many+collect",
    "deliver+collect, 1 ms",
    "acquire+release, 1 ms",
    "deliver_many+collect, 1 ms",
    *(f"deliver_many+collect: {what}" for what in BATCH_TARGETS),
)


def plan(cases: Cases, lease_repeat: int, suffix: str = "") -> dict[str, tuple[Any, Any, int, float | None]]:
    """Case name -> (ours, raw, calls per round, target)."""
    return {
        f"deliver+collect{suffix}": (cases.ours_deliver_collect, cases.raw_deliver_collect, 1, 0.90),
        f"acquire+release{suffix}": (cases.ours_acquire_release, cases.raw_acquire_release, lease_repeat, 0.90),
        # At 1 ms the wall clock is the stand-in's own cost: the target is stated in round trips (BATCH_TARGETS).
        f"deliver_many+collect{suffix}": (
            cases.ours_deliver_many_collect, cases.raw_deliver_collect, 1, None if suffix else 0.90
        ),
    }  # fmt: skip


def timed(
    cases: Cases, lease_repeat: int, repeats: int, suffix: str = "", batched: dict[str, list[Sample]] | None = None
) -> list[Result]:
    """The wall-clock rows; with ``batched``, deliver_many+collect also runs raw batched in the same rounds and
    every side's samples of that case are left in ``batched`` (``ours``, ``raw``, ``batched``)."""
    results = []
    for name, (ours, raw, repeat, target) in plan(cases, lease_repeat, suffix).items():
        sides = {"ours": times(ours, repeat, counted=True), "raw": times(raw, repeat, counted=True)}
        extra = batched is not None and name.startswith("deliver_many")
        if extra:
            sides["batched"] = times(cases.raw_batched_deliver_collect, repeat, counted=True)
        samples = rounds(sides, repeats)
        note = cpu_note(samples["ours"], samples["raw"])
        results.append(Result.timed(TITLE, name, samples["ours"], samples["raw"], target=target, note=note))
        if extra and batched is not None:
            batched.update(samples)
    return results


def batch_targets(cases: Cases, log: CommandLog, samples: dict[str, list[Sample]], timed_batch: int) -> list[Result]:
    """deliver_many+collect in round trips, bytes (one run of each side on ``cases``, counted) and client CPU
    per message (``samples``: the timed rounds, ``timed_batch`` messages each; see the module text)."""
    wire: dict[str, Recording] = {}
    for side, run in (("ours", cases.ours_deliver_many_collect), ("raw", cases.raw_deliver_collect),
                      ("batched", cases.raw_batched_deliver_collect)):  # fmt: skip
        with log.recording() as seen:
            run()
        wire[side] = seen
    per = cases.batch

    def cpu(side: str) -> tuple[float, ...]:
        return tuple(s.cpu / timed_batch * 1e6 for s in samples[side])

    def count(side: str) -> str:
        return f"{wire[side].round_trips} commands ({', '.join(f'{k} {v}' for k, v in wire[side].by_name().items())})"

    def size(side: str) -> int:
        return wire[side].bytes_sent + wire[side].bytes_received

    rows = [
        ("round trips", (wire["ours"].round_trips,), (wire["raw"].round_trips,), 10.0,
         f"per {per} messages delivered and collected; ours {count('ours')}, naive raw {count('raw')}"),
        ("round trips", (wire["ours"].round_trips,), (wire["batched"].round_trips,), 1.0,
         f"raw batched {count('batched')}"),
        ("bytes", (size("ours"),), (size("batched"),), 1.0,
         f"BSON sent + received per {per} messages: ours {wire['ours'].bytes_sent:,} + "
         f"{wire['ours'].bytes_received:,}, raw batched {wire['batched'].bytes_sent:,} + "
         f"{wire['batched'].bytes_received:,}; naive raw {size('raw'):,}"),
        ("µs CPU/msg", cpu("ours"), cpu("raw"), 1.0,
         "process CPU of the client per message, the `, 1 ms` rounds (the server is another process)"),
        ("µs CPU/msg", cpu("ours"), cpu("batched"), None,
         "no target: ours encodes every message and decodes every one it collects into an InboundMessage, "
         "raw batched sends prebuilt documents and decodes nothing"),
    ]  # fmt: skip
    return [
        Result(
            TITLE, f"deliver_many+collect: {case}", unit, ours, theirs, target=target, higher_is_better=False, note=note
        )
        for case, (unit, ours, theirs, target, note) in zip(BATCH_TARGETS, rows, strict=True)
    ]


def round_trips(client: MongoClient[dict[str, Any]], log: CommandLog, db_name: str) -> dict[str, int]:
    """Every public session operation of the sync MongoDB bundle once, with the commands it sent."""
    from bench_operations import session_operations  # benchmarks/bench_operations.py

    ensure_schema(client[db_name])
    bundle = MongoSessionBackends(client[db_name], "count-node")
    bundle.schema_check.before_write()  # once per bundle, not what an operation costs
    counted: dict[str, int] = {}
    try:
        for name, call in session_operations(bundle):
            with log.recording() as seen:
                call()
            counted[name] = seen.round_trips
    finally:
        bundle.close()
    return counted


def measure(args: argparse.Namespace) -> Report:
    batch, lease_repeat = (10, 10) if args.smoke else (64, 50)
    slow_lease_repeat = 2 if args.smoke else 10
    uri = configured_uri()
    server = None if uri else StandinServer("mongoeco")
    if server is not None:
        uri = server.start()
    assert uri is not None
    log = CommandLog()
    client: MongoClient[dict[str, Any]] = MongoClient(
        uri, tz_aware=True, serverSelectionTimeoutMS=20000, event_listeners=[log]
    )
    host, port = client.address or ("127.0.0.1", 27017)
    proxy = TcpProxy(host, port, delay=LATENCY)
    slow: MongoClient[dict[str, Any]] = MongoClient(
        f"mongodb://127.0.0.1:{proxy.port}/?directConnection=true", tz_aware=True, serverSelectionTimeoutMS=20000
    )
    names = [f"bench_{uuid.uuid4().hex[:12]}" for _ in range(4)]
    results: list[Result] = []
    try:
        cases = Cases(client, names[0], batch)
        try:
            results += timed(cases, lease_repeat, args.repeats)
        finally:
            cases.close()
        slow_cases = Cases(slow, names[1], batch)
        batched: dict[str, list[Sample]] = {}
        try:
            results += timed(slow_cases, slow_lease_repeat, max(1, args.repeats // 4), ", 1 ms", batched)
        finally:
            slow_cases.close()
        counting = Cases(client, names[3], MANY)
        try:
            results += batch_targets(counting, log, batched, batch)
        finally:
            counting.close()
        counted = round_trips(client, log, names[2])
        version = client.admin.command("buildInfo").get("version", "?")
    finally:
        for name in names:
            client.drop_database(name)
        slow.close()
        proxy.close()
        client.close()
        if server is not None:
            server.stop()
    where = "MONGODB_URI" if server is None and not os.environ.get(SHARED_STANDIN) else "mongoeco stand-in"
    return Report(results, {
        "MongoDB session server": f"{where} (reports {version})",
        "MongoDB session sizes": f"deliver+collect {batch} messages per round, acquire+release {lease_repeat} cycles"
        f" ({slow_lease_repeat} through the proxy, 1 ms each way, a quarter of the rounds)",
    }, round_trips={TITLE: counted})  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, repeats=41))
