"""Issue 14 ("the first hour") on the command: the mistakes a new user makes get one clear answer.

Overwrites refused without ``--force``, read-only commands that create nothing, one connection-string
precedence, one line where Python would print a warning or a traceback, and the polish (``--version``,
completion, plain help, recursive and stdin/stdout transfers, an empty ``ls`` that says so).
"""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pymongo import MongoClient

from aimon_mongo.cli import get_app
from aimon_mongo.mongo import ensure_schema
from aimon_mongo.standin import free_port
from tests.cli.conftest import ROOT, Cli, Run

READ_ONLY = [
    ["vfs", "ls"],
    ["vfs", "ls", "-l", "workspace"],
    ["vfs", "tree"],
    ["vfs", "cat", "a.txt"],
    ["vfs", "du"],
    ["vfs", "find", "*.md"],
    ["vfs", "fsck"],
    ["snapshots", "list"],
    ["snapshots", "show", "t-1"],
    ["inbox", "stats"],
    ["inbox", "peek", "c-1"],
    ["quarantine", "list"],
    ["quarantine", "show", "6650f0c2e4b0a1b2c3d4e5f6"],
    ["leases", "show", "c-1"],
    ["leases", "list"],
    ["tasks", "list"],
    ["langgraph", "threads"],
    ["langgraph", "history", "t-1"],
    ["langgraph", "show", "cp-1"],
]
SESSION_READS = [c for c in READ_ONLY if c[0] in ("inbox", "quarantine", "leases", "tasks", "langgraph")]
VFS_READS = [c for c in READ_ONLY if c[0] in ("vfs", "snapshots")]


def _state(client: MongoClient[Any], *databases: str) -> tuple[list[str], dict[str, Any]]:
    """Every database name, and per database its collections with their index names."""
    layout = {
        name: {
            c: sorted(i["name"] for i in client[name][c].list_indexes()) for c in client[name].list_collection_names()
        }
        for name in databases
    }
    return sorted(client.list_database_names()), layout


# --- 3: vfs get --------------------------------------------------------------------------------------


def test_get_refuses_to_replace_a_local_file_without_force(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "src.txt").write_text("from the store\n")
    assert cli("vfs", "put", str(tmp_path / "src.txt"), "a.txt").code == 0
    local = tmp_path / "a.txt"
    local.write_text("mine\n")
    local.chmod(0o640)
    line = cli("vfs", "get", "a.txt", str(local)).failed_with_one_line()
    assert str(local) in line and "--force" in line
    assert local.read_text() == "mine\n"
    assert cli("vfs", "get", "a.txt", str(tmp_path)).failed_with_one_line()  # into the directory: same file
    assert cli("vfs", "get", "--force", "a.txt", str(local)).code == 0
    assert local.read_text() == "from the store\n"
    assert stat.S_IMODE(local.stat().st_mode) == 0o640  # a replaced file keeps its mode
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_get_creates_files_with_the_umask_like_cp(cli: Cli, tmp_path: Path, umask: int) -> None:
    (tmp_path / "src.txt").write_text("x")
    assert cli("vfs", "put", str(tmp_path / "src.txt"), "a.txt").code == 0
    previous = os.umask(umask)
    try:
        assert cli("vfs", "get", "a.txt", str(tmp_path / "new.txt")).code == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o666 & ~umask


# --- 4: read-only commands create nothing ------------------------------------------------------------


@pytest.mark.parametrize("command", READ_ONLY, ids=" ".join)
def test_read_only_command_on_a_missing_database_creates_nothing(
    command: list[str], cli: Cli, mongo_client: MongoClient[Any]
) -> None:
    typo = "t_typo_" + os.urandom(4).hex()
    before = _state(mongo_client, typo)
    run = cli("--db", typo, "--session-db", typo, *command, database=False)
    line = run.failed_with_one_line()
    assert f"database {typo!r} does not exist" in line
    assert _state(mongo_client, typo) == before
    assert typo not in mongo_client.list_database_names()


