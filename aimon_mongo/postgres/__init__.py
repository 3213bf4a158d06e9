"""PostgreSQL backend of the session stores (psycopg 3; async source in ``_async/``, sync twin generated).

Schema: ``sql/V1__init.sql`` and ``sql/V2__session_log_segment.sql`` (the reference's DDL) plus our
additive ``sql/V3__aimon_additions.sql`` onwards (``V4`` indexes, ``V5`` the token floor, ``V6`` the inbox
claim columns), applied by :func:`ensure_schema` only when asked. Retention:
:meth:`PostgresSessionBackends.sweep` (:class:`SweepReport`).
Each store alone (``AsyncPostgresSessionInbox(pool, schema)`` …) is a factory returning the service over this
backend's driver; the lease, idempotency and signal stores are classes with the retention sweeps; the
drivers (``AsyncPostgresLeaseDriver`` …) are exported too (see :mod:`aimon_mongo.services`).
"""

from typing import TYPE_CHECKING

from aimon_mongo._extras import require_extra
from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo._async.postgres.backends import AsyncPostgresSessionBackends
    from aimon_mongo._async.postgres.idempotency import AsyncPostgresIdempotencyDriver, AsyncPostgresIdempotencyStore
    from aimon_mongo._async.postgres.inbox import AsyncPostgresInboxDriver, AsyncPostgresSessionInbox
    from aimon_mongo._async.postgres.leases import AsyncPostgresLeaseDriver, AsyncPostgresSessionLeaseStore
    from aimon_mongo._async.postgres.records import AsyncPostgresRecordDriver, AsyncPostgresSessionRecordStore
    from aimon_mongo._async.postgres.schema import ensure_schema as ensure_schema_async
    from aimon_mongo._async.postgres.segments import AsyncPostgresSegmentDriver, AsyncPostgresSessionLogSegmentStore
    from aimon_mongo._async.postgres.signals import AsyncPostgresSessionSignalBus, AsyncPostgresSignalDriver
    from aimon_mongo._async.postgres.tasks import AsyncPostgresBackgroundTaskStore, AsyncPostgresTaskDriver
    from aimon_mongo._sync.postgres.backends import PostgresSessionBackends
    from aimon_mongo._sync.postgres.idempotency import PostgresIdempotencyDriver, PostgresIdempotencyStore
    from aimon_mongo._sync.postgres.inbox import PostgresInboxDriver, PostgresSessionInbox
    from aimon_mongo._sync.postgres.leases import PostgresLeaseDriver, PostgresSessionLeaseStore
    from aimon_mongo._sync.postgres.records import PostgresRecordDriver, PostgresSessionRecordStore
    from aimon_mongo._sync.postgres.schema import ensure_schema
    from aimon_mongo._sync.postgres.segments import PostgresSegmentDriver, PostgresSessionLogSegmentStore
    from aimon_mongo._sync.postgres.signals import PostgresSessionSignalBus, PostgresSignalDriver
    from aimon_mongo._sync.postgres.tasks import PostgresBackgroundTaskStore, PostgresTaskDriver
    from aimon_mongo.postgres.replication import ReplicationGuard, ReplicationReport
    from aimon_mongo.postgres.retention import SweepReport

require_extra("aimon_mongo.postgres", "postgres", "psycopg", "psycopg_pool")

