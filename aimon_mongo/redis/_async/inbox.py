"""Inbox on Redis streams (reference §4.2, plus quarantine and peek).

One stream per session and priority, ``<inbox>:<id>:NOW|NEXT|LATER``; each entry has one field ``p``
holding the envelope JSON of the shared codec. ``collect`` runs one Lua script that, tier by tier in
priority order, reads the oldest entries and deletes them in the same atomic step: concurrent collectors
never share an entry. One call takes at most ``batch_limit`` entries (1,000 by default, counted over all
tiers, so also at most 1,000 per tier); larger backlogs drain over later calls. Order: priority, then
stream id (the Redis server's clock).

Entries are decoded after the script removed them (at-most-once, as in every backend). An entry that
cannot be decoded is reported in ``unreadable`` and its raw form is appended to the session's
quarantine stream ``<inbox>:<id>:quarantine`` (fields ``p`` = the raw envelope, ``entryId``, ``error``)
right after decoding. A process that dies between the script and that append loses the unreadable
entries of that one call, exactly as it loses the readable ones (see ``docs/guarantees.md``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from pydantic import JsonValue

from aimon_mongo import names as n
from aimon_mongo.codec._stored import compact_json
from aimon_mongo.codec.inbound import from_json_envelope, to_json_envelope
from aimon_mongo.codec.inbox_entry import decode_json_entry, unreadable_entry
from aimon_mongo.errors import CodecError, InvalidArgumentError, SessionInboxError
from aimon_mongo.model.batch import CollectedBatch, UnreadableEntry
from aimon_mongo.model.inbound import InboundMessage
from aimon_mongo.model.priority import Priority
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.redis._async.connection import Arg, AsyncRedisIO
from aimon_mongo.redis.keys import RedisKeys
from aimon_mongo.redis.replies import from_millis, text
from aimon_mongo.validate import delivery_action, require_id, require_limit, require_message, require_messages

log = logging.getLogger(__name__)

DEFAULT_COLLECT_LIMIT = 1000
"""Most entries one ``collect`` returns (over all priority tiers)."""
SCAN_COUNT = 256
_STREAM_ID = re.compile(r"\A(\d+)-(\d+)\Z")
_QUARANTINE_SEPARATOR = "/"


def _priority(value: object, argument: str) -> Priority:
    if isinstance(value, bool) or not isinstance(value, Priority):
        raise InvalidArgumentError(f"{argument} must be a Priority, got {type(value).__name__}")
    return value


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


class AsyncRedisSessionInbox:
    """Cross-node mailbox per session on Redis streams (see the module text)."""

    def __init__(self, io: AsyncRedisIO, keys: RedisKeys, collect_limit: int = DEFAULT_COLLECT_LIMIT) -> None:
        self._io = io
        self._keys = keys
        self._collect_limit = require_limit(collect_limit, "collect_limit")
        self.batch_limit: int | None = self._collect_limit

    async def deliver(self, message: InboundMessage) -> str:
        require_message(message)
        stream = self._keys.inbox_stream(message.session_id, message.priority)
        envelope = to_json_envelope(message)
        with self._io.guard(SessionInboxError, f"deliver to session {message.session_id!r}"):
            entry_id = await self._io.call("XADD", stream, "*", n.REDIS_STREAM_FIELD, envelope)
        return text(entry_id, "stream entry id")

    async def deliver_many(self, messages: Sequence[InboundMessage]) -> list[str]:
        """One ``XADD`` per message in one pipeline (one round trip), in the order of ``messages``."""
        checked = require_messages(messages)
        if not checked:
            return []
        envelopes = [to_json_envelope(message) for message in checked]  # every item encoded before any I/O
        pipe = self._io.pipeline()
        for message, envelope in zip(checked, envelopes, strict=True):
            stream = self._keys.inbox_stream(message.session_id, message.priority)
            self._io.queue(pipe, "XADD", stream, "*", n.REDIS_STREAM_FIELD, envelope)
        with self._io.guard(SessionInboxError, delivery_action(checked)):
            entry_ids = await pipe.execute()
        return [text(entry_id, "stream entry id") for entry_id in entry_ids]

    async def collect(self, session_id: str, max_priority: Priority = Priority.LATER) -> CollectedBatch:
        sid = require_id(session_id, "session_id")
        streams = self._keys.inbox_streams(sid, _priority(max_priority, "max_priority"))
        with self._io.guard(SessionInboxError, f"collect of session {sid!r}"):
            tiers = await self._io.script("inbox_collect", streams, [self._collect_limit])
        messages: list[InboundMessage] = []
        unreadable: list[UnreadableEntry] = []
        quarantine: list[tuple[UnreadableEntry, bytes | str]] = []
        for entries in tiers:
            for raw_id, raw_fields in entries:
                decoded, raw = self._decode(sid, raw_id, raw_fields)
                if isinstance(decoded, InboundMessage):
                    messages.append(decoded)
                else:
                    unreadable.append(decoded)
                    quarantine.append((decoded, raw))
        if quarantine:
            await self._quarantine(sid, quarantine)
        return CollectedBatch(messages=tuple(messages), unreadable=tuple(unreadable))

    def _decode(self, sid: str, raw_id: bytes, raw_fields: Any) -> tuple[InboundMessage | UnreadableEntry, bytes | str]:
        entry_id = raw_id.decode("utf-8", "replace") if isinstance(raw_id, bytes) else str(raw_id)
        fields = _lenient_fields(raw_fields)
        raw = _raw_of(fields)
        if n.REDIS_STREAM_FIELD not in fields:
            missing = CodecError(f"stream entry has no field '{n.REDIS_STREAM_FIELD}'")
            return unreadable_entry(entry_id, raw, missing, sid), raw
        return decode_json_entry(entry_id, raw, sid), raw

    async def _quarantine(self, sid: str, entries: list[tuple[UnreadableEntry, bytes | str]]) -> None:
        key = self._keys.quarantine(sid)
        pipe = self._io.pipeline()
        for entry, raw in entries:
            self._io.queue(
                pipe,
                "XADD",
                key,
                "*",
                n.REDIS_STREAM_FIELD,
                raw,
                n.REDIS_QUARANTINE_ENTRY_ID_FIELD,
                entry.id,
                n.REDIS_QUARANTINE_ERROR_FIELD,
                entry.reason,
            )
        try:
            with self._io.guard(SessionInboxError, f"quarantine of session {sid!r}"):
                await pipe.execute()
        except Exception as exc:  # the batch is already removed: report, never fail the collect
            ids = ", ".join(entry.id for entry, _ in entries)
            log.error("could not quarantine unreadable entries %s of session %s: %s", ids, sid, exc)

    async def peek(self, session_id: str, limit: int = 64) -> CollectedBatch:
        sid = require_id(session_id, "session_id")
        remaining = require_limit(limit)
        pipe = self._io.pipeline()
        for stream in self._keys.inbox_streams(sid):
            self._io.queue(pipe, "XRANGE", stream, "-", "+", "COUNT", remaining)
        with self._io.guard(SessionInboxError, f"peek of session {sid!r}"):
            tiers = await pipe.execute()
        messages: list[InboundMessage] = []
        unreadable: list[UnreadableEntry] = []
        for entries in tiers:
            for raw_id, raw_fields in entries[:remaining]:
                decoded, _raw = self._decode(sid, raw_id, raw_fields)
                if isinstance(decoded, InboundMessage):
                    messages.append(decoded)
                else:
                    unreadable.append(decoded)
                remaining -= 1
        return CollectedBatch(messages=tuple(messages), unreadable=tuple(unreadable))

    async def is_empty(self, session_id: str) -> bool:
        sid = require_id(session_id, "session_id")
        pipe = self._io.pipeline()
        for stream in self._keys.inbox_streams(sid):
            self._io.queue(pipe, "XLEN", stream)
        with self._io.guard(SessionInboxError, f"emptiness check of session {sid!r}"):
            lengths = await pipe.execute()
        return all(int(length) == 0 for length in lengths)

    async def purge(self, session_id: str) -> None:
        sid = require_id(session_id, "session_id")
        with self._io.guard(SessionInboxError, f"purge of session {sid!r}"):
            await self._io.call("DEL", *self._keys.inbox_streams(sid))

    # --- quarantine ---

    async def list_quarantined(self, session_id: str | None = None, limit: int = 100) -> list[QuarantinedEntry]:
        count = require_limit(limit)
        found: list[QuarantinedEntry] = []
        with self._io.guard(SessionInboxError, "quarantine listing"):
            if session_id is not None:
                sid = require_id(session_id, "session_id")
                found = await self._read_quarantine(sid, count)
            else:
                for sid in await self._quarantined_sessions():
                    found += await self._read_quarantine(sid, count)
        found.sort(key=lambda entry: (entry.quarantined_at, _stream_order(entry.id), entry.session_id))
        return found[:count]

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

    async def _read_quarantine(self, sid: str, count: int) -> list[QuarantinedEntry]:
        entries = await self._io.call("XRANGE", self._keys.quarantine(sid), "-", "+", "COUNT", count)
        return [self._quarantined(sid, raw_id, raw_fields) for raw_id, raw_fields in entries]

    @staticmethod
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
            quarantined_at=from_millis(int(stream_id.split("-", 1)[0])),
        )

    async def replay_quarantined(self, quarantine_id: str, raw: JsonValue | None = None) -> str:
        parsed = _parse_quarantine_id(quarantine_id)
        if parsed is None:
            raise SessionInboxError(f"no quarantined entry {quarantine_id!r}")
        sid, stream_id = parsed
        key = self._keys.quarantine(sid)
        with self._io.guard(SessionInboxError, f"quarantine replay of {quarantine_id!r}"):
            if raw is None:
                entries = await self._io.call("XRANGE", key, stream_id, stream_id)
                if not entries:
                    raise SessionInboxError(f"no quarantined entry {quarantine_id!r}")
                stored: bytes | str = _lenient_fields(entries[0][1]).get(n.REDIS_STREAM_FIELD, b"")
            else:
                stored = raw if isinstance(raw, str) else compact_json(raw)
            message = from_json_envelope(stored)  # refuses with CodecError; the entry stays quarantined
            target = self._keys.inbox_stream(message.session_id, message.priority)
            args: list[Arg] = [stream_id, n.REDIS_STREAM_FIELD, stored]
            new_id = await self._io.script("quarantine_replay", [key, target], args)
        if new_id is None:
            raise SessionInboxError(f"no quarantined entry {quarantine_id!r}")
        log.info("replayed quarantined entry %s into session %s as %s", quarantine_id, message.session_id, new_id)
        return text(new_id, "stream entry id")

    async def delete_quarantined(self, quarantine_id: str) -> bool:
        parsed = _parse_quarantine_id(quarantine_id)
        if parsed is None:
            return False
        sid, stream_id = parsed
        with self._io.guard(SessionInboxError, f"quarantine delete of {quarantine_id!r}"):
            removed = await self._io.script("quarantine_delete", [self._keys.quarantine(sid)], [stream_id])
        return int(removed) == 1


def _parse_quarantine_id(quarantine_id: object) -> tuple[str, str] | None:
    """``"<session id>/<stream id>"`` → its two parts (a stream id never holds ``/``); ``None`` for a
    string of another form (no such entry). A non-string or empty id is refused."""
    qid = require_id(quarantine_id, "quarantine_id")
    sid, sep, stream_id = qid.rpartition(_QUARANTINE_SEPARATOR)
    if not sep or not sid.strip() or "\x00" in sid or _STREAM_ID.match(stream_id) is None:
        return None
    return sid, stream_id


def _stream_order(quarantine_id: str) -> tuple[int, int]:
    match = _STREAM_ID.match(quarantine_id.rpartition(_QUARANTINE_SEPARATOR)[2])
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)
