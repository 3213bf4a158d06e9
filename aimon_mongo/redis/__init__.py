"""Redis session backend: the seven stores on Redis streams, strings, hashes and pub/sub.

``AsyncRedisSessionBackends`` (on ``redis.asyncio``) is the source; ``RedisSessionBackends`` is its
generated sync twin. Key layout: :mod:`aimon_mongo.redis.keys`; Lua scripts: ``aimon_mongo/redis/lua``.
"""

from typing import TYPE_CHECKING

from aimon_mongo._extras import require_extra
from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo.redis._async.backends import AsyncRedisSessionBackends
    from aimon_mongo.redis._sync.backends import RedisSessionBackends
    from aimon_mongo.redis.keys import RedisKeyPrefixes, RedisKeys

require_extra("aimon_mongo.redis", "redis", "redis")

__all__ = ["AsyncRedisSessionBackends", "RedisKeyPrefixes", "RedisKeys", "RedisSessionBackends"]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "AsyncRedisSessionBackends": "aimon_mongo.redis._async.backends",
            "RedisKeyPrefixes": "aimon_mongo.redis.keys",
            "RedisKeys": "aimon_mongo.redis.keys",
            "RedisSessionBackends": "aimon_mongo.redis._sync.backends",
        },
    )