@pytest.mark.parametrize("command", VFS_READS, ids=" ".join)
def test_vfs_reads_on_a_database_without_the_bucket_create_nothing(
    command: list[str], cli: Cli, mongo_client: MongoClient[Any], mongo_db_name: str
) -> None:
    ensure_schema(mongo_client[mongo_db_name])  # the session stores' database, no GridFS bucket in it
    before = _state(mongo_client, mongo_db_name)
    line = cli(*command).failed_with_one_line()
    assert "no GridFS bucket 'fs'" in line
    assert _state(mongo_client, mongo_db_name) == before


@pytest.mark.parametrize("command", SESSION_READS, ids=" ".join)
def test_session_reads_on_a_database_without_the_schema_create_nothing(
    command: list[str], cli: Cli, mongo_client: MongoClient[Any], mongo_db_name: str, tmp_path: Path
) -> None:
    (tmp_path / "n.txt").write_text("n")
    assert cli("vfs", "put", str(tmp_path / "n.txt"), "n.txt").code == 0  # the database holds files only
    before = _state(mongo_client, mongo_db_name)
    run = cli(*command)
    assert run.code in (0, 1) and "Traceback" not in run.stderr
    assert _state(mongo_client, mongo_db_name) == before


# --- 7: one precedence for the connection string -----------------------------------------------------


def _unreachable() -> str:
    return f"mongodb://127.0.0.1:{free_port()}"


def test_uri_precedence_flag_then_aimon_then_generic(cli: Cli, mongo_uri: str, tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("n")
    assert cli("vfs", "put", str(tmp_path / "n.txt"), "n.txt").code == 0
    down = _unreachable()
    only_generic = cli("--timeout-ms", "300", "vfs", "ls", env={"AIMON_MONGODB_URI": None, "MONGODB_URI": mongo_uri})
    assert only_generic.code == 0 and only_generic.stdout.strip() == "n.txt"
    aimon_wins = cli("--timeout-ms", "300", "vfs", "ls", env={"AIMON_MONGODB_URI": mongo_uri, "MONGODB_URI": down})
    assert aimon_wins.code == 0
    flag_wins = cli("--uri", mongo_uri, "vfs", "ls", env={"AIMON_MONGODB_URI": down, "MONGODB_URI": down})
    assert flag_wins.code == 0
    line = cli("--timeout-ms", "300", "vfs", "ls", env={"AIMON_MONGODB_URI": None, "MONGODB_URI": down})
    assert f"cannot reach MongoDB at {down.split('//')[1]} (from MONGODB_URI)" in line.failed_with_one_line()


def test_demo_names_the_configured_host_and_never_claims_none_is_configured(cli: Cli) -> None:
    down = _unreachable()
    run = cli("--timeout-ms", "300", "demo", database=False, env={"AIMON_MONGODB_URI": None, "MONGODB_URI": down})
    assert "No MongoDB configured" not in run.stdout and "no MongoDB configured" not in run.stdout
    assert f"from MONGODB_URI) at {down.split('//')[1]}" in run.stdout
    assert f"cannot reach MongoDB at {down.split('//')[1]} (from MONGODB_URI)" in run.failed_with_one_line()


# --- 9 and 10: one line where one line belongs -------------------------------------------------------


def test_an_invalid_uri_option_is_one_line_not_a_python_warning(cli: Cli, mongo_uri: str) -> None:
    host = mongo_uri.split("//", 1)[1].split("/", 1)[0]
    run = cli("--uri", f"mongodb://{host}/?tls=maybe", "vfs", "ls", database=False)
    assert run.failed_with_one_line() == (
        "aimon-mongo: error: invalid MongoDB URI: The value of tls must be 'true' or 'false'"
    )


def test_a_server_that_is_down_is_one_short_line_within_the_timeout() -> None:
    down = _unreachable()
    env = {k: v for k, v in os.environ.items() if k not in ("MONGODB_URI", "AIMON_MONGODB_URI")}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "aimon_mongo", "--uri", down, "--timeout-ms", "1000", "tasks", "list"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=60,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    line = Run(done.returncode, done.stdout, done.stderr).failed_with_one_line()
    assert len(line) < 160 and "Topology" not in line and down.split("//")[1] in line
    assert elapsed < 20  # interpreter start-up on a busy machine plus the one second asked for


def test_a_negative_timeout_is_a_usage_error_about_the_timeout() -> None:
    from typer.testing import CliRunner

    result = CliRunner().invoke(get_app(), ["--timeout-ms", "-5", "vfs", "ls"])
    assert result.exit_code == 2
    assert "--timeout-ms" in result.stderr and "URI" not in result.stderr


@pytest.mark.slow
@pytest.mark.usefixtures("terminal_sigint")
def test_ctrl_c_at_any_moment_of_a_get_is_one_line(
    cli: Cli, mongo_uri: str, mongo_db_name: str, tmp_path: Path
) -> None:
    """SIGINT bursts at spread-out moments: while the command imports, while it downloads, as it exits."""
    big = tmp_path / "big.bin"
    big.write_bytes(os.urandom(8 * 1024 * 1024))
    assert cli("vfs", "put", str(big), "big.bin").code == 0
    env = {k: v for k, v in os.environ.items() if k not in ("MONGODB_URI", "COLUMNS")}
    env.update(AIMON_MONGODB_URI=mongo_uri)
    command = [sys.executable, "-m", "aimon_mongo", "--db", mongo_db_name, "vfs", "get", "-f", "big.bin", "out.bin"]
    durations = []
    for _ in range(2):
        started = time.monotonic()
        subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, timeout=120, check=True)
        durations.append(time.monotonic() - started)
    whole = max(durations)
    # from a third of the run on: a Ctrl-C in the interpreter's own first instants, before any module of
    # ours is imported, is Python's to report (on a loaded machine that start-up alone can take a second)
    codes = []
    for fraction in (0.35, 0.5, 0.75, 0.9, 0.97, 1.0):
        proc = subprocess.Popen(
            command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        time.sleep(whole * fraction)
        for _ in range(3):
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                time.sleep(0.03)
        _, err = proc.communicate(timeout=120)
        lines = [
            line for line in err.replace("\r", "\n").splitlines() if line.strip() and not line.startswith("get big.bin")
        ]
        # 130 is what a shell reports for a Ctrl-C; CPython itself ends with -SIGINT (the shell shows 130
        # too) when the interrupt lands in its own finalisation, after our one line was written
        assert proc.returncode in (0, 130, -signal.SIGINT), (fraction, proc.returncode, err[-2000:])
        codes.append(proc.returncode)
        assert "Traceback" not in err and "Exception ignored" not in err, (fraction, err[-2000:])
        assert lines in ([], ["aimon-mongo: interrupted"]), (fraction, lines)
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]
        if (tmp_path / "out.bin").exists():
            assert (tmp_path / "out.bin").stat().st_size == big.stat().st_size  # complete, never truncated
    assert 130 in codes, codes  # the early moments at least were interrupted, not finished


