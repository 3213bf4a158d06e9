"""The generated-sync proof module, both variants, against the stand-in."""

from __future__ import annotations

from typing import Any

import pytest
from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo._async.mongo import server as async_server
from aimon_mongo._sync.mongo import server as sync_server
from aimon_mongo.errors import BackendUnavailable


def test_sync_ping_and_describe(mongo_client: MongoClient[dict[str, Any]]) -> None:
    sync_server.ping(mongo_client)
    description = sync_server.describe(mongo_client)
    assert description.version
    assert description.max_wire_version > 0
    assert description.supports_change_streams is (description.replica_set is not None)


async def test_async_ping_and_describe(async_mongo_client: AsyncMongoClient[dict[str, Any]]) -> None:
    await async_server.ping(async_mongo_client)
    description = await async_server.describe(async_mongo_client)
    assert description == sync_server.describe(MongoClient(*_address(async_mongo_client)))


def _address(client: AsyncMongoClient[dict[str, Any]]) -> tuple[str, int]:
    host, port = next(iter(client.topology_description.server_descriptions()))
    return host, port


def test_sync_unreachable_names_host() -> None:
    client: MongoClient[dict[str, Any]] = MongoClient("127.0.0.1", 9, serverSelectionTimeoutMS=300)
    with pytest.raises(BackendUnavailable, match=r"127\.0\.0\.1:9"):
        sync_server.ping(client)
    client.close()


async def test_async_unreachable_names_host() -> None:
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient("127.0.0.1", 9, serverSelectionTimeoutMS=300)
    with pytest.raises(BackendUnavailable, match=r"127\.0\.0\.1:9"):
        await async_server.describe(client)
    await client.close()


def test_secantus_stand_in_is_a_replica_set(changestream_uri: str) -> None:
    with MongoClient(changestream_uri, serverSelectionTimeoutMS=20000) as client:
        assert sync_server.describe(client).supports_change_streams
