"""``aimon-mongo shard-collections`` against the stand-in (a standalone server, not a mongos)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import ROOT, Cli


def test_print_shows_the_commands_without_sending(cli: Cli) -> None:
    run = cli("shard-collections", "--print", "--no-vfs", "--key", "tasks=none")
    assert run.code == 0, run.stderr
    assert "conversation_inbox" in run.stdout and 'key: {conversationId: "hashed"}' in run.stdout
    assert "background_task" not in run.stdout and "chunks" not in run.stdout


def test_locks_on_another_key_is_refused(cli: Cli) -> None:
    line = cli("shard-collections", "--print", "--key", "locks=holderId:1").failed_with_one_line()
    assert "refused" in line and "'locks' may be sharded on `_id` only" in line


def test_a_capped_collection_is_refused(cli: Cli) -> None:
    line = cli("shard-collections", "--key", "signals=conversationId").failed_with_one_line()
    assert "must stay unsharded" in line


def test_a_malformed_key_names_the_value(cli: Cli) -> None:
    assert "inbox=x:2" in cli("shard-collections", "--key", "inbox=x:2").failed_with_one_line()


def test_a_server_that_is_not_a_mongos_is_refused(cli: Cli) -> None:
    line = cli("shard-collections").failed_with_one_line()
    assert "needs a mongos" in line and "standalone" in line


MONGOSH = ROOT / "node_modules" / ".bin" / "mongosh"


def test_print_is_mongosh_lines_that_send_the_json_commands(
    cli: Cli, mongo_uri: str, mongo_db_name: str, tmp_path: Path
) -> None:
    args = ("shard-collections", "--print", "--key", "tasks=none")
    commands = cli(*args, "--json").json()
    assert {"shardCollection": f"{mongo_db_name}.conversation_inbox", "key": {"conversationId": "hashed"}} in commands
    lines = cli(*args).stdout.splitlines()
    assert len(lines) == len(commands) and all(line.startswith("db.adminCommand({") for line in lines)
    script = tmp_path / "shard.js"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if not MONGOSH.exists():
        pytest.fail("mongosh is not installed: run ./dev setup (it runs npm ci from package-lock.json)", pytrace=False)
    # the pinned mongosh runs the printed file as it is; its adminCommand is replaced by one that prints
    # what it was handed (the stand-in is not a mongos), so what mongosh parsed is compared with --json
    record = "db.adminCommand = (c) => { print('SENT ' + EJSON.stringify(c)); return {ok: 1}; }"
    done = subprocess.run(
        [str(MONGOSH), mongo_uri, "--quiet", "--eval", record, "--file", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    sent = [json.loads(line[5:]) for line in done.stdout.splitlines() if line.startswith("SENT ")]
    assert sent == commands


def test_print_quotes_names_mongosh_would_misread(cli: Cli) -> None:
    run = cli("--session-db", 'we"ird', "shard-collections", "--print", "--no-vfs", "--key", "inbox=conversationId")
    assert run.code == 0, run.stderr
    assert 'db.adminCommand({shardCollection: "we\\"ird.conversation_inbox", key: {conversationId: "hashed"}})' in (
        run.stdout.splitlines()
    )
