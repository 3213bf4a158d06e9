"""Session records on Redis (async source; the sync twin is generated): one hash per session
(``<records>:<id>``, layout in :mod:`..layout`).

Every write is one fenced Lua script: it compares the writer's token with the session's write fence
(``<fences>:{s:<id>}``, the highest token accepted so far), refuses a lower one (nothing written) and
writes in the same atomic step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aimon_mongo import names as n
from aimon_mongo._async.redis.connection import Arg, AsyncRedisIO
from aimon_mongo._async.services.records import AsyncRecordStore
from aimon_mongo.clock import Clock
from aimon_mongo.codec.instant import format_instant
from aimon_mongo.codec.json_text import compact_json
from aimon_mongo.exported import exported_from
from aimon_mongo.model.record import SessionRecord
from aimon_mongo.redis.keys import RedisKeys
from aimon_mongo.redis.layout import record_from_hash
from aimon_mongo.redis.replies import pairs, text
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.fencing import Stale, refusal
from aimon_mongo.stored.session_record import SessionTotalsJson

SCAN_COUNT = 256

HashReply = list[bytes] | dict[bytes, bytes]
"""A record hash as ``HGETALL`` (a dict) or a script (a flat list) answers it."""


@exported_from("aimon_mongo.redis")
class AsyncRedisRecordDriver:
    """The record primitives: fenced scripts over the session's fence and record hash, plain reads."""

    def __init__(self, io: AsyncRedisIO, keys: RedisKeys, clock: Clock) -> None:
        self._io = io
        self._keys = keys
        self._clock = clock
        self.failures: Failures = io.guard

    def __repr__(self) -> str:
        return located(self, self._io.endpoint)

    async def _fenced(self, name: str, sid: str, token: int, *args: Arg) -> Any:
        keys = [self._keys.write_fence(sid), self._keys.record(sid)]
        return await self._io.fenced_script(name, keys, [token, *args])

    async def _set(self, sid: str, token: int, mode: str, values: dict[str, str], *removed: str) -> Stale | None:
        """``record_set``: ``mode`` "always" (upsert) or "existing"; ``removed`` fields are deleted."""
        flat = [item for pair in values.items() for item in pair]
        return refusal(await self._fenced("record_set", sid, token, mode, len(values), *flat, *removed))

    def _now(self) -> str:
        return format_instant(self._clock())

    async def merge_transcript(self, session_id: str, transcript: str, token: int) -> Stale | None:
        values = {n.F_SESSION_ID: session_id, n.F_TRANSCRIPT: transcript, n.F_UPDATED_AT: self._now()}
        return await self._set(session_id, token, "always", values)

    async def provision(self, session_id: str, agent_ref: str | None, token: int) -> HashReply | Stale:
        args = (n.F_SESSION_ID, session_id, n.F_UPDATED_AT, self._now(), n.F_AGENT_REF, agent_ref or "")
        reply: HashReply | Stale = await self._fenced("record_provision", session_id, token, *args)
        return reply

    async def set_totals(
        self, session_id: str, totals: SessionTotalsJson, override: dict[str, Any] | None, token: int
    ) -> Stale | None:
        values = {n.F_SESSION_TOTALS: compact_json(totals), n.F_UPDATED_AT: self._now()}
        if override is None:
            return await self._set(session_id, token, "existing", values, n.F_BUDGET_OVERRIDE)
        return await self._set(session_id, token, "existing", {**values, n.F_BUDGET_OVERRIDE: compact_json(override)})

    async def increment_failures(self, session_id: str, token: int) -> int | Stale:
        args = (n.F_COMPACTION_FAILURE_COUNT, n.F_UPDATED_AT, self._now())
        reply = await self._fenced("record_increment", session_id, token, *args)
        return reply if isinstance(reply, Stale) else int(reply)

    async def reset_failures(self, session_id: str, token: int) -> Stale | None:
        values = {n.F_COMPACTION_FAILURE_COUNT: "0", n.F_UPDATED_AT: self._now()}
        return await self._set(session_id, token, "existing", values)

    async def delete(self, session_id: str, token: int) -> Stale | None:
        return refusal(await self._fenced("fenced_delete", session_id, token))

    async def load(self, session_id: str) -> HashReply | None:
        reply: HashReply | None = await self._io.call("HGETALL", self._keys.record(session_id))
        return reply or None

    async def load_many(self, session_ids: Sequence[str]) -> list[tuple[str, HashReply]]:
        pipe = self._io.pipeline()
        for session_id in session_ids:
            self._io.queue(pipe, "HGETALL", self._keys.record(session_id))
        replies = await pipe.execute()
        return [(sid, reply) for sid, reply in zip(session_ids, replies, strict=True) if reply]

    def decode(self, raw: HashReply, session_id: str) -> SessionRecord:
        return record_from_hash(session_id, pairs(raw))

    async def exists(self, session_id: str) -> bool:
        return int(await self._io.call("EXISTS", self._keys.record(session_id))) == 1

    async def list_session_ids(self) -> list[str]:
        """``SCAN`` over the record keys (a key may come back twice; each id is listed once)."""
        found: set[str] = set()
        cursor = 0
        pattern = self._keys.record_pattern()
        while True:
            cursor, batch = await self._io.scan(cursor, pattern, SCAN_COUNT)
            for raw in batch:
                sid = self._keys.session_of_record(text(raw, "record key"))
                if sid is not None:
                    found.add(sid)
            if int(cursor) == 0:
                return sorted(found)


@exported_from("aimon_mongo.redis")
def AsyncRedisSessionRecordStore(io: AsyncRedisIO, keys: RedisKeys, clock: Clock) -> AsyncRecordStore[HashReply]:
    """Partial, atomic, fenced writes of session records (see the module text).

    A factory: the :class:`~aimon_mongo.services.AsyncRecordStore` service over :class:`AsyncRedisRecordDriver`."""
    return AsyncRecordStore(AsyncRedisRecordDriver(io, keys, clock))
