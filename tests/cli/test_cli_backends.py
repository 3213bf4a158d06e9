"""Every read command of ``aimon-mongo`` on Redis and on PostgreSQL (``--uri redis://`` / ``postgresql://``),
against the real servers, over data seeded through the public stores (``tests/backend_seed.py``); and
``init-db`` creating or printing the PostgreSQL schema."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import psycopg
import pytest
from psycopg import sql
from typer.testing import CliRunner

from aimon_mongo.cli import get_app
from tests.backend_seed import OTHER, SESSION, Deployment, other_deployment  # noqa: F401 (fixture)
from tests.cli.conftest import ROOT, Run
from tests.fixtures.postgres import drop_schema, new_schema_name

OtherCli = Callable[..., Run]
NO_MONGO_ENV: dict[str, str | None] = {"AIMON_MONGODB_URI": None, "MONGODB_URI": None, "COLUMNS": None, "NO_COLOR": "1"}


@pytest.fixture
def other_cli(other_deployment: Deployment) -> OtherCli:  # noqa: F811
    runner = CliRunner()
    app = get_app()

    def run(*args: str) -> Run:
        result = runner.invoke(app, [*other_deployment.cli_args, *args], env=NO_MONGO_ENV)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return Run(result.exit_code, result.stdout, result.stderr)

    return run


def test_inbox_stats_and_peek(other_cli: OtherCli, other_deployment: Deployment) -> None:  # noqa: F811
    stats = other_cli("inbox", "stats", "--json").json()
    assert [row["session_id"] for row in stats] == [SESSION, OTHER]
    first = stats[0]
    assert (first["NOW"], first["NEXT"], first["LATER"], first["total"], first["quarantined"]) == (1, 1, 1, 3, 1)
    assert first["oldest"] is not None
    assert (stats[1]["LATER"], stats[1]["total"], stats[1]["quarantined"]) == (1, 1, 0)
    only = other_cli("inbox", "stats", "--json", "--session", OTHER).json()
    assert [row["session_id"] for row in only] == [OTHER]
    table = other_cli("inbox", "stats")
    assert table.code == 0 and SESSION in table.stdout and OTHER in table.stdout

    peeked = other_cli("inbox", "peek", "--json", SESSION).json()
    assert [m["priority"] for m in peeked["messages"]] == ["NOW", "NEXT", "LATER"]
    assert [m["userInput"] for m in peeked["messages"]] == ["first NOW", "a NEXT", "a LATER"]
    assert "first NOW" in other_cli("inbox", "peek", SESSION).stdout
    assert other_cli("inbox", "stats", "--json").json() == stats  # peeking consumed nothing


def test_quarantine_list_show_delete(other_cli: OtherCli, other_deployment: Deployment) -> None:  # noqa: F811
    entries = other_cli("quarantine", "list", "--json").json()
    assert [(e["id"], e["session_id"]) for e in entries] == [(other_deployment.quarantine_id, SESSION)]
    assert other_cli("quarantine", "list", "--json", "--session", OTHER).json() == []
    shown = other_cli("quarantine", "show", "--json", other_deployment.quarantine_id).json()
    assert shown["session_id"] == SESSION and "an envelope" in str(shown["raw"])
    assert "raw document:" in other_cli("quarantine", "show", other_deployment.quarantine_id).stdout
    missing = other_cli("quarantine", "show", "no-such-entry").failed_with_one_line()
    assert "no quarantined entry 'no-such-entry'" in missing and "ObjectId" not in missing
    assert other_cli("quarantine", "delete", other_deployment.quarantine_id).code == 0
    assert other_cli("quarantine", "list", "--json").json() == []


def test_leases_and_tasks(other_cli: OtherCli, other_deployment: Deployment) -> None:  # noqa: F811
    held = other_cli("leases", "show", "--json", SESSION).json()
    assert (held["state"], held["holder_id"], held["fencing_token"]) == ("held", "node-b", other_deployment.lease_token)
    assert held["expires_at"] is not None
    released = other_cli("leases", "show", "--json", OTHER).json()
    assert (released["state"], released["holder_id"]) == ("released", None)
    assert released["fencing_token"] is not None and released["fencing_token"] >= 1
    assert "never been leased" in other_cli("leases", "show", "c-never").stdout
    listed = other_cli("leases", "list", "--json").json()
    assert [(row["session_id"], row["state"]) for row in listed] == [(SESSION, "held"), (OTHER, "released")]
    assert "node-b" in other_cli("leases", "list").stdout

    tasks = other_cli("tasks", "list", "--json").json()
    assert sorted((t["task_id"], t["state"]) for t in tasks) == [("c-1-turn-1", "COMPLETED"), ("c-2-turn-1", "RUNNING")]
    running = other_cli("tasks", "list", "--json", "--state", "running").json()
    assert [t["task_id"] for t in running] == ["c-2-turn-1"]
    assert "c-1-turn-1" in other_cli("tasks", "list").stdout


def test_mongodb_only_commands_say_so_in_one_line(other_cli: OtherCli, other_deployment: Deployment) -> None:  # noqa: F811
    shown = "Redis" if other_deployment.kind == "redis" else "PostgreSQL"
    for args in (
        ("vfs", "ls"),
        ("vfs", "fsck"),
        ("snapshots", "list"),
        ("langgraph", "threads"),
        ("shard-collections", "--print"),
    ):
        line = other_cli(*args).failed_with_one_line()
        assert "works on MongoDB only" in line and f"names a {shown} deployment" in line, line


def test_a_read_command_as_a_real_process(other_deployment: Deployment) -> None:  # noqa: F811
    done = subprocess.run(
        [sys.executable, "-m", "aimon_mongo", *other_deployment.cli_args, "inbox", "stats", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**{k: v for k, v in __import__("os").environ.items() if k not in ("MONGODB_URI", "AIMON_MONGODB_URI")}},
    )
    assert done.returncode == 0, done.stderr
    assert '"session_id": "c-1"' in done.stdout


def test_init_db_creates_and_prints_the_postgres_schema(postgres_dsn: str) -> None:
    runner = CliRunner()
    schema = new_schema_name()
    try:
        missing = runner.invoke(get_app(), ["--uri", postgres_dsn, "--pg-schema", schema, "inbox", "stats"])
        assert missing.exit_code == 1 and f"schema {schema!r} does not exist" in missing.stderr
        created = runner.invoke(get_app(), ["--uri", postgres_dsn, "--pg-schema", schema, "init-db", "--json"])
        assert created.exit_code == 0, created.stderr
        report = Run(created.exit_code, created.stdout, created.stderr).json()
        assert report["schema"] == schema and report["applied"][0] == 1
        assert "conversation_inbox" in report["tables"] and "conversation_lock" in report["tables"]
        again = runner.invoke(get_app(), ["--uri", postgres_dsn, "--pg-schema", schema, "init-db", "--json"])
        assert Run(again.exit_code, again.stdout, again.stderr).json()["applied"] == []
        empty = runner.invoke(get_app(), ["--uri", postgres_dsn, "--pg-schema", schema, "inbox", "stats", "--json"])
        assert Run(empty.exit_code, empty.stdout, empty.stderr).json() == []
    finally:
        drop_schema(postgres_dsn, schema)

    printed = runner.invoke(get_app(), ["--uri", postgres_dsn, "--pg-schema", schema, "init-db", "--print-sql"])
    assert printed.exit_code == 0 and printed.stdout.startswith(f"-- aimon-mongo session schema {schema}")
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", [schema]).fetchone() is None
        try:
            conn.execute(printed.stdout.encode())  # the script runs as printed
            tables = conn.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = %s", [schema]
            ).fetchone()
            versions = conn.execute(
                sql.SQL("SELECT array_agg(version ORDER BY version) FROM {}").format(
                    sql.Identifier(schema, "aimon_schema_version")
                )
            ).fetchone()
        finally:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    assert tables is not None and tables[0] >= 10
    assert versions is not None and versions[0] == [1, 2, 3, 4, 5, 6]
    mongo = runner.invoke(get_app(), ["--uri", "mongodb://127.0.0.1:1", "init-db", "--print-sql"])
    assert mongo.exit_code == 1 and "--print-sql prints the PostgreSQL schema" in mongo.stderr


def test_an_unknown_scheme_is_one_line_without_the_password() -> None:
    result = CliRunner().invoke(get_app(), ["--uri", "http://user:s3cret@host:1/", "inbox", "stats"])
    assert result.exit_code == 1
    assert "unknown backend URL scheme 'http'" in result.stderr and "s3cret" not in result.stderr
