"""PostgreSQL backend of the session stores (psycopg 3; async source in ``_async/``, sync twin generated).

Schema: ``sql/V1__init.sql`` and ``sql/V2__session_log_segment.sql`` (the reference's DDL) plus our
additive ``sql/V3__aimon_additions.sql`` onwards (``V4`` indexes, ``V5`` the token floor), applied by
:func:`ensure_schema` only when asked. Retention: :meth:`PostgresSessionBackends.sweep` (:class:`SweepReport`).
"""

from typing import TYPE_CHECKING

from aimon_mongo._extras import require_extra
from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo.postgres._async.backends import AsyncPostgresSessionBackends
    from aimon_mongo.postgres._async.schema import ensure_schema as ensure_schema_async
    from aimon_mongo.postgres._sync.backends import PostgresSessionBackends
    from aimon_mongo.postgres._sync.schema import ensure_schema
    from aimon_mongo.postgres.replication import ReplicationGuard, ReplicationReport
    from aimon_mongo.postgres.retention import SweepReport

require_extra("aimon_mongo.postgres", "postgres", "psycopg", "psycopg_pool")

__all__ = [
    "AsyncPostgresSessionBackends",
    "PostgresSessionBackends",
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
            "AsyncPostgresSessionBackends": "aimon_mongo.postgres._async.backends",
            "PostgresSessionBackends": "aimon_mongo.postgres._sync.backends",
            "ReplicationGuard": "aimon_mongo.postgres.replication",
            "ReplicationReport": "aimon_mongo.postgres.replication",
            "SweepReport": "aimon_mongo.postgres.retention",
            "ensure_schema": "aimon_mongo.postgres._sync.schema",
            "ensure_schema_async": "aimon_mongo.postgres._async.schema:ensure_schema",
        },
    )
