"""PostgreSQL signal driver: rows in ``conversation_signal`` plus a NOTIFY doorbell carrying only the row id.

Publishing inserts the row (one autocommit statement), then rings the doorbell with a separate
``SELECT pg_notify('conversation_signal_doorbell', '<id>')`` on the same connection: the doorbell rings only
for a row already committed, and the insert's commit does not wait for the server-wide lock a NOTIFY-ing
transaction holds through its commit (publishers' inserts group-commit instead of flushing one at a time).
A ring that fails after the insert committed is logged, not raised: the signal is published, and the
listeners' self-poll picks it up (a retried publish would deliver it twice). A ``publish_many`` chunk is
one statement: all its rows or none (``chunks_are_atomic``). The feed is
:class:`~aimon_mongo._async.postgres.listener.AsyncSignalListener`, started by the first ``subscribe``.
Rows persist, so a node that was disconnected catches up from its last id; old rows are removed by
:meth:`AsyncPostgresSessionSignalBus.sweep_older_than`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import psycopg

from aimon_mongo import names as n
from aimon_mongo._async.postgres.listener import AsyncSignalListener, FetchedRow
from aimon_mongo._async.postgres.pool import AsyncPgPool
from aimon_mongo._async.postgres.retention import sweep_in_batches
from aimon_mongo._async.services.signals import AsyncSignalBus, Deliver
from aimon_mongo.codec.json_text import compact_json
from aimon_mongo.codec.signal import decode_signal, encode_signal
from aimon_mongo.errors import SignalBusError
from aimon_mongo.exported import exported_from
from aimon_mongo.model import SessionSignal
from aimon_mongo.postgres import retention
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.validate import require_aware

log = logging.getLogger(__name__)

PUBLISH_CHUNK = 256
"""Signals per ``publish_all`` statement (each chunk is its own transaction)."""

_PUBLISH = """
INSERT INTO {signal} (conversation_id, kind, origin_node_id, payload)
VALUES (%s, %s, %s, %s::jsonb) RETURNING id
"""
# One statement text whatever the chunk size: four arrays, inserted in list order (WITH ORDINALITY); the
# chunk's highest id is what its one doorbell carries.
_PUBLISH_MANY = """
WITH ins AS (
    INSERT INTO {signal} (conversation_id, kind, origin_node_id, payload)
    SELECT c, k, o, p::jsonb
    FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[]) WITH ORDINALITY AS t(c, k, o, p, ord)
    ORDER BY ord
    RETURNING id
)
SELECT max(id) FROM ins
"""
_RING = "SELECT pg_notify(%s, %s)"

Row = tuple[str, str, str, str]
"""``(conversation_id, kind, origin_node_id, payload JSON text)``: one signal as inserted."""


@exported_from("aimon_mongo.postgres")
class AsyncPostgresSignalDriver:
    """Signal primitives of PostgreSQL; the feed is its :attr:`listener` (see the module text)."""

    delivers_missed_signals = True
    publish_chunk = PUBLISH_CHUNK
    chunks_are_atomic = True

    def __init__(self, pool: AsyncPgPool, schema: str, node_id: str) -> None:
        self.node_id = node_id
        self.failures: Failures = pool.failures
        self.pool = pool
        self._publish = qualify(_PUBLISH, schema)
        self._publish_many = qualify(_PUBLISH_MANY, schema)
        self.sweep = qualify(retention.SIGNALS, schema)
        """The retention ``DELETE`` of one batch."""
        self.listener = self.watch = AsyncSignalListener(pool, schema, node_id)

    def __repr__(self) -> str:
        return located(self, self.pool.endpoint)

    def encode(self, signal: SessionSignal) -> Row:
        doc = encode_signal(signal)
        return doc[n.SIG_CONVERSATION_ID], doc[n.SIG_KIND], doc[n.SIG_ORIGIN_NODE_ID], compact_json(doc[n.SIG_PAYLOAD])

    async def publish(self, raw: Row) -> None:
        """Insert the row, then ring the doorbell (two statements, see the module text)."""
        async with self.pool.connection() as conn:
            await self._insert_and_ring(conn, self._publish, raw)

    async def publish_many(self, raws: Sequence[Row]) -> None:
        """One insert statement for the chunk, one doorbell."""
        columns = [list(column) for column in zip(*raws, strict=True)]
        async with self.pool.connection() as conn:
            await self._insert_and_ring(conn, self._publish_many, columns)

    async def _insert_and_ring(self, conn: psycopg.AsyncConnection[Any], insert: str, params: Sequence[Any]) -> None:
        cur = await conn.execute(insert, params)
        row = await cur.fetchone()
        if row is None or row[0] is None:
            return
        try:
            await conn.execute(_RING, [n.PG_SIGNAL_DOORBELL_CHANNEL, str(row[0])])
        except (psycopg.Error, OSError) as exc:  # the row is committed: listeners find it on their self-poll
            log.warning("signal row %s published, but its doorbell failed (%s)", row[0], type(exc).__name__)

    def decode(self, raw: FetchedRow) -> SessionSignal:
        _, session_id, kind, origin, payload = raw
        return decode_signal(
            {
                n.SIG_CONVERSATION_ID: session_id,
                n.SIG_KIND: kind,
                n.SIG_ORIGIN_NODE_ID: origin,
                n.SIG_PAYLOAD: json.loads(payload) if payload is not None else None,
            }
        )

    def describe(self, raw: FetchedRow) -> str:
        return f"row {raw[0]} of session {raw[1]}"

    async def follow(self, session_id: str) -> None:
        """Nothing to do: the listener reads ``sessions()`` on every fetch."""

    async def unfollow(self, session_id: str) -> None:
        """As :meth:`follow`."""

    async def confirmed(self, session_id: str, timeout: float) -> bool:
        return True  # every fetch from the listener's position on takes the session

    async def start(self, deliver: Deliver, sessions: Callable[[], list[str]]) -> None:
        await self.listener.start(deliver, sessions)

    async def stop(self) -> None:
        await self.listener.stop()


@exported_from("aimon_mongo.postgres")
class AsyncPostgresSessionSignalBus(AsyncSignalBus):
    """Cross-node signals on PostgreSQL. A node never receives its own signals; signals published while a
    node was disconnected are delivered when it reconnects (``delivers_missed_signals``)."""

    def __init__(self, pool: AsyncPgPool, schema: str, node_id: str) -> None:
        self._pg = AsyncPostgresSignalDriver(pool, schema, node_id)
        super().__init__(self._pg)

    @property
    def listener(self) -> AsyncSignalListener:
        """The LISTEN side (its ``reconnects`` and ``backend_pid`` are for operators and tests)."""
        return self._pg.listener

    async def sweep_older_than(self, cutoff: datetime, *, batch_size: int = retention.DEFAULT_BATCH_SIZE) -> int:
        """Delete signal rows created before ``cutoff`` (retention), ``batch_size`` rows per statement;
        returns how many were removed."""
        cutoff = require_aware(cutoff, "cutoff")
        return await sweep_in_batches(self._pg.pool, SignalBusError, self._pg.sweep, {"cutoff": cutoff}, batch_size)