__all__ = [
    "AsyncPostgresBackgroundTaskStore",
    "AsyncPostgresIdempotencyDriver",
    "AsyncPostgresIdempotencyStore",
    "AsyncPostgresInboxDriver",
    "AsyncPostgresLeaseDriver",
    "AsyncPostgresRecordDriver",
    "AsyncPostgresSegmentDriver",
    "AsyncPostgresSessionBackends",
    "AsyncPostgresSessionInbox",
    "AsyncPostgresSessionLeaseStore",
    "AsyncPostgresSessionLogSegmentStore",
    "AsyncPostgresSessionRecordStore",
    "AsyncPostgresSessionSignalBus",
    "AsyncPostgresSignalDriver",
    "AsyncPostgresTaskDriver",
    "PostgresBackgroundTaskStore",
    "PostgresIdempotencyDriver",
    "PostgresIdempotencyStore",
    "PostgresInboxDriver",
    "PostgresLeaseDriver",
    "PostgresRecordDriver",
    "PostgresSegmentDriver",
    "PostgresSessionBackends",
    "PostgresSessionInbox",
    "PostgresSessionLeaseStore",
    "PostgresSessionLogSegmentStore",
    "PostgresSessionRecordStore",
    "PostgresSessionSignalBus",
    "PostgresSignalDriver",
    "PostgresTaskDriver",
    "ReplicationGuard",
    "ReplicationReport",
    "SweepReport",
    "ensure_schema",
    "ensure_schema_async",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "AsyncPostgresBackgroundTaskStore": "aimon_mongo._async.postgres.tasks",
            "AsyncPostgresIdempotencyDriver": "aimon_mongo._async.postgres.idempotency",
            "AsyncPostgresIdempotencyStore": "aimon_mongo._async.postgres.idempotency",
            "AsyncPostgresInboxDriver": "aimon_mongo._async.postgres.inbox",
            "AsyncPostgresLeaseDriver": "aimon_mongo._async.postgres.leases",
            "AsyncPostgresRecordDriver": "aimon_mongo._async.postgres.records",
            "AsyncPostgresSegmentDriver": "aimon_mongo._async.postgres.segments",
            "AsyncPostgresSessionBackends": "aimon_mongo._async.postgres.backends",
            "AsyncPostgresSessionInbox": "aimon_mongo._async.postgres.inbox",
            "AsyncPostgresSessionLeaseStore": "aimon_mongo._async.postgres.leases",
            "AsyncPostgresSessionLogSegmentStore": "aimon_mongo._async.postgres.segments",
            "AsyncPostgresSessionRecordStore": "aimon_mongo._async.postgres.records",
            "AsyncPostgresSessionSignalBus": "aimon_mongo._async.postgres.signals",
            "AsyncPostgresSignalDriver": "aimon_mongo._async.postgres.signals",
            "AsyncPostgresTaskDriver": "aimon_mongo._async.postgres.tasks",
            "PostgresBackgroundTaskStore": "aimon_mongo._sync.postgres.tasks",
            "PostgresIdempotencyDriver": "aimon_mongo._sync.postgres.idempotency",
            "PostgresIdempotencyStore": "aimon_mongo._sync.postgres.idempotency",
            "PostgresInboxDriver": "aimon_mongo._sync.postgres.inbox",
            "PostgresLeaseDriver": "aimon_mongo._sync.postgres.leases",
            "PostgresRecordDriver": "aimon_mongo._sync.postgres.records",
            "PostgresSegmentDriver": "aimon_mongo._sync.postgres.segments",
            "PostgresSessionBackends": "aimon_mongo._sync.postgres.backends",
            "PostgresSessionInbox": "aimon_mongo._sync.postgres.inbox",
            "PostgresSessionLeaseStore": "aimon_mongo._sync.postgres.leases",
            "PostgresSessionLogSegmentStore": "aimon_mongo._sync.postgres.segments",
            "PostgresSessionRecordStore": "aimon_mongo._sync.postgres.records",
            "PostgresSessionSignalBus": "aimon_mongo._sync.postgres.signals",
            "PostgresSignalDriver": "aimon_mongo._sync.postgres.signals",
            "PostgresTaskDriver": "aimon_mongo._sync.postgres.tasks",
            "ReplicationGuard": "aimon_mongo.postgres.replication",
            "ReplicationReport": "aimon_mongo.postgres.replication",
            "SweepReport": "aimon_mongo.postgres.retention",
            "ensure_schema": "aimon_mongo._sync.postgres.schema",
            "ensure_schema_async": "aimon_mongo._async.postgres.schema:ensure_schema",
        },
    )
