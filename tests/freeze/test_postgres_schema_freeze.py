"""Freeze tests: every identifier of the PostgreSQL DDL, against hard-coded literals.

Two sides are pinned: the SQL files as shipped (comments stripped, lower-cased, whitespace normalised),
and what ``ensure_schema`` actually creates on the server (``information_schema`` and ``pg_indexes``).
Nodes of older and newer builds — and the Java reference — read these tables, so a rename here is a
data migration. Expectations are literals, never constants from ``names.py``.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

import psycopg

from aimon_mongo._sync.postgres.schema import ensure_schema

V1_TABLES = [
    "conversation_lock",
    "conversation_lock_fence",
    "conversation_signal",
    "conversation_inbox",
    "idempotency_entry",
    "background_task",
    "session_record",
]

V1_TABLE_STATEMENTS = [
    "create table if not exists conversation_lock(conversation_id text primary key,holder_id text not null,"
    "fencing_token bigint not null,acquired_at timestamptz not null,lease_expires_at timestamptz not null)",
    "create table if not exists conversation_lock_fence(conversation_id text primary key,"
    "next_token bigint not null default 1)",
    "create table if not exists conversation_signal(id bigserial primary key,conversation_id text not null,"
    "kind text not null,origin_node_id text not null,payload jsonb not null,"
    "created_at timestamptz not null default now())",
    "create table if not exists conversation_inbox(id bigserial primary key,conversation_id text not null,"
    "agent_ref text not null,priority smallint not null,payload jsonb not null,"
    "delivered_at timestamptz not null default now())",
    "create table if not exists idempotency_entry(key text primary key,conversation_id text not null,"
    "input_hash text not null,status text not null,holder_id text,result_blob jsonb,"
    "created_at timestamptz not null,last_touched_at timestamptz not null,expires_at timestamptz not null)",
    "create table if not exists background_task(task_id text primary key,subagent_name text not null,"
    "description text not null,state text not null,start_time timestamptz not null,end_time timestamptz,"
    "output_offset bigint not null default 0,owner_type text,owner_id text,owner_display_name text,"
    "context_id text,last_heartbeat timestamptz)",
    "create table if not exists session_record(session_id text primary key,transcript text,agent_ref text,"
    "compaction_failure_count integer not null default 0,session_totals jsonb,budget_override jsonb,"
    "updated_at timestamptz not null default now())",
]

V1_INDEXES = [
    ("conversation_lock_lease_expires_at_idx", "conversation_lock", "lease_expires_at"),
    ("conversation_signal_fetch_idx", "conversation_signal", "conversation_id,id"),
    ("conversation_signal_created_at_idx", "conversation_signal", "created_at"),
    ("conversation_inbox_drain_idx", "conversation_inbox", "conversation_id,priority,id"),
    ("idempotency_entry_inflight_stale_idx", "idempotency_entry", "status,last_touched_at"),
    ("idempotency_entry_expires_at_idx", "idempotency_entry", "expires_at"),
    ("background_task_state_idx", "background_task", "state"),
    ("background_task_context_idx", "background_task", "context_id"),
]

V2_STATEMENT = (
    "create table if not exists session_log_segment(session_id text not null,segment_id text not null,"
    "from_seq bigint not null,to_seq bigint not null,entry_count integer not null,payload text not null,"
    "created_at timestamptz not null,primary key(session_id,segment_id))"
)

V3_STATEMENTS = [
    "create table if not exists conversation_inbox_quarantine(id bigserial primary key,"
    "conversation_id text not null,entry_id text not null,priority smallint,raw_payload text not null,"
    "error text not null,quarantined_at timestamptz not null default now())",
    "create index if not exists conversation_inbox_quarantine_conv_idx "
    "on conversation_inbox_quarantine(conversation_id,id)",
    "create table if not exists session_fence(session_id text primary key,highest_token bigint not null,"
    "updated_at timestamptz not null default now())",
]

V4_STATEMENTS = [
    "create index if not exists background_task_owner_idx on background_task(owner_type,owner_id,start_time)",
    "create index if not exists session_log_segment_scan_idx on session_log_segment(session_id,created_at)",
]


def _sql(name: str) -> str:
    return resources.files("aimon_mongo.postgres").joinpath("sql", name).read_text(encoding="utf-8")


def _statements(text: str) -> list[str]:
    """Comments stripped, lower-cased, whitespace collapsed (none around parentheses and commas)."""
    text = re.sub(r"--[^\n]*", "", text).lower()
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s*([(),])\s*", r"\1", text)
    return [s.strip() for s in text.split(";") if s.strip()]


def test_v1_tables_in_order_with_every_column_type_and_default() -> None:
    statements = _statements(_sql("V1__init.sql"))
    tables = [s for s in statements if s.startswith("create table")]
    assert [re.match(r"create table if not exists (\w+)\(", s)[1] for s in tables] == V1_TABLES  # type: ignore[index]
    assert tables == V1_TABLE_STATEMENTS


def test_v1_index_statements_in_order() -> None:
    statements = _statements(_sql("V1__init.sql"))
    indexes = [s for s in statements if s.startswith("create index")]
    parsed = [re.fullmatch(r"create index if not exists (\w+) on (\w+)\(([\w,]+)\)", s) for s in indexes]
    assert all(parsed), indexes
    assert [m.groups() for m in parsed if m] == V1_INDEXES


def test_conversation_id_and_context_id_columns() -> None:
    tables = [s for s in _statements(_sql("V1__init.sql")) if s.startswith("create table")]
    with_conversation_id = [
        re.match(r"create table if not exists (\w+)", s)[1]  # type: ignore[index]
        for s in tables
        if "(conversation_id " in s or ",conversation_id " in s
    ]
    assert with_conversation_id == [
        "conversation_lock",
        "conversation_lock_fence",
        "conversation_signal",
        "conversation_inbox",
        "idempotency_entry",
    ]
    with_context_id = [re.match(r"create table if not exists (\w+)", s)[1] for s in tables if ",context_id " in s]  # type: ignore[index]
    assert with_context_id == ["background_task"]
    assert ("background_task_context_idx", "background_task", "context_id") in V1_INDEXES


def test_v2_segment_statement() -> None:
    assert _statements(_sql("V2__session_log_segment.sql")) == [V2_STATEMENT]


def test_v3_is_additive_and_ours() -> None:
    statements = _statements(_sql("V3__aimon_additions.sql"))
    assert statements == V3_STATEMENTS
    assert not any(table in s for s in statements for table in V1_TABLES if f" {table}(" in s)


def test_v4_adds_indexes_only() -> None:
    assert _statements(_sql("V4__scale_indexes.sql")) == V4_STATEMENTS


V6_STATEMENTS = [
    "alter table conversation_inbox add column if not exists claim_token bigint",
    "alter table conversation_inbox add column if not exists claim_attempts integer not null default 0",
    "alter table conversation_inbox add column if not exists claimed_at timestamptz",
]


def test_v6_adds_nullable_or_defaulted_inbox_columns_only() -> None:
    """Additive: a reference node's inserts (which name none of them) and its collect keep working."""
    assert _statements(_sql("V6__inbox_claims.sql")) == V6_STATEMENTS


