"""Idempotency entries on Redis: one JSON String per key (``<idem>:<key>``) expiring by ``PX``.

The value is the shared codec's JSON (keys always present, in the frozen order). ``touch``,
``release_holder``, ``acquire_holder``, ``discard_reservation`` and ``compare_and_reset`` run one Lua
script that matches the stored text by substring (``"status":"IN_FLIGHT"``, ``"holderId":"<holder>"``
or ``"holderId":null``) and splices the changed members in place, as the reference does; holder ids
containing ``"`` or ``\\`` are therefore refused. ``mark_done`` rewrites the whole value with a
compare-and-set (retried if the entry changed meanwhile). Expiry is Redis's own; no sweeper is needed.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from aimon_mongo import names as n
from aimon_mongo.clock import Clock
from aimon_mongo.codec._stored import compact_json
from aimon_mongo.codec.idempotency import entry_from_json, entry_to_json, ttl_millis
from aimon_mongo.codec.instant import format_instant
from aimon_mongo.errors import CodecError, IdempotencyStoreError
from aimon_mongo.model.idempotency import (
    IdempotencyEntry,
    IdempotencyStatus,
    PutOutcome,
    PutResult,
    TurnResult,
)
from aimon_mongo.redis._async.connection import Arg, AsyncRedisIO
from aimon_mongo.redis.keys import RedisKeys, require_holder
from aimon_mongo.validate import require_aware, require_id, require_instance, require_limit, require_positive

log = logging.getLogger(__name__)

DEFAULT_DONE_TTL = timedelta(hours=24)
SCAN_COUNT = 256
CAS_ATTEMPTS = 16


def _prefix(name: str) -> str:
    return compact_json(name) + ":"


def _member(name: str, value: object) -> str:
    return _prefix(name) + compact_json(value)


_IN_FLIGHT = _member(n.IDEM_STATUS, IdempotencyStatus.IN_FLIGHT.value)
_NO_HOLDER = _member(n.IDEM_HOLDER_ID, None)


HOLDER_ID_FORBIDDEN_CHARS = '"\\'


def _holder(value: object, argument: str) -> str:
    return require_holder(value, argument, HOLDER_ID_FORBIDDEN_CHARS, "its Lua scripts match holder ids as text")


class AsyncRedisIdempotencyStore:
    """Client-key de-duplication and holder-loss detection (see the module text)."""

    holder_id_forbidden_chars = HOLDER_ID_FORBIDDEN_CHARS

    def __init__(self, io: AsyncRedisIO, keys: RedisKeys, clock: Clock, done_ttl: timedelta = DEFAULT_DONE_TTL):
        self._io = io
        self._keys = keys
        self._clock = clock
        self._done_ttl = require_positive(done_ttl, "done_ttl")

    def _now(self) -> str:
        return compact_json(format_instant(self._clock()))

    async def _rewrite(self, key: str, action: str, mode: str, px: Arg, needles: list[str], *subs: str) -> bool:
        args: list[Arg] = [mode, px, len(needles), *needles, *subs]
        with self._io.guard(IdempotencyStoreError, f"idempotency {action} of key {key!r}"):
            return int(await self._io.script("idem_rewrite", [self._keys.idempotency(key)], args)) == 1

    async def put_if_absent(self, entry: IdempotencyEntry, ttl: timedelta) -> PutResult:
        require_instance(entry, IdempotencyEntry, "entry")
        require_positive(ttl, "ttl")
        if entry.holder_id is not None:
            _holder(entry.holder_id, "entry.holder_id")
        args: list[Arg] = [entry_to_json(entry, ttl), ttl_millis(ttl)]
        with self._io.guard(IdempotencyStoreError, f"idempotency put of key {entry.key!r}"):
            existing = await self._io.script("idem_put", [self._keys.idempotency(entry.key)], args)
        if existing is None:
            return PutResult(outcome=PutOutcome.INSERTED)
        return PutResult(outcome=PutOutcome.EXISTING, existing=entry_from_json(existing)[0])

    async def mark_done(self, key: str, result: TurnResult) -> None:
        require_id(key, "key")
        require_instance(result, TurnResult, "result")
        redis_key = self._keys.idempotency(key)
        with self._io.guard(IdempotencyStoreError, f"idempotency mark_done of key {key!r}"):
            for _ in range(CAS_ATTEMPTS):
                raw = await self._io.call("GET", redis_key)
                if raw is None:
                    log.warning("mark_done found no idempotency entry for key %s (expired or reset)", key)
                    return
                entry, _ttl = entry_from_json(raw)
                done = entry.model_copy(
                    update={
                        "status": IdempotencyStatus.DONE,
                        "holder_id": None,
                        "result": result,
                        "last_touched_at": self._clock(),
                    }
                )
                value = entry_to_json(IdempotencyEntry.model_validate(done.model_dump()), self._done_ttl)
                if int(await self._io.script("cas", [redis_key], [raw, value, ttl_millis(self._done_ttl)])) == 1:
                    return
        raise IdempotencyStoreError(f"idempotency mark_done of key {key!r} kept racing with other writers")

    async def touch(self, key: str, holder_id: str) -> bool:
        require_id(key, "key")
        holder = _holder(holder_id, "holder_id")
        needles = [_IN_FLIGHT, _member(n.IDEM_HOLDER_ID, holder)]
        subs = (_prefix(n.IDEM_LAST_TOUCHED_AT), self._now())
        return await self._rewrite(key, "touch", "set", _prefix(n.IDEM_TTL_MILLIS), needles, *subs)

    async def release_holder(self, key: str, expected_holder: str, ttl: timedelta) -> bool:
        require_id(key, "key")
        holder = _holder(expected_holder, "expected_holder")
        millis = ttl_millis(require_positive(ttl, "ttl"))
        needles = [_IN_FLIGHT, _member(n.IDEM_HOLDER_ID, holder)]
        subs = self._claim_subs(None, millis)
        return await self._rewrite(key, "release_holder", "set", millis, needles, *subs)

    async def acquire_holder(self, key: str, holder_id: str, ttl: timedelta) -> bool:
        require_id(key, "key")
        holder = _holder(holder_id, "holder_id")
        millis = ttl_millis(require_positive(ttl, "ttl"))
        subs = self._claim_subs(holder, millis)
        return await self._rewrite(key, "acquire_holder", "set", millis, [_IN_FLIGHT, _NO_HOLDER], *subs)

    def _claim_subs(self, holder: str | None, millis: int) -> tuple[str, ...]:
        return (
            _prefix(n.IDEM_HOLDER_ID),
            compact_json(holder),
            _prefix(n.IDEM_LAST_TOUCHED_AT),
            self._now(),
            _prefix(n.IDEM_TTL_MILLIS),
            str(millis),
        )

    async def discard_reservation(self, key: str) -> bool:
        require_id(key, "key")
        return await self._rewrite(key, "discard_reservation", "del", "", [_IN_FLIGHT, _NO_HOLDER])

    async def compare_and_reset(self, key: str, expected_holder: str) -> bool:
        require_id(key, "key")
        holder = _holder(expected_holder, "expected_holder")
        needles = [_IN_FLIGHT, _member(n.IDEM_HOLDER_ID, holder)]
        return await self._rewrite(key, "compare_and_reset", "del", "", needles)

    async def find_stale_in_flight(self, cutoff: datetime, limit: int = 256) -> list[IdempotencyEntry]:
        cutoff = require_aware(cutoff, "cutoff")
        require_limit(limit)
        stale: list[IdempotencyEntry] = []
        cursor: int = 0
        pattern = self._keys.idempotency_pattern()
        with self._io.guard(IdempotencyStoreError, "idempotency stale scan"):
            while True:
                cursor, batch = await self._io.scan(cursor, pattern, SCAN_COUNT)
                if batch:
                    for raw_key, raw in zip(batch, await self._io.get_many(batch), strict=True):
                        entry = _readable(raw_key, raw)
                        if (
                            entry is not None
                            and entry.status is IdempotencyStatus.IN_FLIGHT
                            and entry.holder_id is not None
                            and entry.last_touched_at < cutoff
                        ):
                            stale.append(entry)
                if int(cursor) == 0:
                    break
        stale.sort(key=lambda e: e.last_touched_at)
        return stale[:limit]

    async def find(self, key: str) -> IdempotencyEntry | None:
        redis_key = self._keys.idempotency(key)
        with self._io.guard(IdempotencyStoreError, f"idempotency find of key {key!r}"):
            raw = await self._io.call("GET", redis_key)
        return None if raw is None else entry_from_json(raw)[0]


def _readable(raw_key: bytes, raw: bytes | None) -> IdempotencyEntry | None:
    if raw is None:
        return None
    try:
        return entry_from_json(raw)[0]
    except CodecError as exc:
        shown = raw_key.decode("utf-8", "replace") if isinstance(raw_key, bytes) else raw_key
        log.warning("skipping unreadable idempotency entry %s: %s", shown, exc)
        return None
