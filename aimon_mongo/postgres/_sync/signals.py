# GENERATED from aimon_mongo/postgres/_async/signals.py by scripts/gen_sync.py; do not edit.
"""PostgreSQL signal bus: rows in ``conversation_signal`` plus a NOTIFY doorbell carrying only the row id.

Publishing inserts the row (one autocommit statement), then rings the doorbell with a separate
``SELECT pg_notify('conversation_signal_doorbell', '<id>')`` on the same connection: the doorbell rings only
for a row already committed, and the insert's commit does not wait for the server-wide lock a NOTIFY-ing
transaction holds through its commit (publishers' inserts group-commit instead of flushing one at a time).
A ring that fails after the insert committed is logged, not raised: the signal is published, and the
listeners' self-poll picks it up (a retried publish would deliver it twice). Receiving
is :class:`~aimon_mongo.postgres._sync.listener.SignalListener`, started by the first
``subscribe``. Rows persist, so a node that was disconnected catches up from its last id; old rows are
removed by :meth:`PostgresSessionSignalBus.sweep_older_than`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import psycopg

from aimon_mongo import names as n
from aimon_mongo._sync.ports import SignalHandler
from aimon_mongo._sync.subscription import HubSubscription
from aimon_mongo._sync_runtime import Lock
from aimon_mongo.codec._fields import compact_json
from aimon_mongo.codec.signal import decode_signal, encode_signal
from aimon_mongo.errors import BackendUnavailable, CodecError, InvalidArgumentError, SignalBusError
from aimon_mongo.model import SessionSignal
from aimon_mongo.postgres import retention
from aimon_mongo.postgres._sync.listener import SignalListener, FetchedRow
from aimon_mongo.postgres._sync.pool import PgPool
from aimon_mongo.postgres._sync.retention import sweep_in_batches
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.signal_hub import SignalHub
from aimon_mongo.validate import require_aware, require_id, require_signal

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


class PostgresSessionSignalBus:
    """Cross-node signals on PostgreSQL. A node never receives its own signals; signals published while a
    node was disconnected are delivered when it reconnects (``delivers_missed_signals``)."""

    delivers_missed_signals = True

    def __init__(self, pool: PgPool, schema: str, node_id: str) -> None:
        self.node_id = node_id
        self._pool = pool
        self._publish = qualify(_PUBLISH, schema)
        self._publish_many = qualify(_PUBLISH_MANY, schema)
        self._ring = _RING
        self._sweep = qualify(retention.SIGNALS, schema)
        self._hub = SignalHub()
        self._lock = Lock()
        self._closed = False
        self.listener = SignalListener(pool, schema, node_id, self._hub.sessions, self._dispatch)
        self._listening = False

    def publish(self, signal: SessionSignal) -> None:
        """Insert the row, then ring the doorbell (two statements, see the module text)."""
        params = _row(signal)
        self._check_open()
        with self._pool.connection(SignalBusError) as conn:
            self._insert_and_ring(conn, self._publish, params)

    def publish_all(self, signals: Sequence[SessionSignal]) -> None:
        """Publish in list order, :data:`PUBLISH_CHUNK` rows per insert statement (one doorbell each).

        Every signal is encoded before a connection is taken (an unencodable one fails alone). When a
        chunk's statement is refused, the chunk is published again one by one so only the bad signal
        fails; an unreachable server stops the call at once. Failures are raised together at the end.
        """
        rows = []
        failures: list[str] = []
        for index, signal in enumerate(signals):
            try:
                rows.append(_row(signal))
            except (CodecError, InvalidArgumentError) as exc:
                failures.append(f"signal {index}: {exc}")
        self._check_open()
        for start in range(0, len(rows), PUBLISH_CHUNK):
            chunk = rows[start : start + PUBLISH_CHUNK]
            columns = [list(column) for column in zip(*chunk, strict=True)]
            try:
                with self._pool.connection(SignalBusError) as conn:
                    self._insert_and_ring(conn, self._publish_many, columns)
            except BackendUnavailable:
                raise
            except SignalBusError:
                for offset, params in enumerate(chunk):
                    try:
                        with self._pool.connection(SignalBusError) as conn:
                            self._insert_and_ring(conn, self._publish, params)
                    except BackendUnavailable:
                        raise
                    except SignalBusError as exc:
                        failures.append(f"signal {start + offset}: {exc}")
        if failures:
            summary = "; ".join(failures)
            raise SignalBusError(f"{len(failures)} of {len(signals)} signals were not published: {summary}")

    def _insert_and_ring(self, conn: psycopg.Connection[Any], insert: str, params: Sequence[Any]) -> None:
        cur = conn.execute(insert, params)
        row = cur.fetchone()
        if row is None or row[0] is None:
            return
        try:
            conn.execute(self._ring, [n.PG_SIGNAL_DOORBELL_CHANNEL, str(row[0])])
        except (psycopg.Error, OSError) as exc:  # the row is committed: listeners find it on their self-poll
            log.warning("signal row %s published, but its doorbell failed (%s)", row[0], type(exc).__name__)

    def subscribe(self, session_id: str, handler: SignalHandler) -> HubSubscription:
        """Call ``handler`` for every signal of the session published by another node from now on."""
        require_id(session_id, "session_id")
        if not callable(handler):
            raise InvalidArgumentError(f"handler must be callable, got {type(handler).__name__}")
        self._check_open()
        with self._lock:
            if not self._listening:
                self.listener.start()
                self._listening = True
        return HubSubscription(self._hub, session_id, self._hub.add(session_id, self.node_id, handler))

    def sweep_older_than(self, cutoff: datetime, *, batch_size: int = retention.DEFAULT_BATCH_SIZE) -> int:
        """Delete signal rows created before ``cutoff`` (retention), ``batch_size`` rows per statement;
        returns how many were removed."""
        cutoff = require_aware(cutoff, "cutoff")
        return sweep_in_batches(self._pool, SignalBusError, self._sweep, {"cutoff": cutoff}, batch_size)

    def close(self) -> None:
        """Stop the listener; publishing afterwards raises. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            listening, self._listening = self._listening, False
        if listening:
            self.listener.stop()

    def _dispatch(self, rows: Sequence[FetchedRow]) -> None:
        for row_id, session_id, kind, origin, payload in rows:
            handlers = self._hub.receivers(session_id, origin)
            if not handlers:
                continue
            try:
                signal = decode_signal(
                    {
                        n.SIG_CONVERSATION_ID: session_id,
                        n.SIG_KIND: kind,
                        n.SIG_ORIGIN_NODE_ID: origin,
                        n.SIG_PAYLOAD: json.loads(payload) if payload is not None else None,
                    }
                )
            except (CodecError, ValueError) as exc:
                log.warning("signal row %d of session %s skipped: %s", row_id, session_id, exc)
                continue
            for handler in handlers:
                try:
                    handler(signal)
                except Exception:
                    log.exception("signal handler for session %s failed on row %d", session_id, row_id)

    def _check_open(self) -> None:
        if self._closed:
            raise SignalBusError(f"signal bus of node {self.node_id} is closed")


def _row(signal: SessionSignal) -> tuple[Any, ...]:
    require_signal(signal)
    doc = encode_signal(signal)
    return (
        doc[n.SIG_CONVERSATION_ID],
        doc[n.SIG_KIND],
        doc[n.SIG_ORIGIN_NODE_ID],
        compact_json(doc[n.SIG_PAYLOAD]),
    )