def test_v5_token_floor_row_and_trigger(pg_schema: str, pg_conn: psycopg.Connection[Any]) -> None:
    """The floor table holds its one row from the start, and the trigger guards every counter insert."""
    assert pg_conn.execute(f'SELECT id, highest_swept FROM "{pg_schema}".aimon_token_floor').fetchall() == [(True, 0)]
    triggers = pg_conn.execute(
        "SELECT t.tgname, c.relname, p.proname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "JOIN pg_namespace s ON s.oid = c.relnamespace JOIN pg_proc p ON p.oid = t.tgfoid "
        "WHERE s.nspname = %s AND NOT t.tgisinternal",
        [pg_schema],
    ).fetchall()
    assert triggers == [("aimon_lock_fence_floor", "conversation_lock_fence", "aimon_lock_fence_floor")]


def _live_columns(conn: psycopg.Connection[Any], schema: str) -> dict[str, list[tuple[Any, ...]]]:
    rows = conn.execute(
        "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns "
        "WHERE table_schema = %s ORDER BY table_name, ordinal_position",
        [schema],
    ).fetchall()
    tables: dict[str, list[tuple[Any, ...]]] = {}
    for table, column, data_type, nullable, default in rows:
        if default and default.startswith("nextval("):
            default = "nextval"
        tables.setdefault(table, []).append((column, data_type, nullable, default))
    return tables


