"""Idempotency entries on Redis: one JSON String per key (``<idem>:<key>``) expiring by ``PX``.

The value is the shared codec's JSON (keys always present, in the frozen order). ``touch``,
``release_holder``, ``acquire_holder``, ``discard_reservation`` and ``compare_and_reset`` run one Lua
script that matches the stored text by substring (``"status":"IN_FLIGHT"``, ``"holderId":"<holder>"``
or ``"holderId":null``) and splices the changed members in place, as the reference does; holder ids
containing ``"`` or ``\\`` are therefore refused. ``mark_done`` rewrites the whole value with a
compare-and-set (the service retries it if the entry changed meanwhile). Expiry is Redis's own; no sweeper
is needed. Redis cannot select stale entries: the driver scans them all and the service picks.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from aimon_mongo import names as n
from aimon_mongo._async.redis.connection import Arg, AsyncRedisIO
from aimon_mongo._async.services.idempotency import DEFAULT_DONE_TTL, AsyncIdempotency
from aimon_mongo.clock import Clock
from aimon_mongo.codec.idempotency import entry_from_json, entry_to_json, ttl_millis
from aimon_mongo.codec.instant import format_instant
from aimon_mongo.codec.json_text import compact_json
from aimon_mongo.exported import exported_from
from aimon_mongo.model.idempotency import IdempotencyEntry, IdempotencyStatus, TurnResult
from aimon_mongo.redis.keys import RedisKeys
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures

__all__ = ["DEFAULT_DONE_TTL", "HOLDER_ID_FORBIDDEN_CHARS", "AsyncRedisIdempotencyDriver", "AsyncRedisIdempotencyStore"]

SCAN_COUNT = 256
HOLDER_ID_FORBIDDEN_CHARS = '"\\'


def _prefix(name: str) -> str:
    return compact_json(name) + ":"


def _member(name: str, value: object) -> str:
    return _prefix(name) + compact_json(value)


_IN_FLIGHT = _member(n.IDEM_STATUS, IdempotencyStatus.IN_FLIGHT.value)


@exported_from("aimon_mongo.redis")
class AsyncRedisIdempotencyDriver:
    """The primitives over ``<idem>:<key>`` JSON values: one script or command each (see the module text)."""

    holder_id_forbidden_chars = HOLDER_ID_FORBIDDEN_CHARS

    def __init__(self, io: AsyncRedisIO, keys: RedisKeys, clock: Clock) -> None:
        self._io = io
        self._keys = keys
        self._clock = clock
        self.failures: Failures = io.guard

    def __repr__(self) -> str:
        return located(self, self._io.endpoint)

    def decode(self, raw: bytes) -> IdempotencyEntry:
        return entry_from_json(raw)[0]

    async def put(self, entry: IdempotencyEntry, ttl: timedelta) -> tuple[bool, bytes | None]:
        args: list[Arg] = [entry_to_json(entry, ttl), ttl_millis(ttl)]
        existing = await self._io.script("idem_put", [self._keys.idempotency(entry.key)], args)
        return existing is None, existing

    async def mark_done(self, key: str, result: TurnResult, ttl: timedelta) -> bool | None:
        redis_key = self._keys.idempotency(key)
        raw = await self._io.call("GET", redis_key)
        if raw is None:
            return False
        now = self._clock()
        update = {"status": IdempotencyStatus.DONE, "holder_id": None, "result": result, "last_touched_at": now}
        value = entry_to_json(self.decode(raw).model_copy(update=update), ttl)
        return int(await self._io.script("cas", [redis_key], [raw, value, ttl_millis(ttl)])) == 1 or None

    async def touch(self, key: str, holder_id: str) -> bool:
        subs = (_prefix(n.IDEM_LAST_TOUCHED_AT), self._now())
        return await self._rewrite(key, "set", _prefix(n.IDEM_TTL_MILLIS), holder_id, *subs)

    async def rehold(self, key: str, expected: str | None, holder_id: str | None, ttl: timedelta) -> bool:
        millis = ttl_millis(ttl)
        subs = (_prefix(n.IDEM_HOLDER_ID), compact_json(holder_id), _prefix(n.IDEM_LAST_TOUCHED_AT), self._now())
        return await self._rewrite(key, "set", millis, expected, *subs, _prefix(n.IDEM_TTL_MILLIS), str(millis))

    async def delete_held(self, key: str, expected: str | None) -> bool:
        return await self._rewrite(key, "del", "", expected)

    async def stale_candidates(self, cutoff: datetime, limit: int) -> list[tuple[str, bytes]]:
        found: list[tuple[str, bytes]] = []
        cursor: int = 0
        pattern = self._keys.idempotency_pattern()
        while True:
            cursor, batch = await self._io.scan(cursor, pattern, SCAN_COUNT)
            if batch:
                values = await self._io.get_many(batch)
                pairs = zip(batch, values, strict=True)
                found.extend((k.decode("utf-8", "replace"), v) for k, v in pairs if v is not None)
            if int(cursor) == 0:
                return found

    async def find(self, key: str) -> bytes | None:
        raw: bytes | None = await self._io.call("GET", self._keys.idempotency(key))
        return raw

    def _now(self) -> str:
        return compact_json(format_instant(self._clock()))

    async def _rewrite(self, key: str, mode: str, px: Arg, holder: str | None, *subs: str) -> bool:
        """``idem_rewrite`` of the entry when it is ``IN_FLIGHT`` held by ``holder``."""
        args: list[Arg] = [mode, px, 2, _IN_FLIGHT, _member(n.IDEM_HOLDER_ID, holder), *subs]
        return int(await self._io.script("idem_rewrite", [self._keys.idempotency(key)], args)) == 1


@exported_from("aimon_mongo.redis")
def AsyncRedisIdempotencyStore(
    io: AsyncRedisIO, keys: RedisKeys, clock: Clock, done_ttl: timedelta = DEFAULT_DONE_TTL
) -> AsyncIdempotency:
    """Client-key de-duplication and holder-loss detection (see the module text).

    A factory: the :class:`~aimon_mongo.services.AsyncIdempotency` service over :class:`AsyncRedisIdempotencyDriver`."""
    return AsyncIdempotency(AsyncRedisIdempotencyDriver(io, keys, clock), done_ttl)
