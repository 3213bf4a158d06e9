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
    from aimon_mongo.postgres._async.backends import AsyncPostgresSessionBackends
    from aimon_mongo.postgres._async.idempotency import AsyncPostgresIdempotencyDriver, AsyncPostgresIdempotencyStore
    from aimon_mongo.postgres._async.inbox import AsyncPostgresInboxDriver, AsyncPostgresSessionInbox
    from aimon_mongo.postgres._async.leases import AsyncPostgresLeaseDriver, AsyncPostgresSessionLeaseStore
    from aimon_mongo.postgres._async.records import AsyncPostgresRecordDriver, AsyncPostgresSessionRecordStore
    from aimon_mongo.postgres._async.schema import ensure_schema as ensure_schema_async
    from aimon_mongo.postgres._async.segments import AsyncPostgresSegmentDriver, AsyncPostgresSessionLogSegmentStore
    from aimon_mongo.postgres._async.signals import AsyncPostgresSessionSignalBus, AsyncPostgresSignalDriver
    from aimon_mongo.postgres._async.tasks import AsyncPostgresBackgroundTaskStore, AsyncPostgresTaskDriver
    from aimon_mongo.postgres._sync.backends import PostgresSessionBackends
    from aimon_mongo.postgres._sync.idempotency import PostgresIdempotencyDriver, PostgresIdempotencyStore
    from aimon_mongo.postgres._sync.inbox import PostgresInboxDriver, PostgresSessionInbox
    from aimon_mongo.postgres._sync.leases import PostgresLeaseDriver, PostgresSessionLeaseStore
    from aimon_mongo.postgres._sync.records import PostgresRecordDriver, PostgresSessionRecordStore
    from aimon_mongo.postgres._sync.schema import ensure_schema
    from aimon_mongo.postgres._sync.segments import PostgresSegmentDriver, PostgresSessionLogSegmentStore
    from aimon_mongo.postgres._sync.signals import PostgresSessionSignalBus, PostgresSignalDriver
    from aimon_mongo.postgres._sync.tasks import PostgresBackgroundTaskStore, PostgresTaskDriver
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
            "AsyncPostgresBackgroundTaskStore": "aimon_mongo.postgres._async.tasks",
            "AsyncPostgresIdempotencyDriver": "aimon_mongo.postgres._async.idempotency",
            "AsyncPostgresIdempotencyStore": "aimon_mongo.postgres._async.idempotency",
            "AsyncPostgresInboxDriver": "aimon_mongo.postgres._async.inbox",
            "AsyncPostgresLeaseDriver": "aimon_mongo.postgres._async.leases",
            "AsyncPostgresRecordDriver": "aimon_mongo.postgres._async.records",
            "AsyncPostgresSegmentDriver": "aimon_mongo.postgres._async.segments",
            "AsyncPostgresSessionBackends": "aimon_mongo.postgres._async.backends",
            "AsyncPostgresSessionInbox": "aimon_mongo.postgres._async.inbox",
            "AsyncPostgresSessionLeaseStore": "aimon_mongo.postgres._async.leases",
            "AsyncPostgresSessionLogSegmentStore": "aimon_mongo.postgres._async.segments",
            "AsyncPostgresSessionRecordStore": "aimon_mongo.postgres._async.records",
            "AsyncPostgresSessionSignalBus": "aimon_mongo.postgres._async.signals",
            "AsyncPostgresSignalDriver": "aimon_mongo.postgres._async.signals",
            "AsyncPostgresTaskDriver": "aimon_mongo.postgres._async.tasks",
            "PostgresBackgroundTaskStore": "aimon_mongo.postgres._sync.tasks",
            "PostgresIdempotencyDriver": "aimon_mongo.postgres._sync.idempotency",
            "PostgresIdempotencyStore": "aimon_mongo.postgres._sync.idempotency",
            "PostgresInboxDriver": "aimon_mongo.postgres._sync.inbox",
            "PostgresLeaseDriver": "aimon_mongo.postgres._sync.leases",
            "PostgresRecordDriver": "aimon_mongo.postgres._sync.records",
            "PostgresSegmentDriver": "aimon_mongo.postgres._sync.segments",
            "PostgresSessionBackends": "aimon_mongo.postgres._sync.backends",
            "PostgresSessionInbox": "aimon_mongo.postgres._sync.inbox",
            "PostgresSessionLeaseStore": "aimon_mongo.postgres._sync.leases",
            "PostgresSessionLogSegmentStore": "aimon_mongo.postgres._sync.segments",
            "PostgresSessionRecordStore": "aimon_mongo.postgres._sync.records",
            "PostgresSessionSignalBus": "aimon_mongo.postgres._sync.signals",
            "PostgresSignalDriver": "aimon_mongo.postgres._sync.signals",
            "PostgresTaskDriver": "aimon_mongo.postgres._sync.tasks",
            "ReplicationGuard": "aimon_mongo.postgres.replication",
            "ReplicationReport": "aimon_mongo.postgres.replication",
            "SweepReport": "aimon_mongo.postgres.retention",
            "ensure_schema": "aimon_mongo.postgres._sync.schema",
            "ensure_schema_async": "aimon_mongo.postgres._async.schema:ensure_schema",
        },
    )
