"""Inbox driver on Redis streams (reference §4.2, plus quarantine and peek).

One stream per session and priority, ``<inbox>:<id>:NOW|NEXT|LATER``; each entry has one field ``p``
holding the envelope JSON of the shared codec. ``take`` runs one Lua script that, tier by tier in
priority order, reads the oldest entries and deletes them in the same atomic step: concurrent collectors
never share an entry. One call takes at most ``batch_limit`` entries (1,000 by default, counted over all
tiers, so also at most 1,000 per tier); larger backlogs drain over later calls. Order: priority, then
stream id (the Redis server's clock).

Entries are decoded by the service after the script removed them (at-most-once, as in every backend). The
raw form of one that cannot be decoded is appended to the session's quarantine stream
``<inbox>:<id>:quarantine`` (fields ``p`` = the raw envelope, ``entryId``, ``error``) right after. A
process that dies between the script and that append loses the unreadable entries of that one call,
exactly as it loses the readable ones (see ``docs/guarantees.md``). Quarantine ids are
``<session id>/<stream id>``.

Acknowledged delivery keeps the claim state beside the streams, in the session's hash
``<inbox>:<id>:claims`` (field ``<tier>:<stream id>``, value ``<token>:<attempts>``; same hash slot as the
streams in the cluster layout): ``claim``, ``acknowledge`` and ``move_to_quarantine`` are one Lua script
each (``inbox_claim``, ``inbox_acknowledge``, ``inbox_quarantine_move``); a stream entry is never changed,
so a collect (ours or a reference build's) still reads and removes claimed entries. The fields of entries
a collect removed stay until the session's streams are all empty; the next claim, acknowledge or
quarantine move then deletes the hash (``purge`` deletes it at once). ``sessions_with_entries`` walks the
tier-stream keys with ``SCAN`` (a periodic listing, never on a turn's path).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from aimon_mongo import names as n
from aimon_mongo._async.redis.connection import Arg, AsyncRedisIO
from aimon_mongo._async.services.inbox import HANDED_OUT_PREFIX, HANDED_OUT_SUFFIX, AsyncInbox, Claimed, Triage
from aimon_mongo.codec.inbound import to_json_envelope
from aimon_mongo.codec.inbox_entry import decode_json_entry, replayed_envelope, unreadable_entry
from aimon_mongo.codec.instant import from_epoch_millis
from aimon_mongo.codec.json_text import compact_json
from aimon_mongo.errors import CodecError
from aimon_mongo.exported import exported_from
from aimon_mongo.model.batch import UnreadableEntry
from aimon_mongo.model.inbound import InboundMessage
from aimon_mongo.model.priority import Priority
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.redis.keys import RedisKeys
from aimon_mongo.redis.replies import text
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.validate import require_limit

DEFAULT_COLLECT_LIMIT = 1000
"""Most entries one ``collect`` returns (over all priority tiers)."""
SCAN_COUNT = 256
_STREAM_ID = re.compile(r"\A(\d+)-(\d+)\Z")
_QUARANTINE_SEPARATOR = "/"
_Raw = tuple[Any, Any]
"""A stream entry as read: its id and its fields (a flat list from Lua, a dict from redis-py)."""


def _lenient_fields(raw_fields: Any) -> dict[str, bytes]:
    """A stream entry's fields (a flat list from Lua, a dict from redis-py), names decoded leniently."""
    items = raw_fields.items() if isinstance(raw_fields, dict) else zip(raw_fields[::2], raw_fields[1::2], strict=False)
    return {(name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name)): value for name, value in items}


def _raw_of(fields: dict[str, bytes]) -> bytes | str:
    """The raw envelope of a stream entry: its ``p`` value, else (a foreign entry) all fields as JSON."""
    raw = fields.get(n.REDIS_STREAM_FIELD)
    if raw is not None:
        return raw
    return compact_json({k: v.decode("utf-8", "replace") for k, v in fields.items()})


def _shown(raw: bytes | str) -> Any:
    """Raw bytes as text when they are UTF-8 (what an operator reads), else as bytes."""
    if isinstance(raw, str):
        return raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


