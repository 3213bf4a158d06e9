"""PostgreSQL inbox (``conversation_inbox``) with a quarantine for unreadable entries.

``collect`` removes a batch with one ``DELETE … WHERE id IN (SELECT … ORDER BY priority, id FOR UPDATE
SKIP LOCKED LIMIT 1024) RETURNING …`` (concurrent collectors never block on, nor return, each other's
rows), decodes every row *inside* that transaction and moves the unreadable ones to
``conversation_inbox_quarantine`` before it commits: an entry is either delivered to the caller, or kept
in quarantine, never lost to a decode failure.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from pydantic import JsonValue

from aimon_mongo.codec.inbound import from_json_envelope, to_json_envelope
from aimon_mongo.codec.inbox_entry import decode_json_entry
from aimon_mongo.errors import InvalidArgumentError, SessionInboxError
from aimon_mongo.model import CollectedBatch, InboundMessage, Priority, UnreadableEntry
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.postgres._async.pool import AsyncPgPool
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.validate import require_id, require_limit, require_message, require_messages

log = logging.getLogger(__name__)

COLLECT_LIMIT = 1024
"""Rows one ``collect`` removes at most; a larger backlog drains over later calls."""

_DELIVER = """
INSERT INTO {inbox} (conversation_id, agent_ref, priority, payload, delivered_at)
VALUES (%s, %s, %s, %s::jsonb, %s) RETURNING id
"""
_DELIVER_MANY = """
INSERT INTO {inbox} (conversation_id, agent_ref, priority, payload, delivered_at)
SELECT conversation_id, agent_ref, priority, payload::jsonb, delivered_at
FROM unnest(%s::text[], %s::text[], %s::smallint[], %s::text[], %s::timestamptz[]) WITH ORDINALITY
    AS given(conversation_id, agent_ref, priority, payload, delivered_at, position)
