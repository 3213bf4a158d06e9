"""Redis session backend: the seven stores on Redis streams, strings, hashes and pub/sub.

``AsyncRedisSessionBackends`` (on ``redis.asyncio``) is the source; ``RedisSessionBackends`` is its
generated sync twin. Key layout: :mod:`aimon_mongo.redis.keys`; Lua scripts: ``aimon_mongo/redis/lua``.
Each store alone (``AsyncRedisSessionLeaseStore(io, keys)`` …) is a factory returning the service over this
backend's driver; ``*SessionSignalBus`` is a class with the ``sharded`` extra (see :mod:`aimon_mongo.services`).
"""

from aimon_mongo.redis._async.backends import AsyncRedisSessionBackends
from aimon_mongo.redis._async.idempotency import AsyncRedisIdempotencyStore
from aimon_mongo.redis._async.inbox import AsyncRedisSessionInbox
from aimon_mongo.redis._async.leases import AsyncRedisSessionLeaseStore
from aimon_mongo.redis._async.records import AsyncRedisSessionRecordStore
from aimon_mongo.redis._async.segments import AsyncRedisSessionLogSegmentStore
from aimon_mongo.redis._async.signals import AsyncRedisSessionSignalBus
from aimon_mongo.redis._async.tasks import AsyncRedisBackgroundTaskStore
from aimon_mongo.redis._sync.backends import RedisSessionBackends
from aimon_mongo.redis._sync.idempotency import RedisIdempotencyStore
from aimon_mongo.redis._sync.inbox import RedisSessionInbox
from aimon_mongo.redis._sync.leases import RedisSessionLeaseStore
from aimon_mongo.redis._sync.records import RedisSessionRecordStore
from aimon_mongo.redis._sync.segments import RedisSessionLogSegmentStore
from aimon_mongo.redis._sync.signals import RedisSessionSignalBus
from aimon_mongo.redis._sync.tasks import RedisBackgroundTaskStore
from aimon_mongo.redis.keys import RedisKeyPrefixes, RedisKeys

__all__ = [
    "AsyncRedisBackgroundTaskStore",
    "AsyncRedisIdempotencyStore",
    "AsyncRedisSessionBackends",
    "AsyncRedisSessionInbox",
    "AsyncRedisSessionLeaseStore",
    "AsyncRedisSessionLogSegmentStore",
    "AsyncRedisSessionRecordStore",
    "AsyncRedisSessionSignalBus",
    "RedisBackgroundTaskStore",
    "RedisIdempotencyStore",
    "RedisKeyPrefixes",
    "RedisKeys",
    "RedisSessionBackends",
    "RedisSessionInbox",
    "RedisSessionLeaseStore",
    "RedisSessionLogSegmentStore",
    "RedisSessionRecordStore",
    "RedisSessionSignalBus",
]
