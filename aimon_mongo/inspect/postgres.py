"""The PostgreSQL inspection driver: grouped counts and keyset queries on the session tables.

A page of sessions is the union of four keyset reads (inbox, quarantine, lock and fencing-counter rows
above the cursor, each ``LIMIT``-ed); its figures are then grouped for those sessions only. Lease states
are decided by the database clock (``now()``): a lock row whose lease runs is ``held``, one that ran out
``expired``, and a session with only its fencing counter left (the lock row is deleted on release)
``released``, with the last token issued. Task pages read through the bundle's task store, sliced here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from aimon_mongo import names as n
from aimon_mongo.errors import AimonStorageError
from aimon_mongo.inspect.service import ClaimedEntry, LeaseState, Waiting, listed_page
from aimon_mongo.model import BackgroundTask, TaskQuery
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.postgres.rows import quarantine_row_id
from aimon_mongo.postgres.sqltext import qualify

if TYPE_CHECKING:
    from aimon_mongo.postgres import PostgresSessionBackends

_SESSIONS = """
SELECT s FROM (
    (SELECT DISTINCT conversation_id AS s FROM {inbox} WHERE conversation_id > %(after)s ORDER BY 1 LIMIT %(n)s)
    UNION (SELECT DISTINCT conversation_id FROM {quarantine} WHERE conversation_id > %(after)s ORDER BY 1 LIMIT %(n)s)
    UNION (SELECT conversation_id FROM {lock} WHERE conversation_id > %(after)s ORDER BY 1 LIMIT %(n)s)
    UNION (SELECT conversation_id FROM {fence} WHERE conversation_id > %(after)s ORDER BY 1 LIMIT %(n)s)
) ids ORDER BY s LIMIT %(n)s
"""
_SCOPE = " WHERE conversation_id = ANY(%(sessions)s)"
_WAITING = "SELECT conversation_id, priority, count(*), min(delivered_at) FROM {inbox}{scope} GROUP BY 1, 2"
_CLAIMED = (
    "SELECT conversation_id, id::text, claim_token, claim_attempts, claimed_at FROM {inbox}"
    " WHERE claim_token IS NOT NULL{scope}"
)
_CLAIM_SCOPE = " AND conversation_id = ANY(%(sessions)s)"
_QUARANTINED = "SELECT conversation_id, count(*) FROM {quarantine}{scope} GROUP BY 1"
_LEASES = """
SELECT COALESCE(l.conversation_id, f.conversation_id) AS sid, l.holder_id,
       COALESCE(l.fencing_token, f.next_token - 1), l.acquired_at, l.lease_expires_at,
       l.lease_expires_at > now()
