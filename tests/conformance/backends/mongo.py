"""The MongoDB family: every node of a test shares one fresh database on the stand-in (or MONGODB_URI)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

import pytest
from bson import ObjectId
from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo.clock import Clock
from aimon_mongo.codec.inbound import to_mongo_document
from aimon_mongo.model import InboundMessage, Priority
from aimon_mongo.mongo import AsyncMongoSessionBackends, MongoSessionBackends, ensure_schema, ensure_schema_async
from tests.conformance.backends import ClusterBase, register_cluster
from tests.fixtures.mongo import CLIENT_OPTIONS


class MongoCluster(ClusterBase):
    can_damage_entries = True
    stored_form = "mongo-document"

    def __init__(self, is_async: bool, client: MongoClient[dict[str, Any]], db_name: str, uri: str) -> None:
        super().__init__()
        self.is_async = is_async
        self.client = client
        self.db_name = db_name
        self.uri = uri
        self.async_client: AsyncMongoClient[dict[str, Any]] | None = None

    async def start(self) -> None:
        if self.is_async:
            self.async_client = AsyncMongoClient(self.uri, **CLIENT_OPTIONS)
            await ensure_schema_async(self.async_client[self.db_name])
        else:
            ensure_schema(self.client[self.db_name])

    async def build(self, node_id: str, clock: Clock | None) -> Any:
        if self.async_client is not None:
            return AsyncMongoSessionBackends(self.async_client[self.db_name], node_id, clock=clock)
        return MongoSessionBackends(self.client[self.db_name], node_id, clock=clock)

    async def stop(self) -> None:
        await super().stop()
        if self.async_client is not None:
            await self.async_client.close()

    async def store_damaged_entry(self, message: InboundMessage) -> str:
        doc = to_mongo_document(message, ObjectId())
        doc["payload"]["initiator"]["type"] = "ROBOT"
        del doc["_id"], doc["deliveredAt"]
        return await self.store_raw_entry(message.session_id, message.priority, doc)

    async def store_entry_with_bad_instant(self, message: InboundMessage, text: str) -> str:
        doc = to_mongo_document(message, ObjectId())
        doc["payload"]["deliveredAt"] = text
        del doc["_id"], doc["deliveredAt"]
        return await self.store_raw_entry(message.session_id, message.priority, doc)

    async def store_raw_entry(self, session_id: str, priority: Priority | Any, raw: Any) -> str:
        """``raw`` as the document; ``conversationId`` / ``priority`` (the collect filter) default to the
        arguments and ``deliveredAt`` to the server's ``$$NOW`` — stored the way deliver() stores."""
        oid = ObjectId()
        stage = {key: {"$literal": value} for key, value in raw.items()}
        stage.setdefault("conversationId", {"$literal": session_id})
        stage.setdefault("priority", {"$literal": priority.ordinal if isinstance(priority, Priority) else priority})
        stage.setdefault("deliveredAt", "$$NOW")
        self.client[self.db_name]["conversation_inbox"].update_one({"_id": oid}, [{"$set": stage}], upsert=True)
        return str(oid)

    def same_raw(self, stored: Any, kept: Any) -> bool:
        kept = {key: value for key, value in kept.items() if key not in ("_id", "deliveredAt")}
        return _normal(kept) == _normal({key: value for key, value in stored.items() if key != "deliveredAt"})

    def repair(self, raw: Any) -> Any:
        repaired = copy.deepcopy(raw)
        repaired["payload"]["initiator"]["type"] = "USER"
        return repaired


def _normal(value: Any) -> Any:
    """BSON values compared the way they come back: dates as UTC millisecond instants, binary as bytes."""
    if isinstance(value, dict):
        return {key: _normal(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_normal(item) for item in value]
    if isinstance(value, bytes):  # Binary subtype 0 comes back as plain bytes
        return bytes(value)
    if isinstance(value, datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=UTC)
        return aware.astimezone(UTC).replace(microsecond=aware.microsecond // 1000 * 1000)
    return value


def _cluster(is_async: bool) -> Any:
    def make(request: pytest.FixtureRequest) -> MongoCluster:
        client = request.getfixturevalue("mongo_client")
        db_name, uri = request.getfixturevalue("mongo_db_name"), request.getfixturevalue("mongo_uri")
        return MongoCluster(is_async, client, db_name, uri)

    return make


register_cluster("mongo-sync", _cluster(False))
register_cluster("mongo-async", _cluster(True))
