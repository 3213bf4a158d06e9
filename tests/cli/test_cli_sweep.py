"""``aimon-mongo sweep`` against the real PostgreSQL server (no MongoDB involved)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import uuid
from datetime import timedelta
from typing import Any

import psycopg
import psycopg.conninfo
from psycopg import sql
from typer.testing import CliRunner

from aimon_mongo.cli import get_app
from aimon_mongo.postgres import PostgresSessionBackends
from aimon_mongo.standin import free_port
from tests.cli.conftest import ROOT, Run


def _sweep(*args: str, env: dict[str, str | None] | None = None) -> Run:
    result = CliRunner().invoke(get_app(), ["sweep", *args], env={"NO_COLOR": "1", "COLUMNS": None, **(env or {})})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Run(result.exit_code, result.stdout, result.stderr)


def _old_signals(conn: psycopg.Connection[Any], schema: str, count: int) -> None:
    conn.execute(
        sql.SQL(
            "INSERT INTO {} (conversation_id, kind, origin_node_id, payload, created_at) "
            "SELECT 's-' || g, 'EVENT', 'node-x', '{{}}'::jsonb, now() - interval '2 hours' "
            "FROM generate_series(1, %s) AS g"
        ).format(sql.Identifier(schema, "conversation_signal")),
        [count],
    )


def test_sweep_reports_what_it_removed_per_table(
    postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    _old_signals(pg_conn, pg_schema, 25)
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as node:
        lease = node.leases.try_acquire("s-idle", "h", timedelta(seconds=30))
        assert lease is not None
        node.leases.release(lease)
    done = _sweep("--postgres", postgres_dsn, "--schema", pg_schema, "--batch-size", "10", "--json")
    assert done.json() == {
        "schema": pg_schema,
        # the acquisition raised the session's write fence: its session_fence row goes with the counter row
        "removed": {"signals": 25, "idempotency": 0, "lapsed_locks": 0, "lock_fences": 1, "session_fences": 1},
        "total": 27,
    }
    _old_signals(pg_conn, pg_schema, 3)
    shown = _sweep("--schema", pg_schema, "--no-fences", env={"AIMON_POSTGRES_DSN": postgres_dsn})
    assert shown.code == 0, shown.stderr
    assert f"schema {pg_schema}: swept" in shown.stdout
    line = next(row for row in shown.stdout.splitlines() if "conversation_signal" in row)
    assert line.split()[:2] == ["conversation_signal", "3"]


def test_sweep_without_a_connection_string_or_server_fails_in_one_line() -> None:
    missing = _sweep(env={"AIMON_POSTGRES_DSN": None})
    assert "pass --postgres DSN or set AIMON_POSTGRES_DSN" in missing.failed_with_one_line()
    dead = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres?connect_timeout=2"
    assert "start the server or pass --postgres" in _sweep("--postgres", dead).failed_with_one_line()
    bad = _sweep("--postgres", dead, "--schema", "x-y")
    assert "schema must be an identifier" in bad.failed_with_one_line()


def test_sweep_as_a_process_without_a_server_is_one_line_after_the_timeout_given() -> None:
    dead = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"
    done = subprocess.run(
        [sys.executable, "-m", "aimon_mongo", "--timeout-ms", "1000", "sweep", "--postgres", dead],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()  # the pool's WARNING per failed attempt is not shown
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("aimon-mongo: error: PostgreSQL at 127.0.0.1:"), lines[0]
    assert "Connection refused (no pooled connection within 1 s)" in lines[0]  # the global --timeout-ms


def test_a_library_warning_is_one_prefixed_line_and_pool_retries_are_left_out() -> None:
    script = textwrap.dedent(
        """
        import logging
        from aimon_mongo.cli._logging import log_to_stderr
        log_to_stderr()
        log_to_stderr()
        logging.getLogger("aimon_mongo.mongo.schema_check").warning("collection %s is missing", "x")
        logging.getLogger("psycopg.pool").warning("error connecting")
        logging.getLogger("aimon_mongo.any").info("not shown")
        try:
            raise ValueError("boom")
        except ValueError:
            logging.getLogger("aimon_mongo.console.app").exception("request %s failed", "/x")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT)
    said = "aimon-mongo: warning: collection x is missing\naimon-mongo: error: request /x failed\n"  # no traceback
    assert (done.returncode, done.stderr) == (0, said)


def _sweep_process(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aimon_mongo", "sweep", *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def test_a_cron_job_can_silence_the_single_server_warning(postgres_dsn: str, pg_schema: str) -> None:
    warned = _sweep_process("--postgres", postgres_dsn, "--schema", pg_schema)  # this server has no standby
    assert warned.returncode == 0, warned.stderr
    assert warned.stderr.startswith("aimon-mongo: warning: PostgreSQL at ") and "synchronous standby" in warned.stderr
    assert len(warned.stderr.splitlines()) == 1, warned.stderr
    quiet = _sweep_process("--postgres", postgres_dsn, "--schema", pg_schema, "--replication-guard", "off")
    assert (quiet.returncode, quiet.stderr) == (0, "")
    refused = _sweep_process("--postgres", postgres_dsn, "--schema", pg_schema, "--replication-guard", "require")
    assert refused.returncode == 1 and len(refused.stderr.splitlines()) == 1, refused.stderr
    assert refused.stderr.startswith("aimon-mongo: error: PostgreSQL at ") and "synchronous standby" in refused.stderr
    wrong = _sweep("--postgres", postgres_dsn, "--replication-guard", "maybe")
    assert wrong.code == 2 and "must be one of require, warn, off; got 'maybe'" in wrong.stderr


def test_a_missing_database_is_does_not_exist_not_unreachable(postgres_dsn: str) -> None:
    missing = psycopg.conninfo.make_conninfo(postgres_dsn, dbname=f"no_such_db_{uuid.uuid4().hex[:8]}")
    done = _sweep_process("--postgres", missing)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()  # one line: neither the pool's attempts nor a traceback
    assert len(lines) == 1, done.stderr
    assert 'refused the connection: database "no_such_db_' in lines[0] and "does not exist" in lines[0]
    assert "not reachable" not in lines[0] and "start the server" not in lines[0]
