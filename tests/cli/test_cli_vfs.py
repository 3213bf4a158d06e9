"""``aimon-mongo vfs ...`` against the stand-in: every command, ``--json`` parsed, error paths."""

from __future__ import annotations

import base64
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bson import ObjectId
from pymongo import MongoClient

from tests.cli.conftest import Cli


def _seed(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello\n")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)))
    assert cli("vfs", "mkdir", "-p", "workspace/c-1/inputs").code == 0
    assert cli("vfs", "put", str(tmp_path / "hello.txt"), "workspace/c-1/").code == 0
    assert cli("vfs", "put", str(tmp_path / "blob.bin"), "workspace/c-1/inputs/blob.bin").code == 0


def test_ls_plain_long_and_json(cli: Cli, tmp_path: Path) -> None:
    _seed(cli, tmp_path)
    plain = cli("vfs", "ls", "workspace/c-1")
    assert plain.code == 0
    assert plain.stdout.splitlines() == ["hello.txt", "inputs/"]
    long = cli("vfs", "ls", "-l", "/workspace/c-1")
    assert long.code == 0
    assert "6 B" in long.stdout and "sha256:" in long.stdout and "inputs/" in long.stdout
    listing = cli("vfs", "ls", "--json", "workspace/c-1").json()
    assert [(e["path"], e["is_dir"], e["size"]) for e in listing] == [
        ("workspace/c-1/hello.txt", False, 6),
        ("workspace/c-1/inputs", True, 0),
    ]
    assert listing[0]["etag"].startswith("sha256:")
    assert cli("vfs", "ls", "--json").json()[0]["path"] == "workspace"
    one_file = cli("vfs", "ls", "--json", "workspace/c-1/hello.txt").json()
    assert [e["path"] for e in one_file] == ["workspace/c-1/hello.txt"]


def test_tree_with_depth_and_json(cli: Cli, tmp_path: Path) -> None:
    _seed(cli, tmp_path)
    shown = cli("vfs", "tree")
    assert shown.code == 0
    for name in ("workspace/", "c-1/", "hello.txt", "inputs/", "blob.bin", "256 B"):
        assert name in shown.stdout
    shallow = cli("vfs", "tree", "--depth", "2")
    assert "c-1/" in shallow.stdout and "hello.txt" not in shallow.stdout
    tree = cli("vfs", "tree", "--json", "workspace").json()
    assert tree["path"] == "workspace" and tree["is_dir"]
    c1 = tree["children"][0]
    assert [child["path"] for child in c1["children"]] == ["workspace/c-1/hello.txt", "workspace/c-1/inputs"]
    cut = cli("vfs", "tree", "--json", "--depth", "1", "workspace").json()
    assert cut["children"][0]["children"] == []


def test_cat_bytes_and_json(cli: Cli, tmp_path: Path) -> None:
    _seed(cli, tmp_path)
    assert cli("vfs", "cat", "workspace/c-1/hello.txt").stdout == "hello\n"
    text = cli("vfs", "cat", "--json", "workspace/c-1/hello.txt").json()
    assert text == {"path": "workspace/c-1/hello.txt", "size": 6, "encoding": "utf-8", "content": "hello\n"}
    binary = cli("vfs", "cat", "--json", "workspace/c-1/inputs/blob.bin").json()
    assert binary["encoding"] == "base64"
    assert base64.b64decode(binary["content"]) == bytes(range(256))


def test_get_to_file_and_into_directory(cli: Cli, tmp_path: Path) -> None:
    _seed(cli, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    got = cli("vfs", "get", "--json", "workspace/c-1/inputs/blob.bin", str(out)).json()
    assert got == {"source": "workspace/c-1/inputs/blob.bin", "destination": str(out / "blob.bin"), "bytes": 256}
    assert (out / "blob.bin").read_bytes() == bytes(range(256))
    renamed = cli("vfs", "get", "workspace/c-1/hello.txt", str(out / "greeting.txt"))
    assert renamed.code == 0 and (out / "greeting.txt").read_text() == "hello\n"
    assert [p.name for p in out.iterdir() if p.name.endswith(".part")] == []


def test_large_transfers_show_a_progress_bar(cli: Cli, tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    big.write_bytes(os.urandom(1024 * 1024 + 4096))
    put = cli("vfs", "put", str(big), "data/big.bin")
    assert put.code == 0
    assert "put data/big.bin" in put.stderr and "MiB" in put.stderr  # bar: label, bytes done/total
    got = cli("vfs", "get", "data/big.bin", str(tmp_path / "copy.bin"))
    assert got.code == 0 and "get data/big.bin" in got.stderr
    assert (tmp_path / "copy.bin").read_bytes() == big.read_bytes()
    small = tmp_path / "small.bin"
    small.write_bytes(b"x" * 1024)
    quiet = cli("vfs", "put", str(small), "data/small.bin")
    assert quiet.code == 0 and quiet.stderr == ""


def test_cp_mv_rm_mkdir(cli: Cli, tmp_path: Path) -> None:
    _seed(cli, tmp_path)
    assert cli("vfs", "cp", "workspace/c-1/hello.txt", "workspace/copy.txt").code == 0
    assert cli("vfs", "mkdir", "archive").code == 0
    assert cli("vfs", "mv", "workspace/copy.txt", "archive").code == 0
    assert cli("vfs", "cat", "archive/copy.txt").stdout == "hello\n"
    assert (
        cli("vfs", "cp", "workspace/c-1/hello.txt", "archive/copy.txt")
        .failed_with_one_line()
        .endswith("File already exists: archive/copy.txt (backend: GRIDFS)")
    )
    assert cli("vfs", "cp", "--force", "workspace/c-1/inputs/blob.bin", "archive/copy.txt").code == 0
    assert cli("vfs", "du", "--json", "archive").json()["total_size"] == 256
    assert "Directory not empty" in cli("vfs", "rm", "workspace/c-1").failed_with_one_line()
    assert cli("vfs", "rm", "archive/copy.txt").code == 0
    assert cli("vfs", "rm", "archive").code == 0
    assert cli("vfs", "rm", "-r", "workspace").code == 0
    assert cli("vfs", "ls", "--json").json() == []


def test_mkdir_without_parents_refuses(cli: Cli) -> None:
    line = cli("vfs", "mkdir", "a/b").failed_with_one_line()
    assert "parent directory does not exist: a" in line
    assert cli("vfs", "mkdir", "a").code == 0
    assert cli("vfs", "mkdir", "a").failed_with_one_line().endswith("File already exists: a")
    assert cli("vfs", "mkdir", "-p", "a").code == 0


def test_du_and_find(cli: Cli, tmp_path: Path) -> None:
    _seed(cli, tmp_path)
    usage = cli("vfs", "du", "--json").json()
    assert usage == {"path": ".", "total_size": 262, "file_count": 2, "directory_count": 3}
    assert "262 bytes" in cli("vfs", "du").stdout
    assert cli("vfs", "find", "--json", "*.bin").json() == ["workspace/c-1/inputs/blob.bin"]
    assert cli("vfs", "find", "--json", "--path", "workspace/c-1/inputs", "hello*").json() == []
    assert cli("vfs", "find", "h?llo.txt").stdout.strip() == "workspace/c-1/hello.txt"


def test_fsck_reports_and_repairs_orphaned_chunks(
    cli: Cli, mongo_client: MongoClient[Any], mongo_db_name: str, tmp_path: Path
) -> None:
    _seed(cli, tmp_path)
    clean = cli("vfs", "fsck", "--json").json()
    assert clean["clean"] is True and clean["orphaned_chunks"] == 0
    lines = cli("vfs", "fsck").stdout.splitlines()
    assert "orphaned chunks: 0" in lines  # not "(of 0 files)" while files exist
    old = ObjectId.from_datetime(datetime.now(UTC) - timedelta(hours=2))
    mongo_client[mongo_db_name]["fs.chunks"].insert_one({"files_id": old, "n": 0, "data": b"lost"})
    found = cli("vfs", "fsck", "--json").json()
    assert found["clean"] is False and found["orphaned_chunks"] == 1 and found["repaired"] is False
    text = cli("vfs", "fsck").stdout
    assert "problems found" in text and "orphaned chunks: 1 (left by 1 deleted file)" in text
    repaired = cli("vfs", "fsck", "--repair", "--json").json()
    assert repaired["repaired"] is True and repaired["removed_chunks"] == 1
    assert cli("vfs", "fsck", "--json").json()["clean"] is True


def test_missing_paths_fail_with_one_line(cli: Cli, tmp_path: Path) -> None:
    _seed(cli, tmp_path)
    for args in (
        ("vfs", "cat", "nope.txt"),
        ("vfs", "ls", "nope"),
        ("vfs", "tree", "nope"),
        ("vfs", "get", "nope.txt", str(tmp_path / "x")),
        ("vfs", "rm", "nope.txt"),
        ("vfs", "mv", "nope.txt", "other.txt"),
        ("vfs", "cp", "nope.txt", "other.txt"),
    ):
        line = cli(*args).failed_with_one_line()
        assert "not found" in line.lower(), (args, line)
    assert not (tmp_path / "x").exists()
    assert "root" in cli("vfs", "rm", "-r", "/").failed_with_one_line()
    assert "Invalid path" in cli("vfs", "cat", "a/../b").failed_with_one_line()


def test_bad_usage_exits_2(cli: Cli, tmp_path: Path) -> None:
    assert cli("vfs", "ls", "--bogus").code == 2
    assert cli("vfs", "tree", "--depth", "0").code == 2
    assert "no such local file" in cli("vfs", "put", str(tmp_path / "missing.txt"), "x").failed_with_one_line()
    assert cli("vfs").code == 2
    assert cli("vfs", "frobnicate").code == 2


def test_vfs_group_as_a_real_process(cli_process: Cli, tmp_path: Path) -> None:
    source = tmp_path / "note.txt"
    source.write_text("from a subprocess\n")
    assert cli_process("vfs", "put", str(source), "notes/note.txt").code == 0
    listing = cli_process("vfs", "ls", "--json", "notes").json()
    assert [(e["path"], e["size"]) for e in listing] == [("notes/note.txt", 18)]
    assert cli_process("vfs", "cat", "notes/note.txt").stdout == "from a subprocess\n"
    cli_process("vfs", "cat", "notes/missing.txt").failed_with_one_line()


def test_a_failed_get_names_the_destination_never_its_temporary_file(cli: Cli, tmp_path: Path) -> None:
    _seed(cli, tmp_path)
    nowhere = tmp_path / "no-such-dir" / "hello.txt"
    line = cli("vfs", "get", "workspace/c-1/hello.txt", str(nowhere)).failed_with_one_line()
    assert line == f"aimon-mongo: error: cannot write {nowhere}: No such file or directory"
    assert ".part" not in line and not nowhere.parent.exists()


def test_an_invalid_glob_is_a_usage_error(cli: Cli, tmp_path: Path) -> None:
    _seed(cli, tmp_path)
    for pattern, said in (("[a-", "'['"), ("*.{md,txt}", "'{', '}'"), ("c-1/*.txt", "'/'"), ("", "is empty")):
        run = cli("vfs", "find", pattern)
        assert run.code == 2 and said in run.stderr, (pattern, run.stderr)
        assert "'*' and '?' only" in run.stderr and run.stdout == ""
    assert cli("vfs", "find", "--json", "**.txt").json() == ["workspace/c-1/hello.txt"]  # ** is a *
