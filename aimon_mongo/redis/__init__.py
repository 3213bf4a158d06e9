"""Redis session backend: the seven stores on Redis streams, strings, hashes and pub/sub.

``AsyncRedisSessionBackends`` (on ``redis.asyncio``) is the source; ``RedisSessionBackends`` is its
generated sync twin. Key layout: :mod:`aimon_mongo.redis.keys`; Lua scripts: ``aimon_mongo/redis/lua``.
Each store alone (``AsyncRedisSessionLeaseStore(io, keys)`` …) is a factory returning the service over this
backend's driver; ``*SessionSignalBus`` is a class with the ``sharded`` extra; the drivers
(``AsyncRedisLeaseDriver`` …) are exported too (see :mod:`aimon_mongo.services`).
"""

from typing import TYPE_CHECKING

from aimon_mongo._extras import require_extra
from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo._async.redis.backends import AsyncRedisSessionBackends
    from aimon_mongo._async.redis.idempotency import AsyncRedisIdempotencyDriver, AsyncRedisIdempotencyStore
    from aimon_mongo._async.redis.inbox import AsyncRedisInboxDriver, AsyncRedisSessionInbox
    from aimon_mongo._async.redis.leases import AsyncRedisLeaseDriver, AsyncRedisSessionLeaseStore
    from aimon_mongo._async.redis.records import AsyncRedisRecordDriver, AsyncRedisSessionRecordStore
    from aimon_mongo._async.redis.segments import AsyncRedisSegmentDriver, AsyncRedisSessionLogSegmentStore
    from aimon_mongo._async.redis.signals import AsyncRedisSessionSignalBus, AsyncRedisSignalDriver
    from aimon_mongo._async.redis.tasks import AsyncRedisBackgroundTaskStore, AsyncRedisTaskDriver
    from aimon_mongo._sync.redis.backends import RedisSessionBackends
    from aimon_mongo._sync.redis.idempotency import RedisIdempotencyDriver, RedisIdempotencyStore
    from aimon_mongo._sync.redis.inbox import RedisInboxDriver, RedisSessionInbox
    from aimon_mongo._sync.redis.leases import RedisLeaseDriver, RedisSessionLeaseStore
    from aimon_mongo._sync.redis.records import RedisRecordDriver, RedisSessionRecordStore
    from aimon_mongo._sync.redis.segments import RedisSegmentDriver, RedisSessionLogSegmentStore
    from aimon_mongo._sync.redis.signals import RedisSessionSignalBus, RedisSignalDriver
    from aimon_mongo._sync.redis.tasks import RedisBackgroundTaskStore, RedisTaskDriver
    from aimon_mongo.redis.keys import RedisKeyPrefixes, RedisKeys

require_extra("aimon_mongo.redis", "redis", "redis")

__all__ = [
    "AsyncRedisBackgroundTaskStore",
    "AsyncRedisIdempotencyDriver",
    "AsyncRedisIdempotencyStore",
    "AsyncRedisInboxDriver",
    "AsyncRedisLeaseDriver",
    "AsyncRedisRecordDriver",
    "AsyncRedisSegmentDriver",
    "AsyncRedisSessionBackends",
    "AsyncRedisSessionInbox",
    "AsyncRedisSessionLeaseStore",
    "AsyncRedisSessionLogSegmentStore",
    "AsyncRedisSessionRecordStore",
    "AsyncRedisSessionSignalBus",
    "AsyncRedisSignalDriver",
    "AsyncRedisTaskDriver",
    "RedisBackgroundTaskStore",
    "RedisIdempotencyDriver",
    "RedisIdempotencyStore",
    "RedisInboxDriver",
    "RedisKeyPrefixes",
    "RedisKeys",
    "RedisLeaseDriver",
    "RedisRecordDriver",
    "RedisSegmentDriver",
    "RedisSessionBackends",
    "RedisSessionInbox",
    "RedisSessionLeaseStore",
    "RedisSessionLogSegmentStore",
    "RedisSessionRecordStore",
    "RedisSessionSignalBus",
    "RedisSignalDriver",
    "RedisTaskDriver",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "AsyncRedisBackgroundTaskStore": "aimon_mongo._async.redis.tasks",
            "AsyncRedisIdempotencyDriver": "aimon_mongo._async.redis.idempotency",
            "AsyncRedisIdempotencyStore": "aimon_mongo._async.redis.idempotency",
            "AsyncRedisInboxDriver": "aimon_mongo._async.redis.inbox",
            "AsyncRedisLeaseDriver": "aimon_mongo._async.redis.leases",
            "AsyncRedisRecordDriver": "aimon_mongo._async.redis.records",
            "AsyncRedisSegmentDriver": "aimon_mongo._async.redis.segments",
            "AsyncRedisSessionBackends": "aimon_mongo._async.redis.backends",
            "AsyncRedisSessionInbox": "aimon_mongo._async.redis.inbox",
            "AsyncRedisSessionLeaseStore": "aimon_mongo._async.redis.leases",
            "AsyncRedisSessionLogSegmentStore": "aimon_mongo._async.redis.segments",
            "AsyncRedisSessionRecordStore": "aimon_mongo._async.redis.records",
            "AsyncRedisSessionSignalBus": "aimon_mongo._async.redis.signals",
            "AsyncRedisSignalDriver": "aimon_mongo._async.redis.signals",
            "AsyncRedisTaskDriver": "aimon_mongo._async.redis.tasks",
            "RedisBackgroundTaskStore": "aimon_mongo._sync.redis.tasks",
            "RedisIdempotencyDriver": "aimon_mongo._sync.redis.idempotency",
            "RedisIdempotencyStore": "aimon_mongo._sync.redis.idempotency",
            "RedisInboxDriver": "aimon_mongo._sync.redis.inbox",
            "RedisKeyPrefixes": "aimon_mongo.redis.keys",
            "RedisKeys": "aimon_mongo.redis.keys",
            "RedisLeaseDriver": "aimon_mongo._sync.redis.leases",
            "RedisRecordDriver": "aimon_mongo._sync.redis.records",
            "RedisSegmentDriver": "aimon_mongo._sync.redis.segments",
            "RedisSessionBackends": "aimon_mongo._sync.redis.backends",
            "RedisSessionInbox": "aimon_mongo._sync.redis.inbox",
            "RedisSessionLeaseStore": "aimon_mongo._sync.redis.leases",
            "RedisSessionLogSegmentStore": "aimon_mongo._sync.redis.segments",
            "RedisSessionRecordStore": "aimon_mongo._sync.redis.records",
            "RedisSessionSignalBus": "aimon_mongo._sync.redis.signals",
            "RedisSignalDriver": "aimon_mongo._sync.redis.signals",
            "RedisTaskDriver": "aimon_mongo._sync.redis.tasks",
        },
    )
