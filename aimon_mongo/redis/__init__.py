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
    from aimon_mongo.redis._async.backends import AsyncRedisSessionBackends
    from aimon_mongo.redis._async.idempotency import AsyncRedisIdempotencyDriver, AsyncRedisIdempotencyStore
    from aimon_mongo.redis._async.inbox import AsyncRedisInboxDriver, AsyncRedisSessionInbox
    from aimon_mongo.redis._async.leases import AsyncRedisLeaseDriver, AsyncRedisSessionLeaseStore
    from aimon_mongo.redis._async.records import AsyncRedisRecordDriver, AsyncRedisSessionRecordStore
    from aimon_mongo.redis._async.segments import AsyncRedisSegmentDriver, AsyncRedisSessionLogSegmentStore
    from aimon_mongo.redis._async.signals import AsyncRedisSessionSignalBus, AsyncRedisSignalDriver
    from aimon_mongo.redis._async.tasks import AsyncRedisBackgroundTaskStore, AsyncRedisTaskDriver
    from aimon_mongo.redis._sync.backends import RedisSessionBackends
    from aimon_mongo.redis._sync.idempotency import RedisIdempotencyDriver, RedisIdempotencyStore
    from aimon_mongo.redis._sync.inbox import RedisInboxDriver, RedisSessionInbox
    from aimon_mongo.redis._sync.leases import RedisLeaseDriver, RedisSessionLeaseStore
    from aimon_mongo.redis._sync.records import RedisRecordDriver, RedisSessionRecordStore
    from aimon_mongo.redis._sync.segments import RedisSegmentDriver, RedisSessionLogSegmentStore
    from aimon_mongo.redis._sync.signals import RedisSessionSignalBus, RedisSignalDriver
    from aimon_mongo.redis._sync.tasks import RedisBackgroundTaskStore, RedisTaskDriver
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
            "AsyncRedisBackgroundTaskStore": "aimon_mongo.redis._async.tasks",
            "AsyncRedisIdempotencyDriver": "aimon_mongo.redis._async.idempotency",
            "AsyncRedisIdempotencyStore": "aimon_mongo.redis._async.idempotency",
            "AsyncRedisInboxDriver": "aimon_mongo.redis._async.inbox",
            "AsyncRedisLeaseDriver": "aimon_mongo.redis._async.leases",
            "AsyncRedisRecordDriver": "aimon_mongo.redis._async.records",
            "AsyncRedisSegmentDriver": "aimon_mongo.redis._async.segments",
            "AsyncRedisSessionBackends": "aimon_mongo.redis._async.backends",
            "AsyncRedisSessionInbox": "aimon_mongo.redis._async.inbox",
            "AsyncRedisSessionLeaseStore": "aimon_mongo.redis._async.leases",
            "AsyncRedisSessionLogSegmentStore": "aimon_mongo.redis._async.segments",
            "AsyncRedisSessionRecordStore": "aimon_mongo.redis._async.records",
            "AsyncRedisSessionSignalBus": "aimon_mongo.redis._async.signals",
            "AsyncRedisSignalDriver": "aimon_mongo.redis._async.signals",
            "AsyncRedisTaskDriver": "aimon_mongo.redis._async.tasks",
            "RedisBackgroundTaskStore": "aimon_mongo.redis._sync.tasks",
            "RedisIdempotencyDriver": "aimon_mongo.redis._sync.idempotency",
            "RedisIdempotencyStore": "aimon_mongo.redis._sync.idempotency",
            "RedisInboxDriver": "aimon_mongo.redis._sync.inbox",
            "RedisKeyPrefixes": "aimon_mongo.redis.keys",
            "RedisKeys": "aimon_mongo.redis.keys",
            "RedisLeaseDriver": "aimon_mongo.redis._sync.leases",
            "RedisRecordDriver": "aimon_mongo.redis._sync.records",
            "RedisSegmentDriver": "aimon_mongo.redis._sync.segments",
            "RedisSessionBackends": "aimon_mongo.redis._sync.backends",
            "RedisSessionInbox": "aimon_mongo.redis._sync.inbox",
            "RedisSessionLeaseStore": "aimon_mongo.redis._sync.leases",
            "RedisSessionLogSegmentStore": "aimon_mongo.redis._sync.segments",
            "RedisSessionRecordStore": "aimon_mongo.redis._sync.records",
            "RedisSessionSignalBus": "aimon_mongo.redis._sync.signals",
            "RedisSignalDriver": "aimon_mongo.redis._sync.signals",
            "RedisTaskDriver": "aimon_mongo.redis._sync.tasks",
        },
    )
