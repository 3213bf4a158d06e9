"""fsspec over any async VFS (protocol ``aimon``), and files left open never hang the interpreter."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import fsspec
import pytest

from aimon_mongo.vfs import AsyncLocalFileSystem, AsyncMemoryFileSystem, MemoryFileSystem
from aimon_mongo.vfs.fsspec import AimonFileSystemSpec


@pytest.mark.parametrize("kind", ["memory", "local"])
def test_aimon_protocol_serves_memory_and_local(kind: str, tmp_path: Path) -> None:
    vfs = AsyncMemoryFileSystem() if kind == "memory" else AsyncLocalFileSystem(tmp_path / "root")
    fs = fsspec.filesystem("aimon", filesystem=vfs, skip_instance_cache=True)
    assert isinstance(fs, AimonFileSystemSpec)
    fs.pipe_file("aimon://notes/a.txt", b"hello")
    with fs.open("notes/a.txt", "ab") as f:
        f.write(b" world")
    assert fs.cat_file("notes/a.txt") == b"hello world"
    assert fs.cat_file("notes/a.txt", start=6) == b"world"
    assert fs.ls("notes", detail=False) == ["notes/a.txt"]
    assert fs.find("") == ["notes/a.txt"]
    fs.rm("notes", recursive=True)
    assert not fs.exists("notes/a.txt")


def test_aimon_protocol_refuses_a_sync_filesystem() -> None:
    with pytest.raises(TypeError, match="must be an async VFS"):
        AimonFileSystemSpec(filesystem="not a filesystem", skip_instance_cache=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs filesystem="):
        AimonFileSystemSpec(skip_instance_cache=True).cat_file("x")
    assert MemoryFileSystem  # the sync flavour is for direct use; fsspec needs the async one


_UNCLOSED = """
import fsspec
from aimon_mongo.vfs.fsspec import GridFSFileSystemSpec

uri, db = {uri!r}, {db!r}
fs = GridFSFileSystemSpec(uri=uri, database=db, skip_instance_cache=True)
fs.pipe_file("a.txt", b"payload")
print(fs.open("a.txt").read())
print(fsspec.open(f"gridfs://{{db}}/fs/a.txt", uri=uri).open().read())
handle = fs.open("b.txt", "wb")
handle.write(b"never closed")
print("done")
"""


def test_files_left_open_do_not_hang_the_interpreter_at_exit(mongo_uri: str, mongo_db_name: str) -> None:
    script = textwrap.dedent(_UNCLOSED.format(uri=mongo_uri, db=mongo_db_name))
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.split() == ["b'payload'", "b'payload'", "done"]
    assert "Traceback" not in finished.stderr