ORDER BY position RETURNING id
"""
# The outer DELETE names the session too, so a partitioned or distributed inbox can prune and route it.
_COLLECT = f"""
DELETE FROM {{inbox}} WHERE conversation_id = %(sid)s AND id IN (
    SELECT id FROM {{inbox}} WHERE conversation_id = %(sid)s AND priority <= %(ceiling)s
    ORDER BY priority, id FOR UPDATE SKIP LOCKED LIMIT {COLLECT_LIMIT}
) RETURNING id, priority, payload::text
"""
_PEEK = """
SELECT id, priority, payload::text FROM {inbox} WHERE conversation_id = %s
ORDER BY priority, id LIMIT %s
"""
_IS_EMPTY = "SELECT 1 FROM {inbox} WHERE conversation_id = %s LIMIT 1"
_PURGE = "DELETE FROM {inbox} WHERE conversation_id = %s"
_QUARANTINE = """
INSERT INTO {quarantine} (conversation_id, entry_id, priority, raw_payload, error) VALUES (%s, %s, %s, %s, %s)
"""
_Q_COLUMNS = "id, conversation_id, entry_id, error, raw_payload, quarantined_at"
_LIST_Q_ALL = f"SELECT {_Q_COLUMNS} FROM {{quarantine}} ORDER BY id LIMIT %s"
_LIST_Q_SESSION = f"SELECT {_Q_COLUMNS} FROM {{quarantine}} WHERE conversation_id = %s ORDER BY id LIMIT %s"
_TAKE_Q = "SELECT raw_payload FROM {quarantine} WHERE id = %s FOR UPDATE"
_DELETE_Q = "DELETE FROM {quarantine} WHERE id = %s"

_Row = tuple[int, int, str]


class AsyncPostgresSessionInbox:
    """Cross-node mailbox per session: priority, then insertion order (the row id)."""

    batch_limit: int = COLLECT_LIMIT

    def __init__(self, pool: AsyncPgPool, schema: str) -> None:
        self._pool = pool
        self._deliver = qualify(_DELIVER, schema)
        self._deliver_many = qualify(_DELIVER_MANY, schema)
        self._collect = qualify(_COLLECT, schema)
        self._peek = qualify(_PEEK, schema)
        self._is_empty = qualify(_IS_EMPTY, schema)
        self._purge = qualify(_PURGE, schema)
        self._quarantine = qualify(_QUARANTINE, schema)
        self._list_q_all = qualify(_LIST_Q_ALL, schema)
        self._list_q_session = qualify(_LIST_Q_SESSION, schema)
        self._take_q = qualify(_TAKE_Q, schema)
        self._delete_q = qualify(_DELETE_Q, schema)

    async def deliver(self, message: InboundMessage) -> str:
        """Insert the envelope (JSONB); returns the row id as decimal text. ``message.id`` is ignored."""
        require_message(message)
        params = _deliver_params(message, to_json_envelope(message))
        async with self._pool.connection(SessionInboxError) as conn:
            cur = await conn.execute(self._deliver, params)
            row = await cur.fetchone()
        assert row is not None
        return str(row[0])

    async def deliver_many(self, messages: Sequence[InboundMessage]) -> list[str]:
        """Insert every envelope with one ``INSERT … SELECT FROM unnest(…)`` statement (all or nothing), rows
        in the order of ``messages``; returns the row ids in that order."""
        checked = require_messages(messages)
        if not checked:
            return []
        rows = [_deliver_params(message, to_json_envelope(message)) for message in checked]
        columns = [list(column) for column in zip(*rows, strict=True)]
        async with self._pool.connection(SessionInboxError) as conn:
            cur = await conn.execute(self._deliver_many, columns)
            ids: list[tuple[int]] = await cur.fetchall()
        # The serial ids are drawn in insertion order (ORDER BY position), so ascending ids are that order.
        return [str(row_id) for (row_id,) in sorted(ids)]

    async def collect(self, session_id: str, max_priority: Priority = Priority.LATER) -> CollectedBatch:
        """Remove and return up to :data:`COLLECT_LIMIT` entries with priority ``<= max_priority``."""
        require_id(session_id, "session_id")
        ceiling = _priority(max_priority)
        messages: list[InboundMessage] = []
        unreadable: list[UnreadableEntry] = []
        async with self._pool.connection(SessionInboxError) as conn, conn.transaction():
            cur = await conn.execute(self._collect, {"sid": session_id, "ceiling": ceiling})
            rows: list[_Row] = await cur.fetchall()
            rows.sort(key=_order)
            bad: list[tuple[Any, ...]] = []
            for row_id, priority, text in rows:
                decoded = decode_json_entry(str(row_id), text, session_id)
                if isinstance(decoded, UnreadableEntry):
                    unreadable.append(decoded)
                    bad.append((session_id, str(row_id), priority, text, decoded.reason))
                else:
                    messages.append(decoded)
            if bad:
                async with conn.cursor() as qcur:
                    await qcur.executemany(self._quarantine, bad)
                log.warning("moved %d unreadable inbox entries of session %s to quarantine", len(bad), session_id)
        return CollectedBatch(messages=tuple(messages), unreadable=tuple(unreadable))

    async def peek(self, session_id: str, limit: int = 64) -> CollectedBatch:
        """What ``collect`` would return next (up to ``limit`` entries), removing nothing."""
        require_id(session_id, "session_id")
        require_limit(limit)
        async with self._pool.connection(SessionInboxError) as conn:
            cur = await conn.execute(self._peek, [session_id, limit])
            rows: list[_Row] = await cur.fetchall()
        decoded = [decode_json_entry(str(row_id), text, session_id) for row_id, _, text in rows]
        return CollectedBatch(
            messages=tuple(d for d in decoded if isinstance(d, InboundMessage)),
            unreadable=tuple(d for d in decoded if isinstance(d, UnreadableEntry)),
        )

    async def is_empty(self, session_id: str) -> bool:
        require_id(session_id, "session_id")
        async with self._pool.connection(SessionInboxError) as conn:
            cur = await conn.execute(self._is_empty, [session_id])
            return await cur.fetchone() is None

    async def purge(self, session_id: str) -> None:
        require_id(session_id, "session_id")
        async with self._pool.connection(SessionInboxError) as conn:
            await conn.execute(self._purge, [session_id])

    async def list_quarantined(self, session_id: str | None = None, limit: int = 100) -> list[QuarantinedEntry]:
        """Quarantined entries, oldest first; ``raw`` is the stored envelope text."""
        require_limit(limit)
        async with self._pool.connection(SessionInboxError) as conn:
            if session_id is None:
                cur = await conn.execute(self._list_q_all, [limit])
            else:
                cur = await conn.execute(self._list_q_session, [require_id(session_id, "session_id"), limit])
            rows = await cur.fetchall()
        return [
            QuarantinedEntry(id=str(q_id), session_id=sid, entry_id=entry_id, error=error, raw=raw, quarantined_at=at)
            for q_id, sid, entry_id, error, raw, at in rows
        ]

    async def replay_quarantined(self, quarantine_id: str, raw: JsonValue | None = None) -> str:
        """Deliver the quarantined entry (or its repaired form ``raw``: envelope text or object) again and
        drop it from quarantine, in one transaction; refuses with :class:`CodecError` (keeping it) when it
        still cannot be decoded. Returns the new inbox id."""
        row_id = _quarantine_row_id(quarantine_id)
        if row_id is None:
            raise SessionInboxError(f"no quarantined inbox entry {quarantine_id!r}")
        async with self._pool.connection(SessionInboxError) as conn, conn.transaction():
            cur = await conn.execute(self._take_q, [row_id])
            found = await cur.fetchone()
            if found is None:
                raise SessionInboxError(f"no quarantined inbox entry {quarantine_id!r}")
            text = found[0] if raw is None else (raw if isinstance(raw, str) else json.dumps(raw))
            message = from_json_envelope(text)
            cur = await conn.execute(self._deliver, _deliver_params(message, to_json_envelope(message)))
            inserted = await cur.fetchone()
            await conn.execute(self._delete_q, [row_id])
        assert inserted is not None
        return str(inserted[0])

    async def delete_quarantined(self, quarantine_id: str) -> bool:
        row_id = _quarantine_row_id(quarantine_id)
        if row_id is None:
            return False
        async with self._pool.connection(SessionInboxError) as conn:
            cur = await conn.execute(self._delete_q, [row_id])
            return cur.rowcount > 0


def _deliver_params(message: InboundMessage, envelope: str) -> list[Any]:
    return [message.session_id, message.agent_ref, message.priority.ordinal, envelope, message.delivered_at]


def _order(row: _Row) -> tuple[int, int]:
    return row[1], row[0]


_EVERY_TIER = 32767
"""The ceiling of a collect of everything: the largest ``smallint``, so rows whose stored priority no tier
names (a foreign or damaged write) are taken and decoded too instead of keeping ``is_empty`` False for
ever."""


def _priority(value: object) -> int:
    if isinstance(value, Priority):
        return _EVERY_TIER if value is Priority.LATER else value.ordinal
    raise InvalidArgumentError(f"max_priority must be a Priority, got {type(value).__name__}")


def _quarantine_row_id(quarantine_id: object) -> int | None:
    """The quarantine row id named by ``quarantine_id``; ``None`` when it cannot name a row (not decimal, or
    beyond ``bigint``), which then reads as "not there"."""
    text = require_id(quarantine_id, "quarantine_id")
    if not text.isascii() or not text.isdigit():
        return None
    value = int(text)
    return value if 0 < value < 2**63 else None
