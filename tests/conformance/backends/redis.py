"""Conformance families ``redis-sync`` and ``redis-async``: the real server at ``REDIS_URL``.

Each test gets its own key namespace (the frozen prefixes moved under ``t<random>:``); every node of the
test shares it, and every key under it is deleted afterwards. Bundles are built from the URL, so each
owns (and closes) its client.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis

from aimon_mongo.clock import Clock
from aimon_mongo.codec.inbound import to_json_envelope
from aimon_mongo.model import InboundMessage, Priority
from aimon_mongo.redis import AsyncRedisSessionBackends, RedisKeyPrefixes, RedisKeys, RedisSessionBackends
from tests.conformance.backends import ClusterBase, register
from tests.fixtures.redis import delete_namespace, new_root


class RedisCluster(ClusterBase):
    can_damage_entries = True
    stored_form = "json-envelope"

    def __init__(self, url: str, root: str, *, is_async: bool) -> None:
        super().__init__()
        self.url = url
        self.root = root
        self.prefixes = RedisKeyPrefixes().under(root)
        self.keys = RedisKeys(self.prefixes)
        self.is_async = is_async

    async def build(self, node_id: str, clock: Clock | None) -> Any:
        flavour = AsyncRedisSessionBackends if self.is_async else RedisSessionBackends
        return flavour(self.url, node_id, self.prefixes, clock)

    async def store_damaged_entry(self, message: InboundMessage) -> str:
        envelope = json.loads(to_json_envelope(message))
        envelope["initiator"]["type"] = "ROBOT"
        return await self.store_raw_entry(
            message.session_id, message.priority, json.dumps(envelope, separators=(",", ":"))
        )

    async def store_entry_with_bad_instant(self, message: InboundMessage, text: str) -> str:
        envelope = json.loads(to_json_envelope(message))
        envelope["deliveredAt"] = text
        raw = json.dumps(envelope, separators=(",", ":"))
        return await self.store_raw_entry(message.session_id, message.priority, raw)

    def raw_client(self) -> Any:
        """A sync redis-py client of the family's server (the caller closes it)."""
        return redis.Redis.from_url(self.url)

    async def store_raw_entry(self, session_id: str, priority: Priority | str, raw: Any) -> str:
        stream = self.keys.inbox_stream(session_id, Priority.NOW)
        stream = stream.removesuffix("NOW") + (priority.name if isinstance(priority, Priority) else str(priority))
        client = self.raw_client()
        try:
            entry_id = client.xadd(stream, raw if isinstance(raw, dict) else {"p": raw})
        finally:
            client.close()
        return entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)

    def same_raw(self, stored: Any, kept: Any) -> bool:
        if isinstance(stored, dict):  # a foreign entry without "p": its fields, as JSON text
            return bool(json.loads(kept) == {str(k): str(v) for k, v in stored.items()})
        as_bytes = stored.encode() if isinstance(stored, str) else stored
        return bool((kept.encode() if isinstance(kept, str) else kept) == as_bytes)

    def repair(self, raw: Any) -> Any:
        return str(raw).replace('"ROBOT"', '"USER"')


def _factory(is_async: bool) -> Any:
    @contextlib.asynccontextmanager
    async def factory(request: pytest.FixtureRequest) -> AsyncIterator[RedisCluster]:
        url = request.getfixturevalue("redis_url")
        cluster = RedisCluster(url, new_root(), is_async=is_async)
        try:
            yield cluster
        finally:
            try:
                await cluster.close_all()
            finally:
                delete_namespace(url, cluster.root)

    return factory


register("redis-sync", _factory(False))
register("redis-async", _factory(True))