# --- 12: polish --------------------------------------------------------------------------------------


def _help(*args: str) -> str:
    from typer.testing import CliRunner

    result = CliRunner().invoke(get_app(), [*args, "--help"], env={"AIMON_MONGODB_URI": None, "MONGODB_URI": None})
    assert result.exit_code == 0, result.output
    return result.stdout


def _commands() -> list[list[str]]:
    import typer.main

    group: Any = typer.main.get_command(get_app())  # a click group (Typer's own copy of click, or click)
    found: list[list[str]] = [[]]
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            found += [[name]] + [[name, sub] for sub in command.commands]
        elif name not in ("schema", "standin"):  # their own parsers' help
            found.append([name])
    return found


def test_help_is_plain_text_without_markup_or_bool_metavars() -> None:
    commands = _commands()
    assert ["vfs", "get"] in commands and ["demo"] in commands
    for command in commands:
        text = _help(*command)
        assert "``" not in text and ":class:" not in text and ":func:" not in text, (command, text)
        assert "<bool>" not in text and "BOOLEAN" not in text, (command, text)
    root = _help()
    assert "mongodb://localhost:27017" in root and "$AIMON_MONGODB_URI" in root and "$MONGODB_URI" in root
    assert "--install-completion" in root and "--show-completion" in root and "--version" in root
    assert "--json " in _help("vfs", "ls")


def test_version_and_json_is_a_plain_flag(cli: Cli) -> None:
    import aimon_mongo

    version = cli("--version", database=False)
    assert version.code == 0 and version.stdout.strip() == f"aimon-mongo {aimon_mongo.__version__}"
    assert cli("inbox", "stats", "--json", "true").code == 2  # a flag takes no value