TS = "timestamp with time zone"
LIVE_COLUMNS = {
    "conversation_lock": [
        ("conversation_id", "text", "NO", None),
        ("holder_id", "text", "NO", None),
        ("fencing_token", "bigint", "NO", None),
        ("acquired_at", TS, "NO", None),
        ("lease_expires_at", TS, "NO", None),
    ],
    "conversation_lock_fence": [
        ("conversation_id", "text", "NO", None),
        ("next_token", "bigint", "NO", "1"),
    ],
    "conversation_signal": [
        ("id", "bigint", "NO", "nextval"),
        ("conversation_id", "text", "NO", None),
        ("kind", "text", "NO", None),
        ("origin_node_id", "text", "NO", None),
        ("payload", "jsonb", "NO", None),
        ("created_at", TS, "NO", "now()"),
    ],
    "conversation_inbox": [
        ("id", "bigint", "NO", "nextval"),
        ("conversation_id", "text", "NO", None),
        ("agent_ref", "text", "NO", None),
        ("priority", "smallint", "NO", None),
        ("payload", "jsonb", "NO", None),
        ("delivered_at", TS, "NO", "now()"),
        ("claim_token", "bigint", "YES", None),
        ("claim_attempts", "integer", "NO", "0"),
        ("claimed_at", TS, "YES", None),
    ],
    "idempotency_entry": [
        ("key", "text", "NO", None),
        ("conversation_id", "text", "NO", None),
        ("input_hash", "text", "NO", None),
        ("status", "text", "NO", None),
        ("holder_id", "text", "YES", None),
        ("result_blob", "jsonb", "YES", None),
        ("created_at", TS, "NO", None),
        ("last_touched_at", TS, "NO", None),
        ("expires_at", TS, "NO", None),
    ],
    "background_task": [
        ("task_id", "text", "NO", None),
        ("subagent_name", "text", "NO", None),
        ("description", "text", "NO", None),
        ("state", "text", "NO", None),
        ("start_time", TS, "NO", None),
        ("end_time", TS, "YES", None),
        ("output_offset", "bigint", "NO", "0"),
        ("owner_type", "text", "YES", None),
        ("owner_id", "text", "YES", None),
        ("owner_display_name", "text", "YES", None),
        ("context_id", "text", "YES", None),
        ("last_heartbeat", TS, "YES", None),
    ],
    "session_record": [
        ("session_id", "text", "NO", None),
        ("transcript", "text", "YES", None),
        ("agent_ref", "text", "YES", None),
        ("compaction_failure_count", "integer", "NO", "0"),
        ("session_totals", "jsonb", "YES", None),
        ("budget_override", "jsonb", "YES", None),
        ("updated_at", TS, "NO", "now()"),
    ],
    "session_log_segment": [
        ("session_id", "text", "NO", None),
        ("segment_id", "text", "NO", None),
        ("from_seq", "bigint", "NO", None),
        ("to_seq", "bigint", "NO", None),
        ("entry_count", "integer", "NO", None),
        ("payload", "text", "NO", None),
        ("created_at", TS, "NO", None),
    ],
    "conversation_inbox_quarantine": [
        ("id", "bigint", "NO", "nextval"),
        ("conversation_id", "text", "NO", None),
        ("entry_id", "text", "NO", None),
        ("priority", "smallint", "YES", None),
        ("raw_payload", "text", "NO", None),
        ("error", "text", "NO", None),
        ("quarantined_at", TS, "NO", "now()"),
    ],
    "session_fence": [
        ("session_id", "text", "NO", None),
        ("highest_token", "bigint", "NO", None),
        ("updated_at", TS, "NO", "now()"),
    ],
    "aimon_token_floor": [
        ("id", "boolean", "NO", "true"),
        ("highest_swept", "bigint", "NO", "0"),
    ],
    "aimon_schema_version": [
        ("version", "integer", "NO", None),
        ("name", "text", "NO", None),
        ("applied_at", TS, "NO", "now()"),
    ],
}

