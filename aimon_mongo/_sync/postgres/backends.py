# GENERATED from aimon_mongo/_async/postgres/backends.py by scripts/gen_sync.py; do not edit.
"""All seven PostgreSQL stores of one node, built from one connection string (or pool) and one node id."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any, Final

import psycopg
from psycopg_pool import ConnectionPool

from aimon_mongo import names as n
from aimon_mongo._sync.bundle import ClosingBundle
from aimon_mongo._sync.postgres.idempotency import DEFAULT_DONE_TTL, PostgresIdempotencyStore
from aimon_mongo._sync.postgres.inbox import PostgresInboxDriver
from aimon_mongo._sync.postgres.leases import PostgresSessionLeaseStore
from aimon_mongo._sync.postgres.pool import DEFAULT_MAX_SIZE, DEFAULT_MIN_SIZE, DEFAULT_TIMEOUT, PgPool
from aimon_mongo._sync.postgres.records import PostgresRecordDriver
from aimon_mongo._sync.postgres.schema import apply_migrations
from aimon_mongo._sync.postgres.segments import PostgresSegmentDriver
from aimon_mongo._sync.postgres.signals import PostgresSessionSignalBus
from aimon_mongo._sync.postgres.tasks import PostgresTaskDriver
from aimon_mongo._sync.services.inbox import Inbox
from aimon_mongo._sync.services.records import RecordStore
from aimon_mongo._sync.services.segments import SegmentStore
from aimon_mongo._sync.services.tasks import TaskStore
from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.errors import InvalidArgumentError, ReplicationGuardError, SchemaMigrationError, SignalBusError
from aimon_mongo.exported import exported_from
from aimon_mongo.postgres import retention
from aimon_mongo.postgres.failures import translate
from aimon_mongo.postgres.migrations import require_schema_name
from aimon_mongo.postgres.replication import (
    DEFAULT_GUARD,
    REPORT_SQL,
    ReplicationGuard,
    ReplicationReport,
    report_from_row,
    require_guard,
    verdict,
)
from aimon_mongo.postgres.retention import SweepReport
from aimon_mongo.validate import require_id, require_limit, require_positive

DEFAULT_SIGNAL_RETENTION = timedelta(hours=1)
"""How long :meth:`PostgresSessionBackends.sweep` keeps signal rows (a node disconnected for longer
misses what was swept meanwhile)."""
DEFAULT_LAPSED_LOCK_GRACE = timedelta(hours=1)
"""How long after its lease lapsed :meth:`PostgresSessionBackends.sweep` keeps a lock row."""

log = logging.getLogger(__name__)


@exported_from("aimon_mongo.postgres")
class PostgresSessionBackends(ClosingBundle):
    """The session stores on PostgreSQL.

    ``source`` is a connection string (the bundle then owns a pool of autocommit connections, opened on
    first use and closed by :meth:`close`) or an :class:`ConnectionPool` (borrowed, left open).
    ``schema`` (default ``aimon_session``) must already hold the tables: call :meth:`ensure_schema` (or
    apply ``sql/V*.sql`` by hand) once per deployment; the stores never run DDL themselves. ``clock``
    stamps what callers see (task end times, idempotency touch times); expiry and ordering use the
    database clock. The signal bus keeps one extra connection outside the pool for LISTEN. Connections
    the bundle opens carry ``application_name`` = ``aimon-mongo <node_id>`` (see ``pg_stat_activity``).

    ``replication_guard`` keeps fencing tokens failover-safe (docs/guarantees.md, "Failover"): unless
    ``"off"``, lease acquisitions commit with ``synchronous_commit = on``, and the bundle's first use reads
    the server's replication settings (:attr:`replication_report`) before anything else runs. Without a
    connected synchronous standby, ``"require"`` refuses every operation with
    :class:`~aimon_mongo.errors.ReplicationGuardError` naming the settings, ``"warn"`` (default) logs one
    WARN naming them and the risk, ``"off"`` neither checks nor waits.
    Behind a transaction-mode pooler (PgBouncer): pass ``pooled=True`` (no statement is ever prepared)
    and ``listen_dsn``, a connection string that reaches the server directly, for the LISTEN connection
    (through the pooler the listener never hears a doorbell and falls back to its 5 s self-poll).
    ``ensure_schema=True`` applies the pending migrations (:meth:`ensure_schema`) on the bundle's first use,
    before anything else runs (what :func:`aimon_mongo.open_backends` passes for ``ensure_schema=True``).
    """

    def __init__(
        self,
        source: str | ConnectionPool[Any],
        node_id: str,
        *,
        schema: str = n.PG_DEFAULT_SCHEMA,
        clock: Clock | None = None,
        idempotency_done_ttl: timedelta = DEFAULT_DONE_TTL,
        pool_min_size: int = DEFAULT_MIN_SIZE,
        pool_max_size: int = DEFAULT_MAX_SIZE,
        timeout: float = DEFAULT_TIMEOUT,
        replication_guard: ReplicationGuard = DEFAULT_GUARD,
        pooled: bool = False,
        listen_dsn: str | None = None,
        ensure_schema: bool = False,
    ) -> None:
        self.node_id = require_id(node_id, "node_id")
        if not isinstance(ensure_schema, bool):
            raise InvalidArgumentError(f"ensure_schema must be a bool, got {type(ensure_schema).__name__}")
        self._migrate_first = ensure_schema
        self.schema = require_schema_name(schema)
        self.replication_guard = require_guard(replication_guard)
        self._report: ReplicationReport | None = None
        self._clock = clock or system_clock
        self._pool = PgPool(
            source,
            min_size=pool_min_size,
            max_size=pool_max_size,
            timeout=timeout,
            application_name=f"aimon-mongo {self.node_id}"[:63],
            first_use=self._first_use if ensure_schema or self.replication_guard != "off" else None,
            pooled=pooled,
            listen_dsn=listen_dsn,
        )
        self.inbox: Final = Inbox(PostgresInboxDriver(self._pool, schema))
        self.leases: Final = PostgresSessionLeaseStore(
            self._pool, schema, synchronous=self.replication_guard != "off"
        )
        self.signals: Final = PostgresSessionSignalBus(self._pool, schema, self.node_id)
        self.idempotency: Final = PostgresIdempotencyStore(self._pool, schema, self._clock, idempotency_done_ttl)
        self.tasks: Final = TaskStore(PostgresTaskDriver(self._pool, schema), self._clock)
        self.records: Final = RecordStore(PostgresRecordDriver(self._pool, schema))
        self.segments: Final = SegmentStore(PostgresSegmentDriver(self._pool, schema))

    @property
    def endpoint(self) -> str:
        """``host:port`` of the server (as named in errors)."""
        return self._pool.endpoint

    @property
    def replication_report(self) -> ReplicationReport | None:
        """What the replication check read (``None`` before the first use, and with the guard ``"off"``
        until :meth:`check_replication` is called)."""
        return self._report

    def check_replication(self) -> ReplicationReport:
        """Run the replication check now (it otherwise runs at the first use) and return its report;
        refuses like any first use with ``"require"``. With ``"off"`` it reads the report, judges nothing."""
        with self._pool.connection(ReplicationGuardError) as conn:
            if self._report is None:
                self._report = _read_report(conn)
        return self._report

    def _first_use(self, conn: psycopg.Connection[Any]) -> None:
        # The pool runs this until it returns once: the migrations (when asked), then the replication check.
        if self._migrate_first:
            try:
                apply_migrations(conn, self.schema)
            except psycopg.Error as exc:
                raise translate(exc, SchemaMigrationError, self.endpoint) from exc
            self._migrate_first = False
        if self.replication_guard != "off":
            self._judge_replication(conn)

    def _judge_replication(self, conn: psycopg.Connection[Any]) -> None:
        # The pool runs this until it returns once: a refusal is judged again at the next use.
        self._report = report = _read_report(conn)
        message = verdict(report, self.replication_guard, self.endpoint)
        if message is None:
            log.info(
                "PostgreSQL at %s: acquisitions wait for a synchronous standby (%s)", self.endpoint, report.describe()
            )
        elif self.replication_guard == "require":
            raise ReplicationGuardError(message)
        else:
            log.warning("%s", message)

    def ensure_schema(self) -> list[int]:
        """Apply pending migrations to this bundle's schema; returns the versions applied (see
        :func:`~aimon_mongo.postgres.ensure_schema`)."""
        with self._pool.connection(SchemaMigrationError) as conn:
            return apply_migrations(conn, self.schema)

    def sweep(
        self,
        *,
        signals_older_than: timedelta = DEFAULT_SIGNAL_RETENTION,
        locks_lapsed_for: timedelta = DEFAULT_LAPSED_LOCK_GRACE,
        fences: bool = True,
        batch_size: int = retention.DEFAULT_BATCH_SIZE,
    ) -> SweepReport:
        """Retention for every table that grows, ``batch_size`` rows per statement (each its own
        transaction): signal rows older than ``signals_older_than`` (by database time), idempotency rows
        past ``expires_at``, lock rows lapsed longer than ``locks_lapsed_for``, then (``fences``) the fence
        rows of sessions with nothing left — without a token ever going backwards (see
        :mod:`aimon_mongo.postgres.retention`). Safe to run on several nodes at once; schedule it."""
        require_positive(signals_older_than, "signals_older_than")
        require_positive(locks_lapsed_for, "locks_lapsed_for")
        if not isinstance(fences, bool):
            raise InvalidArgumentError(f"fences must be a bool, got {type(fences).__name__}")
        require_limit(batch_size, "batch_size")
        with self._pool.connection(SignalBusError) as conn:
            cur = conn.execute("SELECT now()")
            row = cur.fetchone()
        assert row is not None
        signals = self.signals.sweep_older_than(row[0] - signals_older_than, batch_size=batch_size)
        idempotency = self.idempotency.sweep_expired(batch_size=batch_size)
        lapsed = self.leases.sweep_lapsed(locks_lapsed_for, batch_size=batch_size)
        counters, session_fences = self.leases.sweep_idle_fences(batch_size=batch_size) if fences else (0, 0)
        return SweepReport(signals, idempotency, lapsed, counters, session_fences)

    def close(self) -> None:
        """Stop the signal listener and close the pool if it is ours. Idempotent."""
        self.signals.close()
        self._pool.close()


def _read_report(conn: psycopg.Connection[Any]) -> ReplicationReport:
    cur = conn.execute(REPORT_SQL)
    row = cur.fetchone()
    if row is None:  # one row always: an aggregate over a LEFT JOIN
        raise ReplicationGuardError("the replication check returned no row")
    return report_from_row(tuple(row))
