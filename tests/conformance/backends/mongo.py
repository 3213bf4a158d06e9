"""The MongoDB family: every node of a test shares one fresh database on the stand-in (or MONGODB_URI)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from bson import ObjectId
from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo.clock import Clock
from aimon_mongo.codec.inbound import to_mongo_document
from aimon_mongo.model import InboundMessage
from aimon_mongo.mongo import AsyncMongoSessionBackends, MongoSessionBackends, ensure_schema, ensure_schema_async
from tests.conformance.backends import ClusterBase, register_cluster
from tests.fixtures.mongo import CLIENT_OPTIONS


class MongoCluster(ClusterBase):
    can_damage_entries = True

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
        oid = ObjectId()
        doc = to_mongo_document(message, oid)
        doc["payload"]["initiator"]["type"] = "ROBOT"
        stage = {key: {"$literal": value} for key, value in doc.items() if key != "_id"}
        stage["deliveredAt"] = "$$NOW"  # stored exactly the way deliver() stores, FIFO included
        self.client[self.db_name]["conversation_inbox"].update_one({"_id": oid}, [{"$set": stage}], upsert=True)
        return str(oid)

    def repair(self, raw: Any) -> Any:
        repaired = copy.deepcopy(raw)
        repaired["payload"]["initiator"]["type"] = "USER"
        return repaired



def _cluster(is_async: bool) -> Any:
    def make(request: pytest.FixtureRequest) -> MongoCluster:
        client = request.getfixturevalue("mongo_client")
        db_name, uri = request.getfixturevalue("mongo_db_name"), request.getfixturevalue("mongo_uri")
        return MongoCluster(is_async, client, db_name, uri)

    return make


register_cluster("mongo-sync", _cluster(False))
register_cluster("mongo-async", _cluster(True))
