"""``aimon-mongo shard-collections`` against the stand-in (a standalone server, not a mongos)."""

from __future__ import annotations

from tests.cli.conftest import Cli


def test_print_shows_the_commands_without_sending(cli: Cli) -> None:
    run = cli("shard-collections", "--print", "--no-vfs", "--key", "tasks=none")
    assert run.code == 0, run.stderr
    assert "conversation_inbox" in run.stdout and "'conversationId': 'hashed'" in run.stdout
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