@exported_from("aimon_mongo.redis")
class AsyncRedisInboxDriver:
    """Stream commands and Lua scripts, one round trip per primitive (the quarantine listing of every
    session: a ``SCAN`` walk, then one ``XRANGE`` per session)."""

    quarantines_in_take = False
    takes_in_order = True
    encode = staticmethod(to_json_envelope)
    decode_replay = staticmethod(replayed_envelope)

    def __init__(self, io: AsyncRedisIO, keys: RedisKeys, collect_limit: int = DEFAULT_COLLECT_LIMIT) -> None:
        self._io = io
        self._keys = keys
        self._limit = require_limit(collect_limit, "collect_limit")
        self.batch_limit: int | None = self._limit
        self.failures: Failures = io.guard

    def __repr__(self) -> str:
        return located(self, self._io.endpoint)

    def decode(self, raw: _Raw, session_id: str) -> InboundMessage | UnreadableEntry:
        raw_id, raw_fields = raw
        entry_id = raw_id.decode("utf-8", "replace") if isinstance(raw_id, bytes) else str(raw_id)
        fields = _lenient_fields(raw_fields)
        if n.REDIS_STREAM_FIELD not in fields:
            missing = CodecError(f"stream entry has no field '{n.REDIS_STREAM_FIELD}'")
            return unreadable_entry(entry_id, _raw_of(fields), missing, session_id)
        return decode_json_entry(entry_id, fields[n.REDIS_STREAM_FIELD], session_id)

    async def append(self, entries: Sequence[tuple[InboundMessage, str]]) -> list[str]:
        """One ``XADD`` per entry to its tier stream: a plain call for one entry (a pipeline costs the
        client more than the call itself), one pipeline for several."""
        if len(entries) == 1:
            message, envelope = entries[0]
            stream = self._keys.inbox_stream(message.session_id, message.priority)
            return [text(await self._io.call("XADD", stream, "*", n.REDIS_STREAM_FIELD, envelope), "stream entry id")]
        pipe = self._io.pipeline()
        for message, envelope in entries:
            stream = self._keys.inbox_stream(message.session_id, message.priority)
            self._io.queue(pipe, "XADD", stream, "*", n.REDIS_STREAM_FIELD, envelope)
        return [text(entry_id, "stream entry id") for entry_id in await pipe.execute()]

    async def take(self, session_id: str, ceiling: Priority, triage: Triage[_Raw]) -> list[_Raw]:
        streams = self._keys.inbox_streams(session_id, ceiling)
        tiers = await self._io.script("inbox_collect", streams, [self._limit])
        return [(raw_id, raw_fields) for entries in tiers for raw_id, raw_fields in entries]

    async def quarantine(self, session_id: str, entries: Sequence[tuple[_Raw, UnreadableEntry]]) -> None:
        """One ``XADD`` per entry to the session's quarantine stream, in one pipeline."""
        key = self._keys.quarantine(session_id)
        pipe = self._io.pipeline()
        for (_, raw_fields), entry in entries:
            raw = _raw_of(_lenient_fields(raw_fields))
            fields: list[Arg] = [n.REDIS_STREAM_FIELD, raw, n.REDIS_QUARANTINE_ENTRY_ID_FIELD, entry.id]
            self._io.queue(pipe, "XADD", key, "*", *fields, n.REDIS_QUARANTINE_ERROR_FIELD, entry.reason)
        await pipe.execute()

    async def peek(self, session_id: str, limit: int) -> list[_Raw]:
        pipe = self._io.pipeline()
        for stream in self._keys.inbox_streams(session_id):
            self._io.queue(pipe, "XRANGE", stream, "-", "+", "COUNT", limit)
        tiers = await pipe.execute()
        return [(raw_id, raw_fields) for entries in tiers for raw_id, raw_fields in entries][:limit]

    async def is_empty(self, session_id: str) -> bool:
        pipe = self._io.pipeline()
        for stream in self._keys.inbox_streams(session_id):
            self._io.queue(pipe, "XLEN", stream)
        return all(int(length) == 0 for length in await pipe.execute())

    async def purge(self, session_id: str) -> None:
        await self._io.call("DEL", *self._keys.inbox_streams(session_id), self._keys.claims(session_id))

    async def list_quarantined(self, session_id: str | None, limit: int) -> list[QuarantinedEntry]:
        """One quarantine stream per session: every session's (``SCAN``) merged, oldest first."""
        found: list[QuarantinedEntry] = []
        for sid in [session_id] if session_id is not None else await self._quarantined_sessions():
            entries = await self._io.call("XRANGE", self._keys.quarantine(sid), "-", "+", "COUNT", limit)
            found += [_quarantined(sid, raw_id, raw_fields) for raw_id, raw_fields in entries]
        found.sort(key=lambda entry: (entry.quarantined_at, _stream_order(entry.id), entry.session_id))
        return found[:limit]

    async def _quarantined_sessions(self) -> list[str]:
        sessions: set[str] = set()
        cursor: int = 0
        while True:
            cursor, batch = await self._io.scan(cursor, self._keys.quarantine_pattern(), SCAN_COUNT)
            for raw in batch:
                sid = self._keys.session_of_quarantine(raw.decode("utf-8", "replace"))
                if sid is not None:
                    sessions.add(sid)
            if int(cursor) == 0:
                return sorted(sessions)

    async def find_quarantined(self, quarantine_id: str) -> bytes | None:
        parsed = _parse_quarantine_id(quarantine_id)
        if parsed is None:
            return None
        sid, stream_id = parsed
        entries = await self._io.call("XRANGE", self._keys.quarantine(sid), stream_id, stream_id)
        return _lenient_fields(entries[0][1]).get(n.REDIS_STREAM_FIELD, b"") if entries else None

    async def restore(self, quarantine_id: str, message: InboundMessage, encoded: str) -> str | None:
        """One script: the quarantine entry removed and the envelope appended atomically."""
        parsed = _parse_quarantine_id(quarantine_id)
        if parsed is None:
            return None
        sid, stream_id = parsed
        keys = [self._keys.quarantine(sid), self._keys.inbox_stream(message.session_id, message.priority)]
        new_id = await self._io.script("quarantine_replay", keys, [stream_id, n.REDIS_STREAM_FIELD, encoded])
        return None if new_id is None else text(new_id, "stream entry id")

    async def delete_quarantined(self, quarantine_id: str) -> bool:
        parsed = _parse_quarantine_id(quarantine_id)
        if parsed is None:
            return False
        sid, stream_id = parsed
        return int(await self._io.script("quarantine_delete", [self._keys.quarantine(sid)], [stream_id])) == 1

    async def claim(
        self, session_id: str, token: int, ceiling: Priority, limit: int, max_attempts: int
    ) -> Claimed[_Raw]:
        """One script (``inbox_claim``)."""
        keys = [self._keys.claims(session_id), self._keys.quarantine(session_id), *self._keys.inbox_streams(session_id)]
        tiers = len(self._keys.inbox_streams(session_id, ceiling))
        fields = [n.REDIS_STREAM_FIELD, n.REDIS_QUARANTINE_ENTRY_ID_FIELD, n.REDIS_QUARANTINE_ERROR_FIELD]
        args: list[Arg] = [token, limit, max_attempts, tiers, *fields, HANDED_OUT_PREFIX, HANDED_OUT_SUFFIX]
        handed, moved = await self._io.script("inbox_claim", keys, args)
        return Claimed(
            [((raw_id, raw_fields), int(attempts)) for raw_id, raw_fields, attempts in handed],
            [text(raw_id, "stream entry id") for raw_id in moved],
        )

    async def acknowledge(self, session_id: str, token: int, entry_ids: Sequence[str]) -> int:
        """One script (``inbox_acknowledge``); an id that is not a stream id removes nothing."""
        ids = [entry_id for entry_id in entry_ids if _STREAM_ID.match(entry_id)]
        if not ids:
            return 0
        keys = [self._keys.claims(session_id), *self._keys.inbox_streams(session_id)]
        return int(await self._io.script("inbox_acknowledge", keys, [token, *ids]))

    async def move_to_quarantine(self, session_id: str, reasons: Sequence[tuple[str, str]]) -> list[str]:
        """One script (``inbox_quarantine_move``)."""
        pairs: list[Arg] = [part for entry_id, why in reasons if _STREAM_ID.match(entry_id) for part in (entry_id, why)]
        if not pairs:
            return []
        keys = [self._keys.claims(session_id), self._keys.quarantine(session_id), *self._keys.inbox_streams(session_id)]
        fields = [n.REDIS_STREAM_FIELD, n.REDIS_QUARANTINE_ENTRY_ID_FIELD, n.REDIS_QUARANTINE_ERROR_FIELD]
        moved = await self._io.script("inbox_quarantine_move", keys, [*fields, *pairs])
        return [text(raw_id, "stream entry id") for raw_id in moved]

    async def sessions_with_entries(self, after: str | None, limit: int) -> list[str]:
        """A ``SCAN`` walk over the tier-stream keys, then one ``XLEN`` pipeline per page of candidates (an
        emptied stream may linger for a millisecond)."""
        found: set[str] = set()
        cursor: int = 0
        while True:
            cursor, batch = await self._io.scan(cursor, self._keys.inbox_scan_pattern(), SCAN_COUNT)
            for raw in batch:
                sid = self._keys.session_of_tier_stream(raw.decode("utf-8", "replace"))
                if sid is not None and (after is None or sid > after):
                    found.add(sid)
            if int(cursor) == 0:
                break
        candidates = sorted(found)
        listed: list[str] = []
        while candidates and len(listed) < limit:
            page, candidates = candidates[:limit], candidates[limit:]
            pipe = self._io.pipeline()
            for sid in page:
                for stream in self._keys.inbox_streams(sid):
                    self._io.queue(pipe, "XLEN", stream)
            lengths = [int(length) for length in await pipe.execute()]
            tiers = len(Priority)
            listed += [sid for i, sid in enumerate(page) if any(lengths[i * tiers : (i + 1) * tiers])]
        return listed[:limit]


