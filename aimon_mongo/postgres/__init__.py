"""PostgreSQL backend of the session stores (psycopg 3; async source in ``_async/``, sync twin generated).

Schema: ``sql/V1__init.sql`` and ``sql/V2__session_log_segment.sql`` (the reference's DDL) plus our
additive ``sql/V3__aimon_additions.sql`` onwards (``V4`` indexes, ``V5`` the token floor), applied by
:func:`ensure_schema` only when asked. Retention: :meth:`PostgresSessionBackends.sweep` (:class:`SweepReport`).
Each store alone (``AsyncPostgresSessionInbox(pool, schema)`` …) is a factory returning the service over this
backend's driver; the lease, idempotency and signal stores are classes with the retention sweeps; the
drivers (``AsyncPostgresLeaseDriver`` …) are exported too (see :mod:`aimon_mongo.services`).
"""

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
