"""Failures of the command: one clear stderr line and exit 1; usage errors exit 2."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from aimon_mongo.cli import get_app
from aimon_mongo.standin import free_port
from tests.cli.conftest import ROOT, Run

READ_COMMANDS = [
    ["vfs", "ls"],
    ["snapshots", "list"],
    ["inbox", "stats"],
    ["inbox", "peek", "c-1"],
    ["quarantine", "list"],
    ["leases", "show", "c-1"],
    ["tasks", "list"],
    ["init-db"],
]


def _invoke(*args: str) -> Run:
    env = {"AIMON_MONGODB_URI": None, "MONGODB_URI": None}
    result = CliRunner().invoke(get_app(), list(args), env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Run(result.exit_code, result.stdout, result.stderr)


@pytest.mark.parametrize("command", READ_COMMANDS, ids=lambda c: " ".join(c))
def test_unreachable_server_is_one_line_naming_the_host(command: list[str]) -> None:
    port = free_port()  # nothing listens there
    run = _invoke("--uri", f"mongodb://operator:s3cret@127.0.0.1:{port}", "--timeout-ms", "300", *command, "--json")
    line = run.failed_with_one_line()
    assert line == (
        f"aimon-mongo: error: cannot reach MongoDB at 127.0.0.1:{port} "
        "(start the server or pass --uri / set AIMON_MONGODB_URI)"
    )
    assert "s3cret" not in run.stderr and run.stdout == ""


def test_unreachable_server_as_a_real_process() -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("MONGODB_URI", "AIMON_MONGODB_URI")}
    env["AIMON_MONGODB_URI"] = f"mongodb://127.0.0.1:{port}"
    done = subprocess.run(
        [sys.executable, "-m", "aimon_mongo", "--timeout-ms", "300", "vfs", "ls"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    run = Run(done.returncode, done.stdout, done.stderr)
    assert f"cannot reach MongoDB at 127.0.0.1:{port}" in run.failed_with_one_line()


def test_invalid_uri_is_one_line() -> None:
    line = _invoke("--uri", "mongodb://", "vfs", "ls").failed_with_one_line()
    assert line == "aimon-mongo: error: invalid MongoDB URI: Must provide at least one hostname or IP"
    assert "invalid MongoDB URI: Port must be" in _invoke("--uri", "mongodb://h:99999", "tasks", "list").stderr
    bare = _invoke("--uri", "127.0.0.1:1", "--timeout-ms", "200", "vfs", "ls").failed_with_one_line()
    assert "cannot reach MongoDB at 127.0.0.1:1 " in bare  # a bare host list is a valid address


def test_usage_errors_exit_2() -> None:
    assert _invoke().code == 2  # no command: help, exit 2
    assert _invoke("frobnicate").code == 2
    assert _invoke("--timeout-ms", "soon", "vfs", "ls").code == 2
    assert _invoke("leases", "show").code == 2  # missing SESSION
    assert _invoke("snapshots", "show", "t", "--bogus").code == 2


def test_help_lists_every_group() -> None:
    run = _invoke("--help")
    assert run.code == 0
    for group in ("demo", "vfs", "snapshots", "inbox", "quarantine", "leases", "tasks", "init-db", "schema"):
        assert group in run.stdout


def test_demo_against_an_unreachable_uri_names_that_host() -> None:
    port = free_port()
    run = _invoke("--timeout-ms", "300", "demo", "--uri", f"mongodb://127.0.0.1:{port}")
    assert f"cannot reach MongoDB at 127.0.0.1:{port} " in run.failed_with_one_line()


def test_schema_group_runs_the_gate() -> None:
    assert "schema gate:" in _invoke("schema", "check").stdout
    env = {k: v for k, v in os.environ.items() if k not in ("MONGODB_URI", "AIMON_MONGODB_URI")}
    done = subprocess.run(
        [sys.executable, "-m", "aimon_mongo", "schema", "check"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("schema gate: ")
    assert _invoke("schema", "no-such-subcommand").code == 2


@pytest.mark.parametrize("args", [["--uri", ""], ["--uri", " "]], ids=["empty", "blank"])
def test_an_empty_uri_is_refused_not_read_as_not_given(args: list[str]) -> None:
    for command in (["vfs", "ls"], ["console"], ["demo"]):
        where = [*args, *command] if command == ["vfs", "ls"] else [*command, *args]
        run = _invoke(*where)
        assert run.code == 2, (where, run.stderr)
        assert "Invalid value for '--uri': is empty" in run.stderr


def test_delegated_groups_name_themselves_as_typed() -> None:
    for group in ("schema", "standin"):
        done = subprocess.run(
            [sys.executable, "-m", "aimon_mongo", group, "--help"], capture_output=True, text=True, cwd=ROOT
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"usage: aimon-mongo {group} "), done.stdout[:80]
    assert "aimon-mongo schema: error: unrecognized arguments: --bogus" in _invoke("schema", "check", "--bogus").stderr
