"""Failures of the Redis backend: an unreachable server, a flushed script cache, foreign key types."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import redis

from aimon_mongo.errors import BackendUnavailable, InvalidArgumentError, SessionInboxError, SessionLeaseError
from aimon_mongo.model import Priority
from aimon_mongo.redis import AsyncRedisSessionBackends, RedisSessionBackends
from tests.conformance.backends import AsyncFacade
from tests.conformance.helpers import message

UNREACHABLE = "redis://127.0.0.1:1/0"


@pytest.mark.parametrize("flavour", [RedisSessionBackends, AsyncRedisSessionBackends])
async def test_an_unreachable_server_names_host_and_port(flavour: Any) -> None:
    built = flavour(UNREACHABLE, "node-a")
    node = built if flavour is AsyncRedisSessionBackends else AsyncFacade(built)
    try:
        with pytest.raises(BackendUnavailable, match=r"127\.0\.0\.1:1"):
            await node.inbox.is_empty("s-1")
        with pytest.raises(BackendUnavailable, match=r"127\.0\.0\.1:1"):
            await node.leases.try_acquire("s-1", "node-a", timedelta(seconds=1))
        with pytest.raises(BackendUnavailable, match=r"127\.0\.0\.1:1"):
            await node.ping()
    finally:
        await node.close()


async def test_scripts_are_reloaded_after_the_server_forgets_them(
    redis_cluster: Any, redis_client: redis.Redis
) -> None:
    node = await redis_cluster.node("node-a")
    first = await node.leases.try_acquire("s-1", "node-a", timedelta(seconds=30))
    assert first is not None
    redis_client.script_flush()
    await node.leases.release(first)
    second = await node.leases.try_acquire("s-1", "node-a", timedelta(seconds=30))
    assert second is not None and second.fencing_token > first.fencing_token


async def test_other_failures_raise_the_capability_family(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    redis_client.set(f"{root}:aimon:inbox:s-1:NOW", "not a stream")
    with pytest.raises(SessionInboxError, match="WRONGTYPE"):
        await node.inbox.deliver(message("s-1", priority=Priority.NOW))
    redis_client.set(f"{root}:aimon:conv:lock:fence:s-2", "not a number")
    with pytest.raises(SessionLeaseError):
        await node.leases.try_acquire("s-2", "node-a", timedelta(seconds=30))


async def test_holder_ids_that_would_break_a_stored_format_are_refused(redis_cluster: Any) -> None:
    node = await redis_cluster.node("node-a")
    assert node.leases.holder_id_forbidden_chars == ":"
    with pytest.raises(InvalidArgumentError, match="holder_id"):
        await node.leases.try_acquire("s-1", "node:1", timedelta(seconds=30))
    assert await node.leases.find_holder("s-1") is None
    assert node.idempotency.holder_id_forbidden_chars == '"\\'
    for holder in ('a"b', "a\\b"):
        with pytest.raises(InvalidArgumentError, match="holder_id"):
            await node.idempotency.touch("k-1", holder)
