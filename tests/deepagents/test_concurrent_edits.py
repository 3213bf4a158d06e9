"""Two editors on one file, 150 edits each (500 under ``--scale``): as threads (memory, local, GridFS) and as
processes (local, GridFS). Every edit inserts its own line, so a lost edit would be a missing line."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from aimon_mongo.deepagents import AimonBackend
from aimon_mongo.vfs import GridFSFileSystem, LocalFileSystem, MemoryFileSystem
from tests.reliability.plugin import Sizes

START = "<a-end>\n<b-end>\n"


def edit_many(backend: AimonBackend, who: str, count: int) -> list[str]:
    """``count`` edits that each add the line ``<who><i>`` before the editor's end marker; the errors seen."""
    errors = []
    for i in range(count):
        result = backend.edit("/shared.md", f"<{who}-end>", f"{who}{i}\n<{who}-end>")
        if result.error is not None or result.occurrences != 1:
            errors.append(f"{who}{i}: {result.error}")
    return errors


def _check(content: str, edits: int) -> None:
    lines = content.splitlines()
    for who in "ab":
        mine = [line for line in lines if line.startswith(who) and not line.startswith("<")]
        assert mine == [f"{who}{i}" for i in range(edits)], f"{who}: {len(mine)} of {edits} edits present"
    assert len(lines) == 2 * edits + 2


def _filesystem(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    if kind == "memory":
        return MemoryFileSystem()
    if kind == "local":
        return LocalFileSystem(tmp_path / "root")
    return GridFSFileSystem(request.getfixturevalue("mongo_client"), request.getfixturevalue("mongo_db_name"))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["memory", "local", "gridfs"])
def test_two_threads_editing_one_file_lose_no_edit(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest, sizes: Sizes
) -> None:
    edits = sizes.pick(ci=150, full=500)
    with _filesystem(kind, tmp_path, request) as fs:
        backend = AimonBackend(fs, root="editors")
        backend.write("/shared.md", START)
        errors: dict[str, list[str]] = {}
        workers = [
            threading.Thread(target=lambda w=who: errors.setdefault(w, edit_many(backend, w, edits))) for who in "ab"
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert errors == {"a": [], "b": []}
        _check(fs.read_text("editors/shared.md"), edits)


_EDITOR = """
import sys
from pymongo import MongoClient
from aimon_mongo.deepagents import AimonBackend
from aimon_mongo.vfs import GridFSFileSystem, LocalFileSystem
from tests.deepagents.test_concurrent_edits import edit_many

kind, where, who, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if kind == "local":
    fs = LocalFileSystem(where)
else:
    uri, db = where.split("|")
    fs = GridFSFileSystem(MongoClient(uri, tz_aware=True), db)
with fs:
    errors = edit_many(AimonBackend(fs, root="editors"), who, count)
print("\\n".join(errors))
sys.exit(1 if errors else 0)
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["local", "gridfs"])
def test_two_processes_editing_one_file_lose_no_edit(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest, sizes: Sizes
) -> None:
    edits = sizes.pick(ci=150, full=500)
    where = (
        str(tmp_path / "root")
        if kind == "local"
        else f"{request.getfixturevalue('mongo_uri')}|{request.getfixturevalue('mongo_db_name')}"
    )
    with _filesystem(kind, tmp_path, request) as fs:
        AimonBackend(fs, root="editors").write("/shared.md", START)
        root = Path(__file__).resolve().parents[2]
        editors = [
            subprocess.Popen(
                [sys.executable, "-c", textwrap.dedent(_EDITOR), kind, where, who, str(edits)],
                cwd=root,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for who in "ab"
        ]
        outcomes = [editor.communicate(timeout=900) for editor in editors]
        assert [editor.returncode for editor in editors] == [0, 0], outcomes
        _check(fs.read_text("editors/shared.md"), edits)
