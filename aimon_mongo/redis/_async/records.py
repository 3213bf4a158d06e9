"""Session records on Redis: one hash per session (``<records>:<id>``, layout in :mod:`..layout`).

Every write is fenced: a Lua script first compares the writer's token with the session's write fence
(``<fences>:{s:<id>}``, the highest token accepted so far), refuses a lower one with
:class:`~aimon_mongo.errors.StaleFencingTokenError` and writes in the same atomic step.
"""

from __future__ import annotations

from pydantic import JsonValue

from aimon_mongo import names as n
from aimon_mongo.clock import Clock
from aimon_mongo.codec._stored import compact_json
from aimon_mongo.codec.instant import format_instant
from aimon_mongo.codec.totals import totals_to_json
from aimon_mongo.errors import InvalidArgumentError, SessionRecordStoreError
from aimon_mongo.model.record import SessionRecord, SessionTotals
from aimon_mongo.redis._async.connection import Arg, AsyncRedisIO
from aimon_mongo.redis.keys import RedisKeys
from aimon_mongo.redis.layout import record_from_hash
from aimon_mongo.redis.replies import pairs, text
from aimon_mongo.validate import optional_budget_override, require_id, require_instance, require_token

SCAN_COUNT = 256


class AsyncRedisSessionRecordStore:
    """Partial, atomic, fenced writes of session records (see the module text)."""

    def __init__(self, io: AsyncRedisIO, keys: RedisKeys, clock: Clock) -> None:
        self._io = io
        self._keys = keys
        self._clock = clock

    def _now(self) -> str:
        return format_instant(self._clock())

    async def _set(self, sid: str, token: int, mode: str, values: dict[str, str], removed: tuple[str, ...] = ()) -> int:
        args: list[Arg] = [token, mode, len(values)]
        for field, value in values.items():
            args += [field, value]
        args += list(removed)
        keys = [self._keys.write_fence(sid), self._keys.record(sid)]
        with self._io.guard(SessionRecordStoreError, f"record write of session {sid!r}"):
            return int(await self._io.fenced_script("record_set", sid, token, keys, args))

    async def merge_transcript(self, session_id: str, transcript: str, fencing_token: int) -> None:
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        if not isinstance(transcript, str):
            raise InvalidArgumentError(f"transcript must be a str, got {type(transcript).__name__}")
        values = {n.F_SESSION_ID: sid, n.F_TRANSCRIPT: transcript, n.F_UPDATED_AT: self._now()}
        await self._set(sid, token, "always", values)

    async def provision(self, session_id: str, agent_ref: str | None, fencing_token: int) -> SessionRecord:
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        ref = "" if agent_ref is None else require_id(agent_ref, "agent_ref")
        keys = [self._keys.write_fence(sid), self._keys.record(sid)]
        args: list[Arg] = [token, n.F_SESSION_ID, sid, n.F_UPDATED_AT, self._now(), n.F_AGENT_REF, ref]
        with self._io.guard(SessionRecordStoreError, f"record provision of session {sid!r}"):
            reply = await self._io.fenced_script("record_provision", sid, token, keys, args)
            return record_from_hash(sid, pairs(reply))

    async def set_totals_and_budget_override(
        self,
        session_id: str,
        totals: SessionTotals,
        budget_override: dict[str, JsonValue] | None,
        fencing_token: int,
    ) -> None:
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        require_instance(totals, SessionTotals, "totals")
        budget_override = optional_budget_override(budget_override)
        values = {n.F_SESSION_TOTALS: totals_to_json(totals), n.F_UPDATED_AT: self._now()}
        removed: tuple[str, ...] = ()
        if budget_override is None:
            removed = (n.F_BUDGET_OVERRIDE,)
        else:
            values[n.F_BUDGET_OVERRIDE] = compact_json(budget_override)
        await self._set(sid, token, "existing", values, removed)

    async def increment_compaction_failure_count(self, session_id: str, fencing_token: int) -> int:
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        keys = [self._keys.write_fence(sid), self._keys.record(sid)]
        args: list[Arg] = [token, n.F_COMPACTION_FAILURE_COUNT, n.F_UPDATED_AT, self._now()]
        with self._io.guard(SessionRecordStoreError, f"record write of session {sid!r}"):
            return int(await self._io.fenced_script("record_increment", sid, token, keys, args))

    async def reset_compaction_failure_count(self, session_id: str, fencing_token: int) -> None:
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        await self._set(sid, token, "existing", {n.F_COMPACTION_FAILURE_COUNT: "0", n.F_UPDATED_AT: self._now()})

    async def load(self, session_id: str) -> SessionRecord | None:
        sid = require_id(session_id, "session_id")
        with self._io.guard(SessionRecordStoreError, f"record load of session {sid!r}"):
            reply = await self._io.call("HGETALL", self._keys.record(sid))
        if not reply:
            return None
        return record_from_hash(sid, pairs(reply))

    async def exists(self, session_id: str) -> bool:
        sid = require_id(session_id, "session_id")
        with self._io.guard(SessionRecordStoreError, f"record lookup of session {sid!r}"):
            return int(await self._io.call("EXISTS", self._keys.record(sid))) == 1

    async def list_session_ids(self) -> list[str]:
        found: set[str] = set()
        cursor = 0
        pattern = self._keys.record_pattern()
        with self._io.guard(SessionRecordStoreError, "record scan"):
            while True:
                cursor, batch = await self._io.scan(cursor, pattern, SCAN_COUNT)
                for raw in batch:
                    sid = self._keys.session_of_record(text(raw, "record key"))
                    if sid is not None:
                        found.add(sid)
                if int(cursor) == 0:
                    break
        return sorted(found)

    async def delete(self, session_id: str, fencing_token: int) -> None:
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        keys = [self._keys.write_fence(sid), self._keys.record(sid)]
        with self._io.guard(SessionRecordStoreError, f"record delete of session {sid!r}"):
            await self._io.fenced_script("fenced_delete", sid, token, keys, [token])
