"""``aimon-mongo snapshots ...``: list, show (checked against a stored text rendering), export.

``golden/golden-task.json`` is a stored snapshot envelope (codec output, committed as bytes);
``golden/golden-task.txt`` is what ``snapshots show golden-task`` prints with colours off. The rendering
covers roles, text with markup-like brackets, a document and an image block, tool calls with arguments,
a tool result and a tool error, a reasoning trace, an artifact, the rewind point, and a control character
that must reach the terminal escaped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pymongo import MongoClient

from aimon_mongo.snapshots import VfsSessionSnapshotStore, render
from aimon_mongo.snapshots.codec import JsonSessionSnapshotCodec
from aimon_mongo.snapshots.envelope import decode_snapshot, read_envelope
from aimon_mongo.vfs import GridFSFileSystem
from tests.cli.conftest import GOLDEN, Cli

GOLDEN_ENVELOPE = (GOLDEN / "golden-task.json").read_bytes()


@pytest.fixture
def store(mongo_client: MongoClient[Any], mongo_db_name: str) -> Any:
    fs = GridFSFileSystem(mongo_client, mongo_db_name)
    fs.initialize()
    fs.write("task-snapshot/golden-task.json", GOLDEN_ENVELOPE)
    yield VfsSessionSnapshotStore(fs)
    fs.close()


def test_show_matches_the_stored_rendering(cli: Cli, store: Any) -> None:
    shown = cli("snapshots", "show", "golden-task")
    assert shown.code == 0, shown.stderr
    assert shown.stdout == (GOLDEN / "golden-task.txt").read_text(encoding="utf-8")
    assert "\x1b" not in shown.stdout  # the stored ESC is shown as \u001b, colours are off


def test_show_uses_colours_on_a_terminal(cli: Cli, store: Any) -> None:
    shown = cli("snapshots", "show", "golden-task", env={"FORCE_COLOR": "1", "NO_COLOR": None})
    assert shown.code == 0, shown.stderr
    assert "\x1b[1;32m#0 USER" in shown.stdout  # the user role in bold green
    assert "\x1b[1;31m" in shown.stdout  # the tool error in bold red
    assert "\\u001b[31m" in shown.stdout  # the stored escape sequence is still shown escaped


def test_show_json_gives_kinds_and_lines(cli: Cli, store: Any) -> None:
    shown = cli("snapshots", "show", "--json", "golden-task").json()
    snapshot = decode_snapshot(JsonSessionSnapshotCodec(), read_envelope(GOLDEN_ENVELOPE))
    assert shown["task_id"] == "golden-task"
    assert shown["subagent_name"] == "reviewer"
    assert shown["context_id"] == "agent:reviewer:c-9"
    assert shown["session_id"] == "c-9" and shown["format_version"] == 1 and shown["message_count"] == 6
    assert "".join(line["text"] + "\n" for line in shown["lines"]) == render(snapshot)
    kinds = {line["kind"] for line in shown["lines"]}
    assert {"role", "tool_call", "tool_result", "tool_error", "artifact", "rewind", "reasoning", "media"} <= kinds


def test_list_with_context_filter_and_json(cli: Cli, store: Any) -> None:
    from aimon_mongo.snapshots import SessionSnapshot

    store.save("other-task", "writer", "agent:writer", SessionSnapshot.of_messages("c-2", []))
    entries = cli("snapshots", "list", "--json").json()
    assert [e["task_id"] for e in entries] == ["golden-task", "other-task"]
    golden = entries[0]
    assert golden["subagent_name"] == "reviewer" and golden["context_id"] == "agent:reviewer:c-9"
    assert golden["message_count"] == 6 and golden["format_version"] == 1
    assert golden["size"] == len(GOLDEN_ENVELOPE) and golden["problem"] is None
    only = cli("snapshots", "list", "--json", "--context", "agent:writer").json()
    assert [e["task_id"] for e in only] == ["other-task"]
    table = cli("snapshots", "list")
    assert table.code == 0
    for text in ("golden-task", "reviewer", "agent:reviewer:c-9", "1.4 KiB", "v1"):
        assert text in table.stdout


def test_export_raw_and_text(cli: Cli, store: Any, tmp_path: Path) -> None:
    raw = tmp_path / "golden.json"
    assert cli("snapshots", "export", "golden-task", str(raw)).code == 0
    assert raw.read_bytes() == GOLDEN_ENVELOPE
    text = tmp_path / "golden.txt"
    assert cli("snapshots", "export", "--text", "golden-task", str(text)).code == 0
    snapshot = decode_snapshot(JsonSessionSnapshotCodec(), read_envelope(GOLDEN_ENVELOPE))
    assert text.read_text(encoding="utf-8") == render(snapshot)
    assert cli("snapshots", "export", "golden-task", "-").stdout == GOLDEN_ENVELOPE.decode()


def test_missing_and_unreadable_snapshots(cli: Cli, store: Any, tmp_path: Path) -> None:
    line = cli("snapshots", "show", "nope").failed_with_one_line()
    assert "no snapshot for task 'nope'" in line
    cli("snapshots", "export", "nope", str(tmp_path / "x.json")).failed_with_one_line()
    assert not (tmp_path / "x.json").exists()
    store.fs.write("task-snapshot/broken.json", b'{"v":7,"subagentName":"x","snapshot":{}}')
    assert "envelope version 7" in cli("snapshots", "show", "broken").failed_with_one_line()
    entries = {e["task_id"]: e for e in cli("snapshots", "list", "--json").json()}
    assert "version 7" in entries["broken"]["problem"]
    assert "problem: " in cli("snapshots", "list").stdout
    assert "task id" in cli("snapshots", "show", "a/b").failed_with_one_line()


def test_empty_store_and_other_base_dir(cli: Cli, tmp_path: Path) -> None:
    line = cli("snapshots", "list").failed_with_one_line()  # nothing stored yet: the database does not exist
    assert "does not exist" in line and "--db" in line
    (tmp_path / "note.txt").write_text("x")
    assert cli("vfs", "put", str(tmp_path / "note.txt"), "notes/note.txt").code == 0
    assert cli("snapshots", "list", "--json").json() == []
    assert "no snapshots in task-snapshot/" in cli("snapshots", "list").stdout
    assert cli("snapshots", "list", "--json", "--base-dir", "elsewhere").json() == []


def test_snapshots_group_as_a_real_process(cli_process: Cli, store: Any) -> None:
    entries = cli_process("snapshots", "list", "--json").json()
    assert [e["task_id"] for e in entries] == ["golden-task"]
    shown = cli_process("snapshots", "show", "golden-task")
    assert shown.code == 0
    assert shown.stdout == (GOLDEN / "golden-task.txt").read_text(encoding="utf-8")


def test_export_refuses_to_overwrite_without_force(cli: Cli, store: Any, tmp_path: Path) -> None:
    kept = tmp_path / "mine.json"
    kept.write_text("my own file")
    line = cli("snapshots", "export", "golden-task", str(kept)).failed_with_one_line()
    assert line == f"aimon-mongo: error: {kept} already exists (--force replaces it)"
    assert kept.read_text() == "my own file"
    assert cli("snapshots", "export", "--force", "golden-task", str(kept)).code == 0
    assert kept.read_bytes() == GOLDEN_ENVELOPE
    assert "is a directory" in cli("snapshots", "export", "-f", "golden-task", str(tmp_path)).failed_with_one_line()
