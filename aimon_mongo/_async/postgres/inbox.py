"""PostgreSQL inbox driver (``conversation_inbox``) with a quarantine for unreadable entries.

``take`` removes a batch with one ``DELETE … WHERE id IN (SELECT … ORDER BY priority, id FOR UPDATE
SKIP LOCKED LIMIT 1024) RETURNING …`` (concurrent collectors never block on, nor return, each other's
rows) and moves the entries the service's triage names unreadable to ``conversation_inbox_quarantine``
*inside* that transaction: an entry is either delivered to the caller, or kept in quarantine, never lost
to a decode failure. Ids are the row ids as decimal text.

Acknowledged delivery, one statement each (V6 columns ``claim_token``, ``claim_attempts``, ``claimed_at``):
``claim`` locks up to 64 eligible rows (``FOR UPDATE SKIP LOCKED``, as collect), deletes the ones handed
out ``max_attempts`` times into the quarantine and marks the others, in data-modifying CTEs of one
statement; ``acknowledge`` is one ``DELETE … WHERE claim_token = token``; ``move_to_quarantine`` one
``DELETE … RETURNING`` feeding an ``INSERT``. No session state, nothing prepared beyond what the pool
allows: they run through a transaction-mode PgBouncer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg import AsyncConnection

from aimon_mongo._async.postgres.pool import AsyncPgPool
from aimon_mongo._async.services.inbox import HANDED_OUT_PREFIX, HANDED_OUT_SUFFIX, AsyncInbox, Claimed, Triage
from aimon_mongo.codec.inbound import to_json_envelope
from aimon_mongo.codec.inbox_entry import decode_json_entry, replayed_envelope
from aimon_mongo.exported import exported_from
from aimon_mongo.model import InboundMessage, Priority, UnreadableEntry
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.postgres.rows import quarantine_row_id
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures

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
_FIND_Q = "SELECT raw_payload FROM {quarantine} WHERE id = %s"
_DELETE_Q = "DELETE FROM {quarantine} WHERE id = %s RETURNING id"

# One statement: pick (and lock) the eligible rows in collect order, move the exhausted ones to the
# quarantine, hand out the others; kind 0 rows are handed out (with their new attempt count), kind 1 rows
# name an entry moved to the quarantine.
_CLAIM = """
WITH picked AS (
    SELECT id, claim_attempts FROM {inbox}
    WHERE conversation_id = %(sid)s AND priority <= %(ceiling)s
        AND (claim_token IS NULL OR claim_token <= %(token)s)
    ORDER BY priority, id LIMIT %(limit)s FOR UPDATE SKIP LOCKED
), exhausted AS (
    DELETE FROM {inbox} AS i USING picked AS p
    WHERE i.conversation_id = %(sid)s AND i.id = p.id AND p.claim_attempts >= %(most)s
    RETURNING i.id, i.priority, i.payload::text AS payload, i.claim_attempts
), kept AS (
    INSERT INTO {quarantine} (conversation_id, entry_id, priority, raw_payload, error)
    SELECT %(sid)s, id::text, priority, payload, %(prefix)s || claim_attempts || %(suffix)s FROM exhausted
    RETURNING entry_id
), handed AS (
    UPDATE {inbox} AS i SET claim_token = %(token)s, claim_attempts = i.claim_attempts + 1, claimed_at = now()
    FROM picked AS p WHERE i.conversation_id = %(sid)s AND i.id = p.id AND p.claim_attempts < %(most)s
    RETURNING i.id, i.priority, i.payload::text AS payload, i.claim_attempts
)
SELECT 0, id, priority, payload, claim_attempts FROM handed
UNION ALL SELECT 1, entry_id::bigint, NULL, NULL, NULL FROM kept
"""
_ACKNOWLEDGE = "DELETE FROM {inbox} WHERE conversation_id = %s AND id = ANY(%s::bigint[]) AND claim_token = %s"
_MOVE = """
WITH gone AS (
    DELETE FROM {inbox} WHERE conversation_id = %(sid)s AND id = ANY(%(ids)s::bigint[])
    RETURNING id, priority, payload::text AS payload
)
INSERT INTO {quarantine} (conversation_id, entry_id, priority, raw_payload, error)
SELECT %(sid)s, g.id::text, g.priority, g.payload, r.reason
FROM gone AS g JOIN unnest(%(ids)s::bigint[], %(reasons)s::text[]) AS r(id, reason) ON r.id = g.id
RETURNING entry_id
"""
# Code point order (what every backend and the service sort by), whatever the database's collation.
_SESSIONS = """
SELECT DISTINCT conversation_id COLLATE "C" AS sid FROM {inbox} WHERE conversation_id COLLATE "C" > %s
ORDER BY sid LIMIT %s
"""

_Row = tuple[int, int, str]
"""A taken or peeked entry: row id, stored priority, envelope text."""
_EVERY_TIER = 32767
"""The ceiling of a take of everything: the largest ``smallint``, so rows whose stored priority no tier
names (a foreign or damaged write) are taken and decoded too instead of keeping ``is_empty`` False for
ever."""


@exported_from("aimon_mongo.postgres")
class AsyncPostgresInboxDriver:
    """One statement per primitive; ``take`` and ``restore`` run in one transaction each."""

    batch_limit: int | None = COLLECT_LIMIT
    quarantines_in_take = True
    takes_in_order = True
    encode = staticmethod(to_json_envelope)
    decode_replay = staticmethod(replayed_envelope)

    def __init__(self, pool: AsyncPgPool, schema: str) -> None:
        self._pool = pool
        self.failures: Failures = pool.failures
        self._deliver, self._deliver_many = qualify(_DELIVER, schema), qualify(_DELIVER_MANY, schema)
        self._collect, self._peek = qualify(_COLLECT, schema), qualify(_PEEK, schema)
        self._is_empty, self._purge, self._quarantine = (qualify(q, schema) for q in (_IS_EMPTY, _PURGE, _QUARANTINE))
        self._list_q_all, self._list_q_session = qualify(_LIST_Q_ALL, schema), qualify(_LIST_Q_SESSION, schema)
        self._find_q, self._delete_q = qualify(_FIND_Q, schema), qualify(_DELETE_Q, schema)
        self._claim, self._acknowledge = qualify(_CLAIM, schema), qualify(_ACKNOWLEDGE, schema)
        self._move, self._sessions = qualify(_MOVE, schema), qualify(_SESSIONS, schema)

    def __repr__(self) -> str:
        return located(self, self._pool.endpoint)

    def decode(self, raw: _Row, session_id: str) -> InboundMessage | UnreadableEntry:
        return decode_json_entry(str(raw[0]), raw[2], session_id)

    async def append(self, entries: Sequence[tuple[InboundMessage, str]]) -> list[str]:
        """One statement (all or nothing), rows in the order given: ``INSERT … VALUES`` for one entry (the
        cheaper plan, prepared once per connection), ``INSERT … SELECT FROM unnest(…)`` for several."""
        async with self._pool.connection() as conn:
            return await self._append(conn, entries)

    async def _append(self, conn: AsyncConnection[Any], entries: Sequence[tuple[InboundMessage, str]]) -> list[str]:
        rows = [[m.session_id, m.agent_ref, m.priority.ordinal, envelope, m.delivered_at] for m, envelope in entries]
        if len(rows) == 1:
            cur = await conn.execute(self._deliver, rows[0])
            return [str(row_id) for (row_id,) in await cur.fetchall()]
        cur = await conn.execute(self._deliver_many, [list(column) for column in zip(*rows, strict=True)])
        ids: list[tuple[int]] = await cur.fetchall()
        # The serial ids are drawn in insertion order (ORDER BY position), so ascending ids are that order.
        return [str(row_id) for (row_id,) in sorted(ids)]

    async def take(self, session_id: str, ceiling: Priority, triage: Triage[_Row]) -> list[_Row]:
        top = _EVERY_TIER if ceiling is Priority.LATER else ceiling.ordinal
        async with self._pool.connection() as conn, conn.transaction():
            cur = await conn.execute(self._collect, {"sid": session_id, "ceiling": top})
            rows: list[_Row] = sorted(await cur.fetchall(), key=lambda row: (row[1], row[0]))
            await self._keep(conn, session_id, triage(rows))
        return rows

    async def quarantine(self, session_id: str, entries: Sequence[tuple[_Row, UnreadableEntry]]) -> None:
        async with self._pool.connection() as conn:
            await self._keep(conn, session_id, entries)

    async def _keep(
        self, conn: AsyncConnection[Any], sid: str, entries: Sequence[tuple[_Row, UnreadableEntry]]
    ) -> None:
        if entries:
            rows = [(sid, str(row_id), priority, text, entry.reason) for (row_id, priority, text), entry in entries]
            async with conn.cursor() as cur:
                await cur.executemany(self._quarantine, rows)

    async def peek(self, session_id: str, limit: int) -> list[_Row]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(self._peek, [session_id, limit])
            return await cur.fetchall()

    async def is_empty(self, session_id: str) -> bool:
        async with self._pool.connection() as conn:
            cur = await conn.execute(self._is_empty, [session_id])
            return await cur.fetchone() is None

    async def purge(self, session_id: str) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(self._purge, [session_id])

    async def list_quarantined(self, session_id: str | None, limit: int) -> list[QuarantinedEntry]:
        """``raw`` is the stored envelope text."""
        async with self._pool.connection() as conn:
            if session_id is None:
                cur = await conn.execute(self._list_q_all, [limit])
            else:
                cur = await conn.execute(self._list_q_session, [session_id, limit])
            rows = await cur.fetchall()
        return [
            QuarantinedEntry(id=str(q_id), session_id=sid, entry_id=entry_id, error=error, raw=raw, quarantined_at=at)
            for q_id, sid, entry_id, error, raw, at in rows
        ]

    async def find_quarantined(self, quarantine_id: str) -> str | None:
        row_id = quarantine_row_id(quarantine_id)
        if row_id is None:
            return None
        async with self._pool.connection() as conn:
            cur = await conn.execute(self._find_q, [row_id])
            found = await cur.fetchone()
        return None if found is None else str(found[0])

    async def restore(self, quarantine_id: str, message: InboundMessage, encoded: str) -> str | None:
        """Drop the quarantine row and insert the entry in one transaction (two replays deliver it once)."""
        row_id = quarantine_row_id(quarantine_id)
        async with self._pool.connection() as conn, conn.transaction():
            if row_id is None or not await self._delete(conn, row_id):
                return None
            (new_id,) = await self._append(conn, [(message, encoded)])
        return new_id

    async def delete_quarantined(self, quarantine_id: str) -> bool:
        row_id = quarantine_row_id(quarantine_id)
        if row_id is None:
            return False
        async with self._pool.connection() as conn:
            return await self._delete(conn, row_id)

    async def _delete(self, conn: AsyncConnection[Any], row_id: int) -> bool:
        cur = await conn.execute(self._delete_q, [row_id])
        return await cur.fetchone() is not None

    async def claim(
        self, session_id: str, token: int, ceiling: Priority, limit: int, max_attempts: int
    ) -> Claimed[_Row]:
        """One statement (see the module text)."""
        top = _EVERY_TIER if ceiling is Priority.LATER else ceiling.ordinal
        params = {
            "sid": session_id,
            "ceiling": top,
            "token": token,
            "limit": limit,
            "most": max_attempts,
            "prefix": HANDED_OUT_PREFIX,
            "suffix": HANDED_OUT_SUFFIX,
        }
        async with self._pool.connection() as conn:
            cur = await conn.execute(self._claim, params)
            rows: list[tuple[int, int, int | None, str | None, int | None]] = await cur.fetchall()
        handed = [
            ((row_id, priority, text), attempts)
            for kind, row_id, priority, text, attempts in rows
            if kind == 0 and priority is not None and text is not None and attempts is not None
        ]
        handed.sort(key=lambda item: (item[0][1], item[0][0]))
        return Claimed(handed, sorted((str(row_id) for kind, row_id, *_ in rows if kind == 1), key=int))

    async def acknowledge(self, session_id: str, token: int, entry_ids: Sequence[str]) -> int:
        """One ``DELETE``; the count removed."""
        ids = _row_ids(entry_ids)
        if not ids:
            return 0
        async with self._pool.connection() as conn:
            cur = await conn.execute(self._acknowledge, [session_id, ids, token])
            return max(cur.rowcount, 0)

    async def move_to_quarantine(self, session_id: str, reasons: Sequence[tuple[str, str]]) -> list[str]:
        """One statement: the rows deleted and inserted into the quarantine, each with its reason."""
        named = [(row_id, reason) for entry_id, reason in reasons if (row_id := quarantine_row_id(entry_id))]
        if not named:
            return []
        params = {"sid": session_id, "ids": [r for r, _ in named], "reasons": [why for _, why in named]}
        async with self._pool.connection() as conn:
            cur = await conn.execute(self._move, params)
            return [entry_id for (entry_id,) in await cur.fetchall()]

    async def sessions_with_entries(self, after: str | None, limit: int) -> list[str]:
        """One ``SELECT DISTINCT`` over the inbox (a periodic listing, never on a turn's path)."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(self._sessions, ["" if after is None else after, limit])
            return [sid for (sid,) in await cur.fetchall()]


def _row_ids(entry_ids: Sequence[str]) -> list[int]:
    """The row ids the entry ids name (an id that cannot name a row is left out)."""
    return [row_id for entry_id in entry_ids if (row_id := quarantine_row_id(entry_id)) is not None]


@exported_from("aimon_mongo.postgres")
def AsyncPostgresSessionInbox(pool: AsyncPgPool, schema: str) -> AsyncInbox[str, _Row, str]:
    """Cross-node mailbox per session: priority, then insertion order (the row id).

    A factory: the :class:`~aimon_mongo.services.AsyncInbox` service over :class:`AsyncPostgresInboxDriver`."""
    return AsyncInbox(AsyncPostgresInboxDriver(pool, schema))
