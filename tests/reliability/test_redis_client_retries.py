"""A borrowed redis-py client that re-sends commands is named in a warning (found by the connection-cut run).

With redis-py's ``Redis(...)`` defaults a command that lost its reply is sent again: the cut run then saw
collects return normally while the batch of the first, applied, run was gone ("lost outside a cut").
Clients the bundle builds from a URL do not retry, so every lost reply surfaces as ``BackendUnavailable``.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
import redis
import redis.asyncio
from redis.backoff import NoBackoff
from redis.retry import Retry

from aimon_mongo.redis import AsyncRedisSessionBackends, RedisSessionBackends
from aimon_mongo.redis.failures import retries_of

FLAVOURS = [(RedisSessionBackends, redis.Redis), (AsyncRedisSessionBackends, redis.asyncio.Redis)]


@pytest.mark.parametrize(("bundle", "client_class"), FLAVOURS)
async def test_a_retrying_client_is_named_in_a_warning(
    bundle: Any, client_class: Any, caplog: pytest.LogCaptureFixture
) -> None:
    client = client_class(host="127.0.0.1", port=1)  # redis-py's defaults: retries after connection errors
    assert retries_of(client) > 0
    with caplog.at_level(logging.WARNING):
        built = bundle(client, "node-a")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "127.0.0.1:1" in warnings[0] and "Retry(NoBackoff(), 0)" in warnings[0]
    await _close(built, client)


@pytest.mark.parametrize(("bundle", "client_class"), FLAVOURS)
async def test_clients_that_do_not_retry_are_not_warned_about(
    bundle: Any, client_class: Any, caplog: pytest.LogCaptureFixture
) -> None:
    quiet = [
        client_class(host="127.0.0.1", port=1, retry=Retry(NoBackoff(), 0)),
        client_class.from_url("redis://127.0.0.1:1/0"),
    ]
    with caplog.at_level(logging.WARNING):
        for client in quiet:
            assert retries_of(client) == 0
            await _close(bundle(client, "node-a"), client)
        await _close(bundle("redis://127.0.0.1:1/0", "node-a"), None)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def _close(built: Any, client: Any) -> None:
    for target in (built, client):
        if target is None:
            continue
        closed = target.aclose() if hasattr(target, "aclose") else target.close()
        if hasattr(closed, "__await__"):
            await closed
