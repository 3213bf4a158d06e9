"""The one place the Redis stores talk to the server: raw replies, scripts by ``EVALSHA``, errors.

Every command is sent with redis-py's ``NEVER_DECODE`` option, so replies are bytes whatever the
client's ``decode_responses`` setting, and a stored value that is not UTF-8 is reported by the store
that reads it instead of failing the whole reply.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, cast

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.client import NEVER_DECODE
from redis.exceptions import NoScriptError

from aimon_mongo.errors import AimonStorageError, InvalidArgumentError
from aimon_mongo.redis.failures import endpoint_of, stale_fence, translated
from aimon_mongo.redis.lua_scripts import LuaScript, script

Arg = str | bytes | int | float
_NODE_SLOTS = 1024
"""A cluster SCAN cursor is ``node cursor * 1024 + node index`` (so at most 1,024 primaries)."""


class AsyncRedisIO:
    """Commands, pipelines and Lua scripts over one borrowed client (shared by every store of a bundle).

    Scripts are sent with ``SCRIPT LOAD`` the first time they are needed and run with ``EVALSHA``; a
    ``NOSCRIPT`` answer (server restarted or flushed its script cache) reloads and retries once. The client
    may be a ``RedisCluster``: commands are routed by their keys, :meth:`scan` walks every primary and
    :meth:`get_many` reads keys of any slots.
    """

    def __init__(self, client: Redis | RedisCluster) -> None:
        self.client = client
        self.cluster = isinstance(client, RedisCluster)
        self.endpoint = endpoint_of(client)
        self._loaded: set[str] = set()

    async def scan(self, cursor: int, match: str, count: int) -> tuple[int, list[bytes]]:
        """One ``SCAN`` page: ``(next cursor, keys)``, cursor 0 to start and 0 when done. On a cluster the
        cursor walks the primaries one after the other (ordered by address); a resharding between pages
        can make a walk miss or repeat keys that moved, as SCAN itself may repeat keys."""
        if not self.cluster:
            next_at, keys = await self.call("SCAN", cursor, "MATCH", match, "COUNT", count)
            return int(next_at), list(keys)
        cluster: Any = self.client
        primaries = await self._primaries()
        position, index = divmod(int(cursor), _NODE_SLOTS)
        if index >= len(primaries):
            raise InvalidArgumentError(f"cursor {cursor!r} names primary {index}; the cluster has {len(primaries)}")
        next_at, keys = await cluster.execute_command(
            "SCAN", position, "MATCH", match, "COUNT", count, target_nodes=primaries[index], **{NEVER_DECODE: True}
        )
        if isinstance(next_at, dict):  # the sync cluster client answers {node name: cursor}
            (next_at,) = next_at.values()
        if int(next_at) != 0:
            return int(next_at) * _NODE_SLOTS + index, list(keys)
        return (0 if index + 1 == len(primaries) else index + 1), list(keys)

    async def ready(self) -> None:
        """Make a cluster client read its slot map now (the asyncio one reads it on its first command only)."""
        if self.cluster and not cast(Any, self.client).get_primaries():  # sync: drop
            await cast(Any, self.client).initialize()  # sync: drop

    async def _primaries(self) -> list[Any]:
        """The cluster's primaries, ordered by address."""
        await self.ready()
        cluster: Any = self.client
        return sorted(cluster.get_primaries(), key=lambda node: (node.host, node.port))

    async def get_many(self, keys: Sequence[str | bytes]) -> list[bytes | None]:
        """The values of ``keys`` in one round trip per node (``MGET``; a pipeline of ``GET`` s on a cluster,
        where the keys may live in different slots)."""
        if not self.cluster:
            return list(await self.call("MGET", *keys))
        pipe = self.pipeline()
        for key in keys:
            self.queue(pipe, "GET", key)
        return list(await pipe.execute())

    def guard(self, family: type[AimonStorageError], action: str) -> AbstractContextManager[None]:
        """Context translating failures of the enclosed calls into ``family`` / ``BackendUnavailable``."""
        return translated(family, action, self.endpoint)

    async def call(self, *args: Arg) -> Any:
        """One command; the reply undecoded (bytes)."""
        execute: Any = self.client.execute_command
        return await execute(*args, **{NEVER_DECODE: True})

    def pipeline(self) -> Any:
        """A non-transactional pipeline (one round trip); queue commands with :meth:`queue`."""
        return self.client.pipeline(transaction=False)

    @staticmethod
    def queue(pipe: Any, *args: Arg) -> None:
        pipe.execute_command(*args, **{NEVER_DECODE: True})

    async def script(self, name: str, keys: Sequence[str], args: Sequence[Arg] = ()) -> Any:
        """Run ``lua/<name>.lua`` over ``keys`` and ``args``; the reply undecoded."""
        lua = script(name)
        if lua.name not in self._loaded:
            await self._load(lua)
        try:
            return await self.call("EVALSHA", lua.sha, len(keys), *keys, *args)
        except NoScriptError:
            await self._load(lua)
            return await self.call("EVALSHA", lua.sha, len(keys), *keys, *args)

    async def fenced_script(self, name: str, keys: Sequence[str], args: Sequence[Arg]) -> Any:
        """Run a fenced script (``keys[0]`` the write fence, ``args[0]`` the token); when the token is lower
        than the session's highest, nothing was written and the reply is :class:`Stale`."""
        try:
            return await self.script(name, keys, args)
        except Exception as exc:
            stale = stale_fence(exc)
            if stale is not None:
                return stale
            raise

    async def _load(self, lua: LuaScript) -> None:
        if not self.cluster:
            await self.call("SCRIPT", "LOAD", lua.text)
        else:  # every primary: EVALSHA runs on the one owning the keys' slot
            cluster: Any = self.client
            for node in await self._primaries():
                await cluster.execute_command("SCRIPT", "LOAD", lua.text, target_nodes=node)
        self._loaded.add(lua.name)
