"""The hot PostgreSQL statements under EXPLAIN, at row counts where a wrong plan shows.

Each test fills a fresh schema with generated rows (``generate_series``), runs ``VACUUM ANALYZE`` so the
planner sees real statistics and a current visibility map, then EXPLAINs the store's own statement text
with the parameters the store sends and asserts the index it must use. Without the V4 indexes these
plans were a sequential scan (tasks by owner) and a primary-key walk reading every segment row
(``scan_sessions``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from psycopg import sql

from aimon_mongo._sync.postgres.segments import SCAN
from aimon_mongo.model import PrincipalType
from aimon_mongo.postgres import PostgresSessionBackends
from aimon_mongo.postgres.sqltext import qualify

SEGMENTS, SEGMENT_SESSIONS = 50_000, 5_000
TASKS, OWNERS = 50_000, 500
INBOX_ROWS, INBOX_SESSIONS = 100_000, 5_000


def _plan(conn: psycopg.Connection[Any], statement: str, params: Any) -> dict[str, Any]:
    row = conn.execute("EXPLAIN (FORMAT JSON) " + statement, params).fetchone()
    assert row is not None
    found = row[0] if isinstance(row[0], list) else json.loads(row[0])
    return dict(found[0]["Plan"])


def _nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    found = [plan]
    for child in plan.get("Plans", []):
        found += _nodes(child)
    return found


def _indexes(plan: dict[str, Any]) -> set[str]:
    return {node["Index Name"] for node in _nodes(plan) if "Index Name" in node}


def _vacuum(conn: psycopg.Connection[Any], schema: str, table: str) -> None:
    conn.execute(sql.SQL("VACUUM ANALYZE {}").format(sql.Identifier(schema, table)))


def test_scan_sessions_uses_the_scan_index(postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]) -> None:
    pg_conn.execute(
        sql.SQL(
            "INSERT INTO {} (session_id, segment_id, from_seq, to_seq, entry_count, payload, created_at) "
            "SELECT 's-' || lpad(mod(g, %s)::text, 6, '0'), 'seg-' || g, 0, 1, 2, repeat('x', 300), "
            "now() - mod(g, 1000) * interval '1 minute' FROM generate_series(1, %s) AS g"
        ).format(sql.Identifier(pg_schema, "session_log_segment")),
        [SEGMENT_SESSIONS, SEGMENTS],
    )
    _vacuum(pg_conn, pg_schema, "session_log_segment")
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as node:
        statement = qualify(SCAN, pg_schema)
        cutoff = datetime.now(UTC) - timedelta(minutes=990)  # about 1 % of the segments are older
        plan = _plan(pg_conn, statement, [cutoff, "", 100])
        assert "session_log_segment_scan_idx" in _indexes(plan), json.dumps(plan)
        assert any(node["Node Type"] == "Index Only Scan" for node in _nodes(plan)), json.dumps(plan)
        page = node.segments.scan_sessions(cutoff, None, 100)
    older = pg_conn.execute(
        sql.SQL("SELECT DISTINCT session_id FROM {} WHERE created_at < %s ORDER BY 1").format(
            sql.Identifier(pg_schema, "session_log_segment")
        ),
        [cutoff],
    ).fetchall()
    assert list(page.session_ids) == [row[0] for row in older][:100]


def test_tasks_by_owner_use_the_owner_index(
    postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    pg_conn.execute(
        sql.SQL(
            "INSERT INTO {} (task_id, subagent_name, description, state, start_time, owner_type, owner_id, "
            "owner_display_name) SELECT 't-' || g, 'sub', 'generated', 'RUNNING', "
            "now() - g * interval '1 second', 'USER', 'u-' || mod(g, %s), 'Ann' FROM generate_series(1, %s) AS g"
        ).format(sql.Identifier(pg_schema, "background_task")),
        [OWNERS, TASKS],
    )
    _vacuum(pg_conn, pg_schema, "background_task")
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as node:
        by_owner = node.tasks.driver._list[(False, True, False)]
        plan = _plan(pg_conn, by_owner, [PrincipalType.USER.value, "u-7"])
        assert "background_task_owner_idx" in _indexes(plan), json.dumps(plan)
        assert not any(node["Node Type"] == "Seq Scan" for node in _nodes(plan)), json.dumps(plan)
        by_state_and_owner = node.tasks.driver._list[(True, True, False)]
        plan = _plan(pg_conn, by_state_and_owner, ["RUNNING", PrincipalType.USER.value, "u-7"])
        assert "background_task_owner_idx" in _indexes(plan), json.dumps(plan)


def test_collect_deletes_by_session_and_uses_the_drain_index(
    postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    """The outer DELETE names ``conversation_id`` (partition pruning and distribution routing need it),
    and the inner selection walks ``conversation_inbox_drain_idx``."""
    pg_conn.execute(
        sql.SQL(
            "INSERT INTO {} (conversation_id, agent_ref, priority, payload, delivered_at) "
            "SELECT 's-' || mod(g, %s), 'assistant', mod(g, 3), '{{}}'::jsonb, now() "
            "FROM generate_series(1, %s) AS g"
        ).format(sql.Identifier(pg_schema, "conversation_inbox")),
        [INBOX_SESSIONS, INBOX_ROWS],
    )
    _vacuum(pg_conn, pg_schema, "conversation_inbox")
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as node:
        statement = node.inbox.driver._collect
    plan = _plan(pg_conn, statement, {"sid": "s-42", "ceiling": 2})  # EXPLAIN without ANALYZE deletes nothing
    assert plan["Node Type"] == "ModifyTable" and plan["Operation"] == "Delete"
    assert "conversation_inbox_drain_idx" in _indexes(plan), json.dumps(plan)
    # the scan feeding the DELETE itself (the inner selection's scan is aliased conversation_inbox_1)
    outer = [n for n in _nodes(plan)[1:] if n.get("Alias") == "conversation_inbox"]
    conditions = " ".join(str(n.get(key, "")) for n in outer for key in ("Index Cond", "Recheck Cond", "Filter"))
    assert outer and "conversation_id = 's-42'" in conditions, json.dumps(plan)
