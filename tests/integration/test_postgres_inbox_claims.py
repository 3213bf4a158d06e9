"""PostgreSQL acknowledged delivery, read back raw and counted on the wire: the V6 claim columns against
literals; ``claim``, ``acknowledge``, ``quarantine_entries`` and ``sessions_with_entries`` one statement
(one ``Sync``, one round trip) each, counted in libpq's protocol trace; a reference-style collect still takes
claimed rows."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from aimon_mongo.postgres import PostgresSessionBackends
from aimon_mongo.schema_gate import assert_conforms
from tests.conformance.helpers import message, new_id


class Wire:
    """The frontend messages libpq sent on the one connection of a pool (its protocol trace)."""

    def __init__(self) -> None:
        self.fd, self.path = tempfile.mkstemp(prefix="pgtrace-")
        self._mark = 0

    def configure(self, conn: psycopg.Connection[Any]) -> None:
        conn.pgconn.trace(self.fd)
        conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE)

    def start(self) -> None:
        self._mark = os.path.getsize(self.path)

    def sent(self) -> list[str]:
        """The message types sent since :meth:`start` (``Parse``, ``Bind``, ``Sync``, ``Query`` ...)."""
        with open(self.path, encoding="utf-8", errors="replace") as trace:
            trace.seek(self._mark)
            return [line.split("\t")[2] for line in trace.read().splitlines() if line.startswith("F\t")]

    def round_trips(self) -> int:
        """Each ``Sync`` (extended protocol) or ``Query`` (simple protocol) waits for the server once."""
        return sum(1 for kind in self.sent() if kind in ("Sync", "Query"))

    def close(self) -> None:
        os.close(self.fd)
        os.unlink(self.path)


@pytest.fixture
def traced(postgres_dsn: str, pg_schema: str) -> Iterator[tuple[Wire, Any, str]]:
    wire = Wire()
    pool = ConnectionPool(
        postgres_dsn, min_size=1, max_size=1, configure=wire.configure, kwargs={"autocommit": True}, open=True
    )
    bundle = PostgresSessionBackends(pool, "node-a", schema=pg_schema, replication_guard="off")
    try:
        yield wire, bundle.inbox, pg_schema
    finally:
        pool.close()
        wire.close()


def test_each_primitive_is_one_statement(traced: tuple[Wire, Any, str]) -> None:
    wire, inbox, _ = traced
    session = new_id()
    ids = inbox.deliver_many([message(session, turn_id=str(i)) for i in range(5)])
    wire.start()
    assert [m.id for m in inbox.claim(session, 3).messages] == ids
    assert wire.round_trips() == 1 and wire.sent().count("Parse") == 1
    wire.start()
    assert inbox.acknowledge(session, 3, ids[:3]) == 3
    assert wire.round_trips() == 1
    wire.start()
    assert inbox.quarantine_entries(session, ids[3:], "handler raised") == 2
    assert wire.round_trips() == 1
    inbox.deliver(message(session))
    wire.start()
    assert session in inbox.sessions_with_entries(after=session[:-1], limit=1).session_ids
    assert wire.round_trips() == 1
    poison = inbox.deliver(message(session, turn_id="p"))
    inbox.claim(session, 4, max_attempts=1)
    wire.start()
    batch = inbox.claim(session, 5, max_attempts=1)  # quarantine and hand-out in the same statement
    assert poison in batch.quarantined and wire.round_trips() == 1


def _row(pg_conn: psycopg.Connection[Any], schema: str, row_id: str) -> dict[str, Any]:
    cur = pg_conn.execute(f'SELECT * FROM "{schema}".conversation_inbox WHERE id = %s', [int(row_id)])
    names = [column.name for column in cur.description or []]
    found = cur.fetchone()
    assert found is not None
    return dict(zip(names, found, strict=True))


def test_claim_columns_are_stored_as_frozen_literals(traced: tuple[Wire, Any, str], pg_conn: Any) -> None:
    _, inbox, schema = traced
    session = new_id()
    entry_id = inbox.deliver(message(session, turn_id="a"))
    fresh = _row(pg_conn, schema, entry_id)
    assert list(fresh) == [
        "id", "conversation_id", "agent_ref", "priority", "payload", "delivered_at",
        "claim_token", "claim_attempts", "claimed_at",
    ]  # fmt: skip
    assert (fresh["claim_token"], fresh["claim_attempts"], fresh["claimed_at"]) == (None, 0, None)
    inbox.claim(session, 41)
    inbox.claim(session, 42)
    row = _row(pg_conn, schema, entry_id)
    assert (row["claim_token"], row["claim_attempts"]) == (42, 2) and isinstance(row["claimed_at"], datetime)
    assert_conforms("postgres.inbox.row", row)


def test_a_reference_collect_still_takes_claimed_rows(traced: tuple[Wire, Any, str], pg_conn: Any) -> None:
    """The reference's collect statement (V1 columns only) knows nothing of claims: it deletes claimed rows
    too — a redelivery, never a loss; the claiming holder's acknowledgement then removes nothing."""
    _, inbox, schema = traced
    session = new_id()
    ids = inbox.deliver_many([message(session, turn_id=t) for t in ("a", "b")])
    inbox.claim(session, 8)
    rows = pg_conn.execute(
        f'DELETE FROM "{schema}".conversation_inbox WHERE id IN (SELECT id FROM "{schema}".conversation_inbox '
        "WHERE conversation_id = %s ORDER BY priority, id LIMIT 64) RETURNING id, priority, payload",
        [session],
    ).fetchall()
    assert sorted(str(row[0]) for row in rows) == ids
    assert inbox.acknowledge(session, 8, ids) == 0 and inbox.is_empty(session)


def test_a_reference_insert_reads_as_unclaimed(traced: tuple[Wire, Any, str], pg_conn: Any) -> None:
    """A row inserted by the reference (naming none of the V6 columns) takes the defaults: unclaimed."""
    _, inbox, schema = traced
    session = new_id()
    entry_id = inbox.deliver(message(session, turn_id="ours"))
    payload = pg_conn.execute(
        f'SELECT payload::text FROM "{schema}".conversation_inbox WHERE id = %s', [int(entry_id)]
    ).fetchone()[0]
    (ref_id,) = pg_conn.execute(
        f'INSERT INTO "{schema}".conversation_inbox (conversation_id, agent_ref, priority, payload) '
        "VALUES (%s, 'assistant', 1, %s::jsonb) RETURNING id",
        [session, payload],
    ).fetchone()
    batch = inbox.claim(session, 2)
    assert batch.attempts == {entry_id: 1, str(ref_id): 1}