LIVE_INDEXES = {
    # name: (table, definition after "USING btree ")
    "conversation_lock_pkey": ("conversation_lock", "(conversation_id)"),
    "conversation_lock_lease_expires_at_idx": ("conversation_lock", "(lease_expires_at)"),
    "conversation_lock_fence_pkey": ("conversation_lock_fence", "(conversation_id)"),
    "conversation_signal_pkey": ("conversation_signal", "(id)"),
    "conversation_signal_fetch_idx": ("conversation_signal", "(conversation_id, id)"),
    "conversation_signal_created_at_idx": ("conversation_signal", "(created_at)"),
    "conversation_inbox_pkey": ("conversation_inbox", "(id)"),
    "conversation_inbox_drain_idx": ("conversation_inbox", "(conversation_id, priority, id)"),
    "idempotency_entry_pkey": ("idempotency_entry", "(key)"),
    "idempotency_entry_inflight_stale_idx": ("idempotency_entry", "(status, last_touched_at)"),
    "idempotency_entry_expires_at_idx": ("idempotency_entry", "(expires_at)"),
    "background_task_pkey": ("background_task", "(task_id)"),
    "background_task_state_idx": ("background_task", "(state)"),
    "background_task_context_idx": ("background_task", "(context_id)"),
    "background_task_owner_idx": ("background_task", "(owner_type, owner_id, start_time)"),
    "session_record_pkey": ("session_record", "(session_id)"),
    "session_log_segment_pkey": ("session_log_segment", "(session_id, segment_id)"),
    "session_log_segment_scan_idx": ("session_log_segment", "(session_id, created_at)"),
    "conversation_inbox_quarantine_pkey": ("conversation_inbox_quarantine", "(id)"),
    "conversation_inbox_quarantine_conv_idx": ("conversation_inbox_quarantine", "(conversation_id, id)"),
    "session_fence_pkey": ("session_fence", "(session_id)"),
    "aimon_schema_version_pkey": ("aimon_schema_version", "(version)"),
    "aimon_token_floor_pkey": ("aimon_token_floor", "(id)"),
}


def test_server_holds_exactly_the_frozen_columns(pg_schema: str, pg_conn: psycopg.Connection[Any]) -> None:
    assert _live_columns(pg_conn, pg_schema) == LIVE_COLUMNS


def test_server_holds_exactly_the_frozen_indexes(pg_schema: str, pg_conn: psycopg.Connection[Any]) -> None:
    rows = pg_conn.execute("SELECT indexname, tablename, indexdef FROM pg_indexes WHERE schemaname = %s", [pg_schema])
    found = {}
    for name, table, definition in rows.fetchall():
        match = re.search(r" USING btree (\(.*\))$", definition)
        assert match, definition
        found[name] = (table, match[1])
    assert found == LIVE_INDEXES


def test_server_tables_in_creation_order(pg_schema: str, pg_conn: psycopg.Connection[Any]) -> None:
    rows = pg_conn.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace "
        "WHERE s.nspname = %s AND c.relkind = 'r' ORDER BY c.oid",
        [pg_schema],
    ).fetchall()
    assert [r[0] for r in rows] == [
        "aimon_schema_version",
        *V1_TABLES,
        "session_log_segment",
        "conversation_inbox_quarantine",
        "session_fence",
        "aimon_token_floor",
    ]


def test_ensure_schema_records_versions_and_is_idempotent(
    postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    assert ensure_schema(postgres_dsn, pg_schema) == []
    ledger = pg_conn.execute(f'SELECT version, name FROM "{pg_schema}".aimon_schema_version ORDER BY version')
    assert ledger.fetchall() == [
        (1, "init"),
        (2, "session_log_segment"),
        (3, "aimon_additions"),
        (4, "scale_indexes"),
        (5, "token_floor"),
        (6, "inbox_claims"),
    ]
