"""Redis session backend: the seven stores on Redis streams, strings, hashes and pub/sub.

``AsyncRedisSessionBackends`` (on ``redis.asyncio``) is the source; ``RedisSessionBackends`` is its
generated sync twin. Key layout: :mod:`aimon_mongo.redis.keys`; Lua scripts: ``aimon_mongo/redis/lua``.
Each store alone (``AsyncRedisSessionLeaseStore(io, keys)`` …) is a factory returning the service over this
backend's driver; ``*SessionSignalBus`` is a class with the ``sharded`` extra; the drivers
(``AsyncRedisLeaseDriver`` …) are exported too (see :mod:`aimon_mongo.services`).
"""

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
