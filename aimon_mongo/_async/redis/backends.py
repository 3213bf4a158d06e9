"""All seven Redis stores of one node, built from one client (or URL) and one ``node_id``."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Final

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from aimon_mongo._async.bundle import AsyncClosingBundle
from aimon_mongo._async.redis.connection import AsyncRedisIO
from aimon_mongo._async.redis.idempotency import DEFAULT_DONE_TTL, AsyncRedisIdempotencyDriver
from aimon_mongo._async.redis.inbox import DEFAULT_COLLECT_LIMIT, AsyncRedisInboxDriver
from aimon_mongo._async.redis.leases import AsyncRedisLeaseDriver
from aimon_mongo._async.redis.records import AsyncRedisRecordDriver, HashReply
from aimon_mongo._async.redis.segments import AsyncRedisSegmentDriver
from aimon_mongo._async.redis.signals import AsyncRedisSessionSignalBus
from aimon_mongo._async.redis.tasks import AsyncRedisTaskDriver
from aimon_mongo._async.services.idempotency import AsyncIdempotency
from aimon_mongo._async.services.inbox import AsyncInbox
from aimon_mongo._async.services.leases import AsyncLeaseStore
from aimon_mongo._async.services.records import AsyncRecordStore
from aimon_mongo._async.services.segments import AsyncSegmentStore
from aimon_mongo._async.services.tasks import AsyncTaskStore
from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.errors import AimonStorageError, InvalidArgumentError
from aimon_mongo.exported import exported_from
from aimon_mongo.redis.failures import warn_if_retrying
from aimon_mongo.redis.keys import RedisKeyPrefixes, RedisKeys
from aimon_mongo.validate import require_id

CONNECT_TIMEOUT = 5.0
"""Seconds a client built from a URL waits for a TCP connection before reporting the server unreachable."""


@exported_from("aimon_mongo.redis")
class AsyncRedisSessionBackends(AsyncClosingBundle):
    """The Redis session backend of one node.

    ``client`` is a ``redis.asyncio.Redis`` (borrowed: ``close()`` leaves it open) or a ``redis://`` URL
    (the bundle builds and owns the client). Any ``decode_responses`` setting works: the stores read raw
    bytes. ``key_prefixes`` (a :class:`RedisKeyPrefixes` or a partial mapping of role → prefix) moves keys
    away from the frozen defaults (only for isolated deployments and tests: nodes sharing state must share
    prefixes). ``clock`` stamps what callers see (``created_at``, ``updated_at``, a task's ``end_time``);
    lease expiry and inbox order use the Redis server's clock.

    ``cluster_layout=True`` selects the opt-in cluster key layout (every key of a session carries the hash
    tag ``{s:<id>}``, so each multi-key script touches one slot; signals use sharded pub/sub): required
    for a ``RedisCluster`` client, usable on a standalone server too. **Reference-build nodes cannot read
    the cluster layout**: use it only where every node is a Python node; the default is the frozen layout.
    """

    def __init__(
        self,
        client: Redis | RedisCluster | str,
        node_id: str,
        key_prefixes: RedisKeyPrefixes | Mapping[str, str] | None = None,
        clock: Clock | None = None,
        *,
        done_ttl: timedelta = DEFAULT_DONE_TTL,
        collect_limit: int = DEFAULT_COLLECT_LIMIT,
        cluster_layout: bool = False,
    ) -> None:
        self.node_id = require_id(node_id, "node_id")
        prefixes = RedisKeyPrefixes.of(key_prefixes)
        self._client: Redis | RedisCluster
        if isinstance(client, str):
            try:
                self._client = Redis.from_url(client, socket_connect_timeout=CONNECT_TIMEOUT)
            except ValueError as exc:  # redis-py's reason names the part at fault, not the whole URL
                raise InvalidArgumentError(f"invalid Redis URL: {exc}") from exc
            self._owns_client = True
        elif isinstance(client, Redis | RedisCluster):
            if isinstance(client, RedisCluster) and cluster_layout is not True:
                raise InvalidArgumentError(
                    "a RedisCluster client needs cluster_layout=True: the frozen key layout puts one session's "
                    "keys in different hash slots (and reference-build nodes cannot read the cluster layout)"
                )
            self._client = client
            self._owns_client = False
            warn_if_retrying(client)
        else:
            raise InvalidArgumentError(
                f"client must be a Redis or RedisCluster client or a redis:// URL, got {type(client).__name__}"
            )
        now = clock if clock is not None else system_clock
        keys = RedisKeys(prefixes, cluster=cluster_layout)
        self.keys = keys
        io = AsyncRedisIO(self._client)
        self._io = io
        self.inbox: Final = AsyncInbox(AsyncRedisInboxDriver(io, keys, collect_limit))
        self.leases: Final = AsyncLeaseStore(AsyncRedisLeaseDriver(io, keys))
        self.signals: Final = AsyncRedisSessionSignalBus(self._client, io, keys, self.node_id)
        self.idempotency: Final = AsyncIdempotency(AsyncRedisIdempotencyDriver(io, keys, now), done_ttl)
        self.tasks: Final[AsyncTaskStore[str | bytes]] = AsyncTaskStore(AsyncRedisTaskDriver(io, keys), now)
        self.records: Final[AsyncRecordStore[HashReply]] = AsyncRecordStore(AsyncRedisRecordDriver(io, keys, now))
        self.segments: Final = AsyncSegmentStore(AsyncRedisSegmentDriver(io, keys))
        self._closed = False

    async def ping(self) -> None:
        """Raise :class:`~aimon_mongo.errors.BackendUnavailable` naming ``host:port`` unless Redis answers."""
        with self._io.guard(AimonStorageError, "ping"):
            await self._io.call("PING")

    async def close(self) -> None:
        """Stop the signal reader; close the client only if this bundle built it. Idempotent."""
        if self._closed:
            return
        self._closed = True
        await self.signals.close()
        if self._owns_client:
            await self._client.aclose()