def test_completion_script_is_offered() -> None:
    # Typer finds the shell from the process ancestry, which a test run detached from any shell lacks
    # ("Shell  not supported."); this variable of Typer's makes --show-completion take the name given.
    env = {**os.environ, "SHELL": "/bin/bash", "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "aimon_mongo", "--show-completion", "bash"],
        capture_output=True, text=True, cwd=ROOT, timeout=60, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "complete" in done.stdout and "aimon" in done.stdout.lower()


def test_an_empty_listing_says_so(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("n")
    assert cli("vfs", "put", str(tmp_path / "n.txt"), "n.txt").code == 0
    assert cli("vfs", "mkdir", "empty").code == 0
    run = cli("vfs", "ls", "empty")
    assert run.code == 0 and run.stdout == ""  # stdout stays clean for scripts
    assert "empty is an empty directory" in run.stderr


def test_recursive_put_and_get_round_trip(cli: Cli, tmp_path: Path) -> None:
    tree = tmp_path / "project"
    (tree / "src" / "deep").mkdir(parents=True)
    (tree / "empty").mkdir()
    (tree / "README.md").write_text("top\n")
    (tree / "src" / "a.py").write_text("a\n")
    (tree / "src" / "deep" / "b.bin").write_bytes(bytes(range(256)))
    assert "is a directory (-r" in cli("vfs", "put", str(tree), "up").failed_with_one_line()
    assert cli("vfs", "mkdir", "up").code == 0
    assert cli("vfs", "put", "-r", str(tree), "up").code == 0  # into the existing directory: up/project
    listing = cli("vfs", "find", "--json", "*", "--path", "up").json()
    assert listing == ["up/project/README.md", "up/project/src/a.py", "up/project/src/deep/b.bin"]
    assert cli("vfs", "ls", "--json", "up/project/empty").json() == []
    back = tmp_path / "back"
    assert "is a directory (-r" in cli("vfs", "get", "up/project", str(back)).failed_with_one_line()
    assert cli("vfs", "get", "-r", "up/project", str(back)).code == 0
    assert (back / "README.md").read_text() == "top\n"
    assert (back / "src" / "deep" / "b.bin").read_bytes() == bytes(range(256))
    assert (back / "empty").is_dir()
    assert cli("vfs", "get", "-r", "up/project", str(back)).code == 0  # like cp -r: now into back/project
    assert (back / "project" / "src" / "a.py").read_text() == "a\n"
    assert "--force" in cli("vfs", "get", "-r", "up/project", str(back)).failed_with_one_line()
    assert cli("vfs", "get", "-r", "-f", "up/project", str(back)).code == 0


def test_dash_is_stdin_for_put_and_stdout_for_get(cli_process: Cli, mongo_uri: str, mongo_db_name: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("MONGODB_URI", "COLUMNS")}
    env.update(AIMON_MONGODB_URI=mongo_uri)
    base = [sys.executable, "-m", "aimon_mongo", "--db", mongo_db_name, "vfs"]
    data = bytes(range(256)) * 10
    put = subprocess.run([*base, "put", "-", "piped/data.bin"], input=data, capture_output=True, env=env, timeout=120)
    assert put.returncode == 0, put.stderr
    got = subprocess.run([*base, "get", "piped/data.bin", "-"], capture_output=True, env=env, timeout=120)
    assert got.returncode == 0 and got.stdout == data
    refused = subprocess.run([*base, "put", "-", "piped/"], input=b"x", capture_output=True, env=env, timeout=120)
    assert refused.returncode == 1 and b"name the file to write from stdin" in refused.stderr


NOT_THE_COMMANDS = {"--file": "mongosh", "--eval": "mongosh", "--check": "python -m aimon_mongo.mongo.placement"}
"""Options docs/operations.md names that belong to other programs."""


def test_every_option_operations_md_names_is_one_the_command_takes() -> None:
    page = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", page)) - set(NOT_THE_COMMANDS)
    helps = "\n".join(_help(*command) for command in _commands())
    helps += "\n".join(_help(*own) for own in (["standin", "serve"], ["schema", "check"]))  # their own parsers
    taken = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", helps))
    assert named - taken == set(), f"docs/operations.md names options no command takes: {sorted(named - taken)}"
