"""The one place the Redis stores talk to the server: raw replies, scripts by ``EVALSHA``, errors.

Every command is sent with redis-py's ``NEVER_DECODE`` option, so replies are bytes whatever the
client's ``decode_responses`` setting, and a stored value that is not UTF-8 is reported by the store
that reads it instead of failing the whole reply.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from redis.asyncio import Redis
from redis.client import NEVER_DECODE
from redis.exceptions import NoScriptError

from aimon_mongo.errors import AimonStorageError
from aimon_mongo.redis.failures import endpoint_of, stale_fence, translated
from aimon_mongo.redis.lua_scripts import LuaScript, script

Arg = str | bytes | int | float


class AsyncRedisIO:
    """Commands, pipelines and Lua scripts over one borrowed client (shared by every store of a bundle).

    Scripts are sent with ``SCRIPT LOAD`` the first time they are needed and run with ``EVALSHA``; a
    ``NOSCRIPT`` answer (server restarted or flushed its script cache) reloads and retries once.
    """

    def __init__(self, client: Redis) -> None:
        self.client = client
        self.endpoint = endpoint_of(client)
        self._loaded: set[str] = set()

    def guard(self, family: type[AimonStorageError], action: str) -> AbstractContextManager[None]:
        """Context translating failures of the enclosed calls into ``family`` / ``BackendUnavailable``."""
        return translated(family, self.endpoint, action)

    async def call(self, *args: Arg) -> Any:
        """One command; the reply undecoded (bytes)."""
        return await self.client.execute_command(*args, **{NEVER_DECODE: True})  # type: ignore[no-untyped-call]

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

    async def fenced_script(
        self, name: str, session_id: str, token: int, keys: Sequence[str], args: Sequence[Arg] = ()
    ) -> Any:
        """Run a fenced script (``keys[0]`` the write fence, ``args[0]`` the token); a lower token than the
        session's highest raises :class:`~aimon_mongo.errors.StaleFencingTokenError`."""
        try:
            return await self.script(name, keys, args)
        except Exception as exc:
            stale = stale_fence(exc, session_id, token)
            if stale is not None:
                raise stale from None
            raise

    async def _load(self, lua: LuaScript) -> None:
        await self.call("SCRIPT", "LOAD", lua.text)
        self._loaded.add(lua.name)
