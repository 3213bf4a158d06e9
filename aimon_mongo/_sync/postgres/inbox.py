# GENERATED from aimon_mongo/_async/postgres/inbox.py by scripts/gen_sync.py; do not edit.
"""PostgreSQL inbox driver (``conversation_inbox``) with a quarantine for unreadable entries.

``take`` removes a batch with one ``DELETE … WHERE id IN (SELECT … ORDER BY priority, id FOR UPDATE
SKIP LOCKED LIMIT 1024) RETURNING …`` (concurrent collectors never block on, nor return, each other's
rows) and moves the entries the service's triage names unreadable to ``conversation_inbox_quarantine``
*inside* that transaction: an entry is either delivered to the caller, or kept in quarantine, never lost
to a decode failure. Ids are the row ids as decimal text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg import Connection

from aimon_mongo._sync.postgres.pool import PgPool
from aimon_mongo._sync.services.inbox import Inbox, Triage
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

_Row = tuple[int, int, str]
"""A taken or peeked entry: row id, stored priority, envelope text."""
_EVERY_TIER = 32767
"""The ceiling of a take of everything: the largest ``smallint``, so rows whose stored priority no tier
names (a foreign or damaged write) are taken and decoded too instead of keeping ``is_empty`` False for
ever."""


@exported_from("aimon_mongo.postgres")
class PostgresInboxDriver:
    """One statement per primitive; ``take`` and ``restore`` run in one transaction each."""

    batch_limit: int | None = COLLECT_LIMIT
    quarantines_in_take = True
    takes_in_order = True
    encode = staticmethod(to_json_envelope)
    decode_replay = staticmethod(replayed_envelope)

    def __init__(self, pool: PgPool, schema: str) -> None:
        self._pool = pool
        self.failures: Failures = pool.failures
        self._deliver, self._deliver_many = qualify(_DELIVER, schema), qualify(_DELIVER_MANY, schema)
        self._collect, self._peek = qualify(_COLLECT, schema), qualify(_PEEK, schema)
        self._is_empty, self._purge, self._quarantine = (qualify(q, schema) for q in (_IS_EMPTY, _PURGE, _QUARANTINE))
        self._list_q_all, self._list_q_session = qualify(_LIST_Q_ALL, schema), qualify(_LIST_Q_SESSION, schema)
        self._find_q, self._delete_q = qualify(_FIND_Q, schema), qualify(_DELETE_Q, schema)

    def __repr__(self) -> str:
        return located(self, self._pool.endpoint)

    def decode(self, raw: _Row, session_id: str) -> InboundMessage | UnreadableEntry:
        return decode_json_entry(str(raw[0]), raw[2], session_id)

    def append(self, entries: Sequence[tuple[InboundMessage, str]]) -> list[str]:
        """One statement (all or nothing), rows in the order given: ``INSERT … VALUES`` for one entry (the
        cheaper plan, prepared once per connection), ``INSERT … SELECT FROM unnest(…)`` for several."""
        with self._pool.connection() as conn:
            return self._append(conn, entries)

    def _append(self, conn: Connection[Any], entries: Sequence[tuple[InboundMessage, str]]) -> list[str]:
        rows = [[m.session_id, m.agent_ref, m.priority.ordinal, envelope, m.delivered_at] for m, envelope in entries]
        if len(rows) == 1:
            cur = conn.execute(self._deliver, rows[0])
            return [str(row_id) for (row_id,) in cur.fetchall()]
        cur = conn.execute(self._deliver_many, [list(column) for column in zip(*rows, strict=True)])
        ids: list[tuple[int]] = cur.fetchall()
        # The serial ids are drawn in insertion order (ORDER BY position), so ascending ids are that order.
        return [str(row_id) for (row_id,) in sorted(ids)]

    def take(self, session_id: str, ceiling: Priority, triage: Triage[_Row]) -> list[_Row]:
        top = _EVERY_TIER if ceiling is Priority.LATER else ceiling.ordinal
        with self._pool.connection() as conn, conn.transaction():
            cur = conn.execute(self._collect, {"sid": session_id, "ceiling": top})
            rows: list[_Row] = sorted(cur.fetchall(), key=lambda row: (row[1], row[0]))
            self._keep(conn, session_id, triage(rows))
        return rows

    def quarantine(self, session_id: str, entries: Sequence[tuple[_Row, UnreadableEntry]]) -> None:
        with self._pool.connection() as conn:
            self._keep(conn, session_id, entries)

    def _keep(
        self, conn: Connection[Any], sid: str, entries: Sequence[tuple[_Row, UnreadableEntry]]
    ) -> None:
        if entries:
            rows = [(sid, str(row_id), priority, text, entry.reason) for (row_id, priority, text), entry in entries]
            with conn.cursor() as cur:
                cur.executemany(self._quarantine, rows)

    def peek(self, session_id: str, limit: int) -> list[_Row]:
        with self._pool.connection() as conn:
            cur = conn.execute(self._peek, [session_id, limit])
            return cur.fetchall()

    def is_empty(self, session_id: str) -> bool:
        with self._pool.connection() as conn:
            cur = conn.execute(self._is_empty, [session_id])
            return cur.fetchone() is None

    def purge(self, session_id: str) -> None:
        with self._pool.connection() as conn:
            conn.execute(self._purge, [session_id])

    def list_quarantined(self, session_id: str | None, limit: int) -> list[QuarantinedEntry]:
        """``raw`` is the stored envelope text."""
        with self._pool.connection() as conn:
            if session_id is None:
                cur = conn.execute(self._list_q_all, [limit])
            else:
                cur = conn.execute(self._list_q_session, [session_id, limit])
            rows = cur.fetchall()
        return [
            QuarantinedEntry(id=str(q_id), session_id=sid, entry_id=entry_id, error=error, raw=raw, quarantined_at=at)
            for q_id, sid, entry_id, error, raw, at in rows
        ]

    def find_quarantined(self, quarantine_id: str) -> str | None:
        row_id = quarantine_row_id(quarantine_id)
        if row_id is None:
            return None
        with self._pool.connection() as conn:
            cur = conn.execute(self._find_q, [row_id])
            found = cur.fetchone()
        return None if found is None else str(found[0])

    def restore(self, quarantine_id: str, message: InboundMessage, encoded: str) -> str | None:
        """Drop the quarantine row and insert the entry in one transaction (two replays deliver it once)."""
        row_id = quarantine_row_id(quarantine_id)
        with self._pool.connection() as conn, conn.transaction():
            if row_id is None or not self._delete(conn, row_id):
                return None
            (new_id,) = self._append(conn, [(message, encoded)])
        return new_id

    def delete_quarantined(self, quarantine_id: str) -> bool:
        row_id = quarantine_row_id(quarantine_id)
        if row_id is None:
            return False
        with self._pool.connection() as conn:
            return self._delete(conn, row_id)

    def _delete(self, conn: Connection[Any], row_id: int) -> bool:
        cur = conn.execute(self._delete_q, [row_id])
        return cur.fetchone() is not None


@exported_from("aimon_mongo.postgres")
def PostgresSessionInbox(pool: PgPool, schema: str) -> Inbox[str, _Row, str]:
    """Cross-node mailbox per session: priority, then insertion order (the row id).

    A factory: the :class:`~aimon_mongo.services.Inbox` service over :class:`PostgresInboxDriver`."""
    return Inbox(PostgresInboxDriver(pool, schema))