@exported_from("aimon_mongo.redis")
def AsyncRedisSessionInbox(
    io: AsyncRedisIO, keys: RedisKeys, collect_limit: int = DEFAULT_COLLECT_LIMIT
) -> AsyncInbox[str, _Raw, bytes]:
    """Cross-node mailbox per session on Redis streams (see the module text).

    A factory: the :class:`~aimon_mongo.services.AsyncInbox` service over :class:`AsyncRedisInboxDriver`."""
    return AsyncInbox(AsyncRedisInboxDriver(io, keys, collect_limit))


def _quarantined(sid: str, raw_id: bytes, raw_fields: Any) -> QuarantinedEntry:
    stream_id = raw_id.decode("ascii")
    fields = _lenient_fields(raw_fields)

    def field(name: str) -> str:
        value = fields.get(name)
        return "" if value is None else value.decode("utf-8", "replace")

    return QuarantinedEntry(
        id=f"{sid}{_QUARANTINE_SEPARATOR}{stream_id}",
        session_id=sid,
        entry_id=field(n.REDIS_QUARANTINE_ENTRY_ID_FIELD),
        error=field(n.REDIS_QUARANTINE_ERROR_FIELD),
        raw=_shown(fields.get(n.REDIS_STREAM_FIELD, b"")),
        quarantined_at=from_epoch_millis(int(stream_id.split("-", 1)[0])),
    )


def _parse_quarantine_id(quarantine_id: str) -> tuple[str, str] | None:
    """``"<session id>/<stream id>"`` → its two parts (a stream id never holds ``/``); ``None`` for a
    string of another form (no such entry)."""
    sid, sep, stream_id = quarantine_id.rpartition(_QUARANTINE_SEPARATOR)
    if not sep or not sid.strip() or "\x00" in sid or _STREAM_ID.match(stream_id) is None:
        return None
    return sid, stream_id


def _stream_order(quarantine_id: str) -> tuple[int, int]:
    match = _STREAM_ID.match(quarantine_id.rpartition(_QUARANTINE_SEPARATOR)[2])
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)
