"""The PostgreSQL schema as versioned SQL files (package data), and the checks around applying them.

``sql/V<n>__<name>.sql`` are applied in version order inside the session schema (``search_path`` set to
it), each recorded in the ledger table ``aimon_schema_version``. V1 and V2 are the reference's DDL; V3
onwards are ours and strictly additive. Nothing here talks to a server.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from psycopg import sql

from aimon_mongo import names as n
from aimon_mongo.errors import InvalidArgumentError

_FILE = re.compile(r"V(?P<version>\d+)__(?P<name>[a-z0-9_]+)\.sql\Z")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}\Z")


@dataclass(frozen=True)
class Migration:
    """One versioned SQL file."""

    version: int
    name: str
    text: str


@cache
def migrations() -> tuple[Migration, ...]:
    """Every ``sql/V<n>__<name>.sql`` of the package, in version order."""
    found = []
    for entry in resources.files(__package__).joinpath("sql").iterdir():
        match = _FILE.match(entry.name)
        if match:
            found.append(Migration(int(match["version"]), match["name"], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"PostgreSQL migrations must be numbered 1..n without gaps, found {versions}")
    return tuple(found)


def require_schema_name(schema: object) -> str:
    """``schema`` if it is a plain SQL identifier (letters, digits, ``_``; at most 63 characters).

    It is quoted with :class:`psycopg.sql.Identifier` wherever it is used; the check keeps operators'
    names simple enough to type unquoted in ``psql``.
    """
    if not isinstance(schema, str):
        raise InvalidArgumentError(f"schema must be a str, got {type(schema).__name__}")
    if not _IDENTIFIER.match(schema):
        raise InvalidArgumentError(
            f"schema must be an identifier of letters, digits and '_' (at most 63, not starting with a digit), "
            f"got {schema[:80]!r}"
        )
    return schema


def ledger_ddl(schema: str) -> sql.Composed:
    """``CREATE TABLE IF NOT EXISTS`` of the ledger of applied versions."""
    return sql.SQL(
        "CREATE TABLE IF NOT EXISTS {} ("
        "version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
    ).format(sql.Identifier(schema, n.PG_SCHEMA_VERSION))


def lock_key(schema: str) -> str:
    """Text hashed into the advisory lock that serialises concurrent ``ensure_schema`` calls."""
    return f"aimon_mongo.ensure_schema:{schema}"


def migration_script(schema: str) -> str:
    """Every migration as one ``psql`` script for ``schema``, in one transaction: the schema, the ledger, each
    ``V<n>`` file under ``search_path`` = the schema, and its ledger row — what :func:`ensure_schema` applies
    to a new schema, for an operator who applies DDL by hand (``aimon-mongo init-db --print-sql``). It is
    meant for a new schema: it runs every file, where :func:`ensure_schema` applies only the pending ones."""
    require_schema_name(schema)
    quoted = sql.Identifier(schema).as_string(None)
    ledger = sql.Identifier(schema, n.PG_SCHEMA_VERSION).as_string(None)
    parts = [
        f"-- aimon-mongo session schema {schema} (migrations V1..V{len(migrations())}); apply with psql -1 -f",
        "BEGIN;",
        f"SELECT pg_advisory_xact_lock(hashtext('{lock_key(schema)}'));",
        f"CREATE SCHEMA IF NOT EXISTS {quoted};",
        ledger_ddl(schema).as_string(None) + ";",
        f"SET LOCAL search_path TO {quoted};",
    ]
    for migration in migrations():
        parts += [
            f"-- V{migration.version}__{migration.name}.sql",
            migration.text.rstrip(),
            f"INSERT INTO {ledger} (version, name) VALUES ({migration.version}, '{migration.name}') "
            "ON CONFLICT (version) DO NOTHING;",
        ]
    parts.append("COMMIT;")
    return "\n".join(parts) + "\n"
