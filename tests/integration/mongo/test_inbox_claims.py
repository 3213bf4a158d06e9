"""MongoDB acknowledged delivery, counted with CommandLog and read back raw: ``claim`` is one ``find`` and a
transaction of one ``update`` + commit (3 round trips, 1 when nothing is eligible), ``acknowledge`` one
``delete``; the stored claim fields are asserted against literals; a reference collect (``findAndModify``
removal by ``conversationId``, knowing nothing of claims) still takes claimed entries; a deployment that
refuses transactions claims one entry per ``findAndModify``."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from bson import Int64, ObjectId
from pymongo import MongoClient

from aimon_mongo.codec.inbox_entry import decode_mongo_entry
from aimon_mongo.model import Priority
from aimon_mongo.mongo import ensure_schema
from aimon_mongo.mongo.command_log import CommandLog
from aimon_mongo.schema_gate import assert_conforms
from tests.conformance.helpers import message, new_id
from tests.fixtures.mongo import CLIENT_OPTIONS
from tests.integration.mongo.inbox_log import assert_targeted, command_names, sync_inbox


def test_claim_and_acknowledge_round_trips(logged: tuple[CommandLog, MongoClient[dict[str, Any]], str]) -> None:
    log, client, name = logged
    inbox = sync_inbox(client, name)
    session = new_id()
    ids = inbox.deliver_many([message(session, turn_id=f"{i:02d}") for i in range(10)])
    with log.recording() as claimed:
        batch = inbox.claim(session, 7)
    assert [m.id for m in batch.messages] == ids
    assert command_names(claimed) == ["find", "update", "commitTransaction"] and claimed.round_trips == 3
    assert claimed.commands[1].command.get("startTransaction") is True  # the update opens the transaction
    assert_targeted(claimed)
    with log.recording() as acked:
        assert inbox.acknowledge(session, 7, ids) == 10
    assert command_names(acked) == ["delete"] and acked.round_trips == 1
    assert_targeted(acked)
    with log.recording() as empty:
        assert inbox.claim(session, 7).messages == []
    assert command_names(empty) == ["find"]  # nothing eligible: no transaction


def test_claim_that_quarantines_and_quarantine_entries_round_trips(
    logged: tuple[CommandLog, MongoClient[dict[str, Any]], str],
) -> None:
    log, client, name = logged
    inbox = sync_inbox(client, name)
    session = new_id()
    poison, good = inbox.deliver_many([message(session, turn_id="p"), message(session, turn_id="g")])
    inbox.claim(session, 1, max_attempts=1)
    with log.recording() as claimed:
        batch = inbox.claim(session, 2, max_attempts=1)
    assert batch.quarantined == [poison, good] and batch.messages == []
    assert command_names(claimed) == ["find", "insert", "delete", "commitTransaction"]
    third = inbox.deliver(message(session, turn_id="t"))
    with log.recording() as moved:
        assert inbox.quarantine_entries(session, [third], "handler raised") == 1
    assert command_names(moved) == ["find", "insert", "delete", "commitTransaction"]
    assert_targeted(moved)
    stored = client[name]["conversation_inbox_quarantine"].find({"conversationId": session}).sort("_id", 1).to_list()
    assert [(d["error"], d["rawDocument"]["_id"]) for d in stored] == [
        ("handed out 1 times", ObjectId(poison)),
        ("handed out 1 times", ObjectId(good)),
        ("handler raised", ObjectId(third)),
    ]
    for doc in stored:
        assert_conforms("mongo.inbox.quarantine-document", doc)


def test_claim_fields_are_stored_as_frozen_literals(
    logged: tuple[CommandLog, MongoClient[dict[str, Any]], str],
) -> None:
    _, client, name = logged
    inbox = sync_inbox(client, name)
    session = new_id()
    entry_id = inbox.deliver(message(session, turn_id="a", priority=Priority.NOW))
    raw = client[name]["conversation_inbox"]
    (fresh,) = raw.find({"_id": ObjectId(entry_id)}).to_list()
    assert sorted(fresh) == ["_id", "conversationId", "deliveredAt", "payload", "priority"]  # nothing until claimed
    inbox.claim(session, 41)
    inbox.claim(session, 42)
    (doc,) = raw.find({"_id": ObjectId(entry_id)}).to_list()
    assert sorted(doc) == [
        "_id", "claimAttempts", "claimToken", "claimedAt", "conversationId", "deliveredAt", "payload", "priority",
    ]  # fmt: skip
    assert doc["claimToken"] == 42 and isinstance(doc["claimToken"], Int64)
    assert doc["claimAttempts"] == 2 and type(doc["claimAttempts"]) is int
    assert isinstance(doc["claimedAt"], datetime)
    assert_conforms("mongo.inbox.document", doc)
    decoded = decode_mongo_entry(doc, session)  # the claim fields are not part of the message
    assert not isinstance(decoded, type(None)) and getattr(decoded, "turn_id", None) == "a"


def test_a_reference_collect_still_takes_claimed_entries(
    logged: tuple[CommandLog, MongoClient[dict[str, Any]], str],
) -> None:
    """What the reference build's collect does (``findOneAndDelete`` by ``conversationId``, sorted by priority
    and ``deliveredAt``) knows nothing of claims: it takes claimed entries too — a redelivery, never a loss."""
    _, client, name = logged
    inbox = sync_inbox(client, name)
    session = new_id()
    ids = inbox.deliver_many([message(session, turn_id=t) for t in ("a", "b")])
    inbox.claim(session, 9)
    raw = client[name]["conversation_inbox"]
    taken = []
    while (
        doc := raw.find_one_and_delete({"conversationId": session}, sort=[("priority", 1), ("deliveredAt", 1)])
    ) is not None:
        taken.append(decode_mongo_entry(doc, session))
    assert [getattr(m, "id", None) for m in taken] == ids
    assert inbox.acknowledge(session, 9, ids) == 0 and inbox.is_empty(session)


def test_sessions_with_entries_is_one_bounded_find_per_page(
    logged: tuple[CommandLog, MongoClient[dict[str, Any]], str],
) -> None:
    log, client, name = logged
    inbox = sync_inbox(client, name)
    prefix = new_id("p")
    inbox.deliver_many([message(f"{prefix}-{i}") for i in range(3) for _ in range(2)])
    with log.recording() as seen:
        page = inbox.sessions_with_entries(after=prefix, limit=2)
    assert page.session_ids == [f"{prefix}-0", f"{prefix}-1"] and page.next_after == f"{prefix}-1"
    assert command_names(seen) == ["find"] and seen.commands[0].command["limit"] == 1024


def test_claim_without_transactions_is_one_find_and_modify_per_entry(refusing_uri: str) -> None:
    log = CommandLog()
    client: MongoClient[dict[str, Any]] = MongoClient(refusing_uri, event_listeners=[log], **CLIENT_OPTIONS)
    name = f"t_{uuid.uuid4().hex[:16]}"
    try:
        ensure_schema(client[name])
        inbox = sync_inbox(client, name)
        session = new_id()
        ids = inbox.deliver_many([message(session, turn_id=str(i)) for i in range(3)])
        with log.recording() as first:
            batch = inbox.claim(session, 5, max_attempts=2)
        assert [m.id for m in batch.messages] == ids and batch.attempt == 1
        # the transaction's update is refused (PyMongo ends it), then the loop: 3 + the empty one
        assert command_names(first) == ["find", "update", "abortTransaction"] + ["findAndModify"] * 4
        with log.recording() as later:
            again = inbox.claim(session, 6, max_attempts=2)
        assert again.attempts == dict.fromkeys(ids, 2) and command_names(later) == ["findAndModify"] * 4
        assert_targeted(later)
        exhausted = inbox.claim(session, 7, max_attempts=2)
        assert exhausted.quarantined == ids and exhausted.messages == []
        assert [q.error for q in inbox.list_quarantined(session)] == ["handed out 2 times"] * 3
        assert inbox.is_empty(session)
        assert inbox.acknowledge(session, 7, ids) == 0
    finally:
        client.drop_database(name)
        client.close()


def test_claim_on_a_replica_set_runs_in_a_transaction(changestream_uri: str) -> None:
    log = CommandLog()
    client: MongoClient[dict[str, Any]] = MongoClient(changestream_uri, event_listeners=[log], **CLIENT_OPTIONS)
    name = f"t_{uuid.uuid4().hex[:16]}"
    try:
        assert client.admin.command("hello").get("setName")  # SecantusDB reports a replica set
        ensure_schema(client[name])
        inbox = sync_inbox(client, name)
        session = new_id()
        ids = inbox.deliver_many([message(session, turn_id=str(i)) for i in range(5)])
        with log.recording() as seen:
            assert [m.id for m in inbox.claim(session, 3).messages] == ids
        assert command_names(seen) == ["find", "update", "commitTransaction"]
        assert inbox.claim(session, 4).attempts == dict.fromkeys(ids, 2)
        with log.recording() as acked:
            assert inbox.acknowledge(session, 3, ids) == 0
            assert inbox.acknowledge(session, 4, ids) == 5
        assert command_names(acked) == ["delete", "delete"]
        assert inbox.is_empty(session)
    finally:
        client.drop_database(name)
        client.close()
