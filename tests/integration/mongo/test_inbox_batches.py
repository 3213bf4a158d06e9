"""MongoDB inbox batches, counted with CommandLog: ``deliver_many`` is one command; ``collect`` takes a batch
with one find and one transaction (delete + commit) on the stand-ins that run transactions — mongoeco (a standalone
that accepts them) and SecantusDB (a replica set) — and falls back to one ``findAndModify`` per entry on a
server that refuses them the way a standalone mongod does. Every CRUD command names the session."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest
from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo.model import Priority
from aimon_mongo.mongo import AsyncMongoSessionBackends, ensure_schema, ensure_schema_async
from aimon_mongo.mongo.command_log import CommandLog
from tests.conformance.helpers import message, new_id
from tests.fixtures.mongo import CLIENT_OPTIONS
from tests.integration.mongo.inbox_log import assert_targeted, command_names, sync_inbox


def test_deliver_many_is_one_command_naming_the_session_in_every_statement(
    logged: tuple[CommandLog, MongoClient[dict[str, Any]], str],
) -> None:
    log, client, name = logged
    inbox = sync_inbox(client, name)
    session = new_id()
    with log.recording() as seen:
        ids = inbox.deliver_many([message(session, turn_id=f"{i:02d}") for i in range(64)])
    assert command_names(seen) == ["update"] and seen.commands[0].updates == 64 and seen.commands[0].upsert
    assert_targeted(seen)
    stored = client[name]["conversation_inbox"].find({"conversationId": session}).sort("_id", 1).to_list()
    assert [str(doc["_id"]) for doc in stored] == ids
    assert all(doc["deliveredAt"] is not None for doc in stored)


def test_collect_takes_a_batch_in_one_transaction(logged: tuple[CommandLog, MongoClient[dict[str, Any]], str]) -> None:
    log, client, name = logged
    inbox = sync_inbox(client, name)
    assert inbox.collects_in_transactions is None  # not known before the first collect
    session = new_id()
    inbox.deliver_many([message(session, turn_id=f"{i:02d}") for i in range(70)])
    with log.recording() as first:
        batch = inbox.collect(session)
    assert [m.turn_id for m in batch.messages] == [f"{i:02d}" for i in range(64)]
    assert command_names(first) == ["find", "delete", "commitTransaction"]
    assert inbox.collects_in_transactions is True
    assert_targeted(first)
    assert first.commands[1].command.get("startTransaction") is True  # the delete opens the transaction
    with log.recording() as rest:
        assert [m.turn_id for m in inbox.collect(session).messages] == [f"{i:02d}" for i in range(64, 70)]
    assert rest.round_trips == 3
    with log.recording() as empty:
        assert inbox.collect(session).is_empty()
    assert command_names(empty) == ["find"]  # nothing to remove: no transaction
    assert inbox.is_empty(session)


def test_collect_in_a_transaction_keeps_max_priority(
    logged: tuple[CommandLog, MongoClient[dict[str, Any]], str],
) -> None:
    log, client, name = logged
    inbox = sync_inbox(client, name)
    session = new_id()
    inbox.deliver_many(
        [message(session, turn_id=t, priority=p) for t, p in [("l", Priority.LATER), ("w", Priority.NOW)]]
    )
    with log.recording() as seen:
        assert [m.turn_id for m in inbox.collect(session, Priority.NEXT).messages] == ["w"]
    assert seen.round_trips == 3
    assert [m.turn_id for m in inbox.collect(session).messages] == ["l"]


async def test_async_collect_takes_a_batch_in_one_transaction(mongo_uri: str, mongo_db_name: str) -> None:
    log = CommandLog()
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(mongo_uri, event_listeners=[log], **CLIENT_OPTIONS)
    try:
        await ensure_schema_async(client[mongo_db_name])
        bundle = AsyncMongoSessionBackends(client[mongo_db_name], "node-a")
        await bundle.schema_check.before_write()
        inbox = bundle.inbox
        session = new_id()
        with log.recording() as delivered:
            await inbox.deliver_many([message(session, turn_id=str(i)) for i in range(10)])
        assert delivered.round_trips == 1
        with log.recording() as seen:
            batch = await inbox.collect(session)
        assert [m.turn_id for m in batch.messages] == [str(i) for i in range(10)]
        assert command_names(seen) == ["find", "delete", "commitTransaction"]
        assert_targeted(seen)
    finally:
        await client.drop_database(mongo_db_name)
        await client.close()


def test_collect_on_a_replica_set_takes_a_batch_in_one_transaction(changestream_uri: str) -> None:
    log = CommandLog()
    client: MongoClient[dict[str, Any]] = MongoClient(changestream_uri, event_listeners=[log], **CLIENT_OPTIONS)
    name = f"t_{uuid.uuid4().hex[:16]}"
    try:
        assert client.admin.command("hello").get("setName")  # SecantusDB reports a replica set
        ensure_schema(client[name])
        inbox = sync_inbox(client, name)
        session = new_id()
        inbox.deliver_many([message(session, turn_id=str(i)) for i in range(5)])
        with log.recording() as seen:
            assert [m.turn_id for m in inbox.collect(session).messages] == [str(i) for i in range(5)]
        assert command_names(seen) == ["find", "delete", "commitTransaction"]
        assert inbox.is_empty(session)
    finally:
        client.drop_database(name)
        client.close()


def test_collect_falls_back_to_one_entry_per_round_trip_where_transactions_are_refused(
    refusing_uri: str, caplog: pytest.LogCaptureFixture
) -> None:
    log = CommandLog()
    client: MongoClient[dict[str, Any]] = MongoClient(refusing_uri, event_listeners=[log], **CLIENT_OPTIONS)
    name = f"t_{uuid.uuid4().hex[:16]}"
    try:
        ensure_schema(client[name])
        inbox = sync_inbox(client, name)
        session = new_id()
        inbox.deliver_many([message(session, turn_id=str(i)) for i in range(6)])
        with caplog.at_level(logging.INFO, logger="aimon_mongo._sync.mongo.inbox"), log.recording() as first:
            assert [m.turn_id for m in inbox.collect(session).messages] == [str(i) for i in range(6)]
        assert "the server refuses transactions" in caplog.text
        assert inbox.collects_in_transactions is False
        # the transaction's delete is refused (nothing removed; PyMongo ends it), then the loop: 6 + the empty one
        assert command_names(first) == ["find", "delete", "abortTransaction"] + ["findAndModify"] * 7
        inbox.deliver_many([message(session, turn_id=str(i)) for i in range(2)])
        with log.recording() as later:  # decided once: no transaction is tried again
            assert [m.turn_id for m in inbox.collect(session).messages] == ["0", "1"]
        assert command_names(later) == ["findAndModify"] * 3
        assert_targeted(later)
    finally:
        client.drop_database(name)
        client.close()
