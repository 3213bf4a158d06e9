# GENERATED from aimon_mongo/_async/postgres/schema.py by scripts/gen_sync.py; do not edit.
"""Applying the versioned SQL files to a schema, only when asked (the stores never run DDL themselves)."""

from __future__ import annotations

import logging
from typing import Any

import psycopg
from psycopg import sql

from aimon_mongo import names as n
from aimon_mongo.errors import SchemaMigrationError
from aimon_mongo.postgres.failures import endpoint, translate
from aimon_mongo.postgres.migrations import ledger_ddl, lock_key, migrations, require_schema_name

log = logging.getLogger(__name__)


def apply_migrations(conn: psycopg.Connection[Any], schema: str) -> list[int]:
    """Create ``schema`` if needed and apply every migration it has not recorded yet, in one transaction.

    Concurrent callers (several nodes starting together) are serialised by a transaction-scoped
    advisory lock, so each version is applied exactly once. Returns the versions applied by this call
    (empty when the schema was current). The connection's ``search_path`` is left as it was.
    """
    require_schema_name(schema)
    applied: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [lock_key(schema)])
        cur = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", [schema])
        if cur.fetchone() is None:  # (a role may use a schema an operator created without CREATE rights)
            conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        conn.execute(ledger_ddl(schema))
        ledger = sql.Identifier(schema, n.PG_SCHEMA_VERSION)
        cur = conn.execute(sql.SQL("SELECT version FROM {}").format(ledger))
        done = {row[0] for row in cur.fetchall()}
        pending = [m for m in migrations() if m.version not in done]
        if not pending:
            return applied
        cur = conn.execute("SELECT current_setting('search_path')")
        row = cur.fetchone()
        previous = row[0] if row else ""
        conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema)))
        for migration in pending:
            conn.execute(migration.text.encode("utf-8"), prepare=False)
            conn.execute(
                sql.SQL("INSERT INTO {} (version, name) VALUES (%s, %s)").format(ledger),
                [migration.version, migration.name],
                prepare=False,  # run once per migration: past psycopg's threshold of 5 it would be prepared,
            )  # which a transaction-mode pooler cannot keep
            applied.append(migration.version)
            log.info("applied PostgreSQL migration V%d__%s to schema %s", migration.version, migration.name, schema)
        conn.execute("SELECT set_config('search_path', %s, true)", [previous])
    return applied


def ensure_schema(source: str | psycopg.Connection[Any], schema: str = n.PG_DEFAULT_SCHEMA) -> list[int]:
    """Apply the pending migrations to ``schema`` on the server of ``source`` (a connection string, or an
    open connection that is not inside a transaction). Never called implicitly by the stores.

    Returns the versions applied (empty when current). Failures raise
    :class:`~aimon_mongo.errors.BackendUnavailable` (server unreachable) or
    :class:`~aimon_mongo.errors.SchemaMigrationError`.
    """
    require_schema_name(schema)
    if isinstance(source, psycopg.Connection):
        where = endpoint(source.info.dsn)
        try:
            return apply_migrations(source, schema)
        except psycopg.Error as exc:
            raise translate(exc, SchemaMigrationError, where) from exc
    where = endpoint(source)
    try:
        with psycopg.Connection.connect(source, autocommit=True, connect_timeout=10) as conn:
            return apply_migrations(conn, schema)
    except psycopg.Error as exc:
        raise translate(exc, SchemaMigrationError, where) from exc
