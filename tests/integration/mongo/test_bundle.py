"""The MongoDB bundle: collection overrides, borrowed client, unreachable server, schema bootstrap."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pymongo import AsyncMongoClient, MongoClient
from pymongo.synchronous.database import Database

from aimon_mongo.errors import BackendUnavailable, InvalidArgumentError, SessionLeaseError
from aimon_mongo.model import InboundMessage, Lease, Principal, TextInput
from aimon_mongo.mongo import AsyncMongoSessionBackends, MongoSessionBackends, ensure_schema, ensure_schema_async


def _message(session: str) -> InboundMessage:
    return InboundMessage(
        session_id=session, agent_ref="a", user_input=TextInput(text="x"), initiator=Principal.system(),
        delivered_at=datetime.now(UTC),
    )  # fmt: skip


def test_collection_overrides_are_used(mongo_db: Database[dict[str, Any]]) -> None:
    overrides = {"inbox": "my_inbox", "locks": "my_locks"}
    ensure_schema(mongo_db, overrides)
    bundle = MongoSessionBackends(mongo_db, "node-a", overrides)
    bundle.inbox.deliver(_message("s"))
    assert bundle.leases.try_acquire("s", "node-a", timedelta(seconds=5)) is not None
    assert mongo_db["my_inbox"].count_documents({}) == 1
    assert mongo_db["my_locks"].count_documents({}) == 1
    assert "conversation_inbox" not in mongo_db.list_collection_names()
    assert [i["name"] for i in mongo_db["my_inbox"].list_indexes()] == ["_id_", "by_conv_priority_fifo"]
    bundle.close()
    assert mongo_db.client.admin.command("ping")["ok"] == 1  # the borrowed client stays open


async def test_async_bundle_refuses_a_sync_database(mongo_db: Database[dict[str, Any]]) -> None:
    with pytest.raises(InvalidArgumentError, match="database"):
        AsyncMongoSessionBackends(mongo_db, "node-a")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="node_id"):
        MongoSessionBackends(mongo_db, {"$ne": None})  # type: ignore[arg-type]


async def test_async_schema_bootstrap_is_idempotent(mongo_uri: str, mongo_db_name: str) -> None:
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(mongo_uri)
    try:
        await ensure_schema_async(client[mongo_db_name])
        await ensure_schema_async(client[mongo_db_name])
        names = set(await client[mongo_db_name].list_collection_names())
        assert {"conversation_inbox", "conversation_signals", "session_fences"} <= names
    finally:
        await client.close()


def test_schema_bootstrap_reports_an_uncapped_signal_collection(
    mongo_db: Database[dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    mongo_db.create_collection("conversation_signals")
    with caplog.at_level(logging.WARNING):
        ensure_schema(mongo_db)
    assert any("conversation_signals" in r.getMessage() and "not capped" in r.getMessage() for r in caplog.records)


def test_unreachable_server_raises_backend_unavailable() -> None:
    client: MongoClient[dict[str, Any]] = MongoClient("127.0.0.1", 9, serverSelectionTimeoutMS=300)
    bundle = MongoSessionBackends(client["nowhere"], "node-a")
    try:
        with pytest.raises(BackendUnavailable, match="lease acquire"):
            bundle.leases.try_acquire("s", "node-a", timedelta(seconds=5))
        with pytest.raises(BackendUnavailable):
            bundle.inbox.collect("s")
        lease = Lease(session_id="s", holder_id="node-a", fencing_token=1, expires_at=datetime.now(UTC))
        bundle.leases.release(lease)  # best effort: logged, never raised
    finally:
        bundle.close()
        client.close()


def test_server_errors_map_to_the_family(mongo_db: Database[dict[str, Any]]) -> None:
    mongo_db["conversation_locks"].insert_one({"_id": "s", "leaseExpiresAt": "not a date", "fencingToken": "x"})
    bundle = MongoSessionBackends(mongo_db, "node-a")
    with pytest.raises(SessionLeaseError):  # the steal's $add on a string token fails on the server
        bundle.leases.try_acquire("s", "node-a", timedelta(seconds=5))