FROM {lock} l FULL OUTER JOIN {fence} f ON f.conversation_id = l.conversation_id
{scope} ORDER BY 1
"""
_LEASE_SCOPE = "WHERE COALESCE(l.conversation_id, f.conversation_id) = ANY(%(sessions)s)"
_Q_COLUMNS = "id, conversation_id, entry_id, error, raw_payload, quarantined_at"
_Q_PAGE = f"SELECT {_Q_COLUMNS} FROM {{quarantine}} WHERE id > %(after)s{{session}} ORDER BY id LIMIT %(n)s"
_Q_FIND = f"SELECT {_Q_COLUMNS} FROM {{quarantine}} WHERE id = %s"


class PostgresInspectionDriver:
    """Inspection of the tables of one PostgreSQL bundle (its pool and schema)."""

    backend = "PostgreSQL"

    def __init__(self, bundle: PostgresSessionBackends) -> None:
        self._bundle = bundle
        self._pool = bundle._pool  # the bundle's pool: its failure translation and first-use checks
        schema = bundle.schema
        self._sessions = qualify(_SESSIONS, schema)
        self._waiting = {s: qualify(_WAITING.replace("{scope}", s), schema) for s in ("", _SCOPE)}
        self._quarantined = {s: qualify(_QUARANTINED.replace("{scope}", s), schema) for s in ("", _SCOPE)}
        self._claimed = {s: qualify(_CLAIMED.replace("{scope}", s), schema) for s in ("", _CLAIM_SCOPE)}
        self._leases = {s: qualify(_LEASES.replace("{scope}", s), schema) for s in ("", _LEASE_SCOPE)}
        page = _Q_PAGE.replace("{{session}}", "{session}")
        self._q_page = {
            False: qualify(page.replace("{session}", ""), schema),
            True: qualify(page.replace("{session}", " AND conversation_id = %(sid)s"), schema),
        }
        self._q_find = qualify(_Q_FIND, schema)

    def _rows(self, query: str, params: Any) -> list[tuple[Any, ...]]:
        with self._pool.connection(AimonStorageError) as conn:
            return conn.execute(query, params).fetchall()

    def server_time(self) -> datetime | None:
        rows = self._rows("SELECT now()", None)
        return rows[0][0] if rows else None

    def sessions_after(self, after: str, limit: int) -> list[str]:
        return [row[0] for row in self._rows(self._sessions, {"after": after, "n": limit})]

    def waiting(self, sessions: Sequence[str] | None) -> Iterator[Waiting]:
        query = self._waiting["" if sessions is None else _SCOPE]
        for sid, priority, count, oldest in self._rows(query, {"sessions": list(sessions or ())}):
            yield sid, priority, int(count), oldest

    def quarantined(self, sessions: Sequence[str] | None) -> Iterator[tuple[str, int]]:
        query = self._quarantined["" if sessions is None else _SCOPE]
        for sid, count in self._rows(query, {"sessions": list(sessions or ())}):
            yield sid, int(count)

    def claimed(self, sessions: Sequence[str] | None) -> Iterator[ClaimedEntry]:
        query = self._claimed["" if sessions is None else _CLAIM_SCOPE]
        for sid, entry_id, token, attempts, at in self._rows(query, {"sessions": list(sessions or ())}):
            yield ClaimedEntry(
                session_id=sid, entry_id=entry_id, claim_token=int(token), attempts=int(attempts), claimed_at=at
            )

    def leases(self, sessions: Sequence[str] | None) -> list[LeaseState]:
        query = self._leases["" if sessions is None else _LEASE_SCOPE]
        rows: list[LeaseState] = []
        for sid, holder, token, acquired, expires, live in self._rows(query, {"sessions": list(sessions or ())}):
            rows.append(
                LeaseState(
                    session_id=sid,
                    state="released" if holder is None else ("held" if live else "expired"),
                    holder_id=holder,
                    fencing_token=None if token is None or token < 1 else int(token),
                    acquired_at=acquired,
                    expires_at=expires,
                )
            )
        return rows

    def quarantine_page(
        self, session_id: str | None, after: str | None, limit: int
    ) -> tuple[list[QuarantinedEntry], str | None]:
        start = 0 if after is None else quarantine_row_id(after)
        if start is None:
            return [], None
        query = self._q_page[session_id is not None]
        rows = self._rows(query, {"after": start, "sid": session_id, "n": limit + 1})
        entries = [_entry(row) for row in rows[:limit]]
        return entries, (entries[-1].id if len(rows) > limit and entries else None)

    def find_quarantined(self, quarantine_id: str) -> QuarantinedEntry | None:
        row_id = quarantine_row_id(quarantine_id)
        rows = [] if row_id is None else self._rows(self._q_find, [row_id])
        return _entry(rows[0]) if rows else None

    def tasks_page(self, query: TaskQuery | None, offset: int, limit: int) -> tuple[list[BackgroundTask], bool]:
        return listed_page(self._bundle.tasks.list(query), offset, limit)

    def close(self) -> None:
        """Nothing to close: the bundle's pool is borrowed."""


def _entry(row: tuple[Any, ...]) -> QuarantinedEntry:
    q_id, sid, entry_id, error, raw, at = row
    return QuarantinedEntry(id=str(q_id), session_id=sid, entry_id=entry_id, error=error, raw=raw, quarantined_at=at)


def schema_exists(bundle: PostgresSessionBackends) -> bool:
    """Whether the bundle's schema holds the session tables (a read must not create them)."""
    with bundle._pool.connection(AimonStorageError) as conn:
        found = conn.execute("SELECT to_regclass(%s)", [f'"{bundle.schema}".{n.PG_CONVERSATION_INBOX}']).fetchone()
    return found is not None and found[0] is not None


def schema_tables(bundle: PostgresSessionBackends) -> list[str]:
    """The tables of the bundle's schema, by name."""
    query = "SELECT table_name FROM information_schema.tables WHERE table_schema = %s ORDER BY 1"
    with bundle._pool.connection(AimonStorageError) as conn:
        return [row[0] for row in conn.execute(query, [bundle.schema]).fetchall()]
