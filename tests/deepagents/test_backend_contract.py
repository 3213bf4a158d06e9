"""AimonBackend against deepagents' BackendProtocol: every method, result shape and error literal, on
memory, local and the GridFS stand-in, sync and async. Where deepagents ships the rule (read slicing,
glob and grep matching), our results are compared with its own helpers over the same files."""

from __future__ import annotations

import base64
from datetime import datetime
from typing import Any

import pytest
from deepagents.backends.protocol import BackendProtocol, FileData
from deepagents.backends.utils import (
    EMPTY_OLD_STRING_ERROR,
    _glob_search_files,
    create_file_data,
    grep_matches_from_files,
    slice_read_response,
)

import aimon_mongo._async.deepagents.files as async_files
import aimon_mongo._sync.deepagents.files as sync_files
from aimon_mongo.deepagents import AimonBackend
from aimon_mongo.deepagents.roots import resolve_root, to_agent, to_vfs
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.vfs import AsyncMemoryFileSystem, MemoryFileSystem
from tests.deepagents.conftest import Agent

TEXT = "alpha\nbeta TODO\r\ngamma\n\ndelta TODO\nlast"
FILES = {
    "/README.md": "# project\nTODO: docs\n",
    "/src/app/main.py": "import os\n# TODO: main\n",
    "/src/app/util.py": "def f():\n    return 1\n",
    "/src/lib.rs": "fn main() {} // TODO\n",
    "/.github/workflows/ci.yml": "on: push\n",
    "/.env": "KEY=1\n",
    "/docs/guide.txt": "guide\nTODO later\nTODO again\n",
}


async def _populate(agent: Agent) -> None:
    for path, content in FILES.items():
        assert (await agent.call("write", path, content)).path == path


def test_it_is_a_deepagents_backend() -> None:
    assert issubclass(AimonBackend, BackendProtocol)
    for name in ("ls", "read", "write", "edit", "delete", "grep", "glob", "upload_files", "download_files"):
        assert getattr(AimonBackend, name) is not getattr(BackendProtocol, name)
        assert getattr(AimonBackend, "a" + name) is not getattr(BackendProtocol, "a" + name)


# --- ls ---------------------------------------------------------------------------------------------


async def test_ls_lists_entries_with_deepagents_shapes(agent: Agent) -> None:
    assert (await agent.call("ls", "/")).entries == []  # a new thread's workspace
    await _populate(agent)
    result = await agent.call("ls", "/")
    assert result.error is None
    paths = [entry["path"] for entry in result.entries]
    assert paths == ["/.env", "/.github/", "/README.md", "/docs/", "/src/"]
    by_path = {entry["path"]: entry for entry in result.entries}
    assert by_path["/src/"]["is_dir"] is True and by_path["/src/"]["size"] == 0
    assert by_path["/README.md"] == {
        "path": "/README.md",
        "is_dir": False,
        "size": len(FILES["/README.md"]),
        "modified_at": by_path["/README.md"]["modified_at"],
    }
    datetime.fromisoformat(by_path["/README.md"]["modified_at"])
    nested = await agent.call("ls", "/src")
    assert [entry["path"] for entry in nested.entries] == ["/src/app/", "/src/lib.rs"]


async def test_ls_error_literals(agent: Agent) -> None:
    await agent.call("write", "/f.txt", "x")
    missing = await agent.call("ls", "/nope")
    assert missing.error == "Path '/nope': path_not_found" and missing.entries is None
    a_file = await agent.call("ls", "/f.txt")
    assert a_file.error == "Path '/f.txt': not_a_directory" and a_file.entries is None


# --- read -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("whole", [True, False], ids=["whole", "streamed"])
async def test_read_windows_match_deepagents_slicing(
    agent: Agent, whole: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not whole:  # force the line-by-line path that large files take
        monkeypatch.setattr(async_files, "WHOLE_READ_LIMIT", 8)
        monkeypatch.setattr(sync_files, "WHOLE_READ_LIMIT", 8)
    await agent.call("write", "/notes.txt", TEXT)
    reference = FileData(content=TEXT, encoding="utf-8")
    for offset, limit in [(0, 2000), (0, 2), (2, 2), (4, 10), (5, 1), (-3, 2)]:
        ours = await agent.call("read", "/notes.txt", offset, limit)
        theirs = slice_read_response(reference, offset, limit)
        assert ours.file_data["content"] == theirs.file_data["content"], (offset, limit)
        assert (ours.start_line, ours.end_line) == (theirs.start_line, theirs.end_line)
        assert ours.next_offset == theirs.next_offset
        assert ours.total_lines in (theirs.total_lines, None)
        assert ours.file_data["encoding"] == "utf-8"
    beyond = await agent.call("read", "/notes.txt", 50, 5)
    assert beyond.error == "Line offset 50 exceeds file length (6 lines)"
    zero = await agent.call("read", "/notes.txt", 0, 0)
    assert zero.no_lines_requested and zero.file_data["content"] == ""


async def test_read_error_literals_and_special_files(agent: Agent) -> None:
    assert (await agent.call("read", "/missing.txt")).error == "File '/missing.txt' not found"
    await agent.call("write", "/dir/inner.txt", "x")
    assert (await agent.call("read", "/dir")).error == "File '/dir' not found"
    await agent.call("write", "/empty.txt", "")
    empty = await agent.call("read", "/empty.txt")
    assert empty.error is None and empty.file_data["content"] == "" and empty.start_line is None
    image = bytes(range(256))
    await agent.call("upload_files", [("/pic.png", image)])
    binary = await agent.call("read", "/pic.png")
    assert binary.file_data == {"content": base64.standard_b64encode(image).decode("ascii"), "encoding": "base64"}
    await agent.call("upload_files", [("/latin.txt", "café".encode("latin-1"))])
    assert (await agent.call("read", "/latin.txt")).error.startswith("Error reading file '/latin.txt': ")


# --- write / edit / delete --------------------------------------------------------------------------


async def test_write_stores_under_the_thread_root(agent: Agent) -> None:
    result = await agent.call("write", "/a/b.md", "hello")
    assert result.error is None and result.path == "/a/b.md"
    assert await agent.vfs.read("deepagents/t-1/a/b.md") == b"hello"
    assert (await agent.call("write", "/a/b.md", "again")).path == "/a/b.md"  # overwrite
    assert await agent.vfs.read("deepagents/t-1/a/b.md") == b"again"
    bad = await agent.call("write", "/a/../etc", "x")
    assert bad.path is None and bad.error.startswith("Error writing file '/a/../etc': Invalid path")


async def test_edit_results_and_error_literals(agent: Agent) -> None:
    await agent.call("write", "/e.txt", "one two two three")
    assert (await agent.call("edit", "/e.txt", "one", "1")).occurrences == 1
    assert await agent.vfs.read("deepagents/t-1/e.txt") == b"1 two two three"
    ambiguous = await agent.call("edit", "/e.txt", "two", "2")
    assert ambiguous.error == (
        "Error: String 'two' appears 2 times in file. Use replace_all=True to replace all instances, "
        "or provide a more specific string with surrounding context."
    )
    every = await agent.call("edit", "/e.txt", "two", "2", True)
    assert (every.path, every.occurrences, every.error) == ("/e.txt", 2, None)
    assert (await agent.call("edit", "/e.txt", "zzz", "y")).error == "Error: String not found in file: 'zzz'"
    assert (await agent.call("edit", "/e.txt", "", "y")).error == EMPTY_OLD_STRING_ERROR
    assert (await agent.call("edit", "/nope.txt", "a", "b")).error == "Error: File '/nope.txt' not found"
    await agent.call("upload_files", [("/bin.dat", b"\xff\xfe\x00")])
    assert (await agent.call("edit", "/bin.dat", "a", "b")).error == (
        "Error: Cannot edit binary files with text replacements."
    )


async def test_delete_is_recursive_and_reports_missing(agent: Agent) -> None:
    await _populate(agent)
    assert (await agent.call("delete", "/src")).path == "/src"
    assert [e["path"] for e in (await agent.call("ls", "/")).entries] == ["/.env", "/.github/", "/README.md", "/docs/"]
    assert (await agent.call("delete", "/README.md")).path == "/README.md"
    assert (await agent.call("delete", "/src")).error == "Error: '/src' not found"


# --- grep / glob ------------------------------------------------------------------------------------


def _reference_files() -> dict[str, Any]:
    return {path: create_file_data(content) for path, content in FILES.items()}


async def test_grep_matches_deepagents_literal_search(agent: Agent) -> None:
    await _populate(agent)
    for path, glob in [(None, None), ("/src", None), (None, "*.py"), ("/", "src/**/*.rs"), ("/docs/guide.txt", None)]:
        ours = await agent.call("grep", "TODO", path, glob)
        theirs = grep_matches_from_files(_reference_files(), "TODO", path, glob)
        key = lambda m: (m["path"], m["line"])  # noqa: E731
        assert sorted(ours.matches, key=key) == sorted(theirs.matches, key=key), (path, glob)
        assert ours.error is None and ours.truncated is False
    capped = await agent.call("grep", "TODO", None, None, max_count=2)
    assert len(capped.matches) == 2 and capped.truncated is True
    exact = await agent.call("grep", "TODO", None, None, max_count=5)
    assert len(exact.matches) == 5 and exact.truncated is False
    refused = await agent.call("grep", "TODO", None, "../*.py")
    assert refused.error == "Path traversal not allowed in glob pattern '../*.py'"
    assert (await agent.call("grep", "TODO", "/missing")).matches == []


GLOBS = ["*.py", "**/*.py", "src/**/*.py", "/*.md", "*.yml", "**/*.yml", "*", ".env", "*.{md,rs}", "src/*", "**"]


async def test_glob_matches_deepagents_glob(agent: Agent) -> None:
    await _populate(agent)
    for pattern in GLOBS:
        for path in (None, "/src"):
            ours = await agent.call("glob", pattern, path)
            theirs = _glob_search_files(_reference_files(), pattern, path)
            expected = [] if theirs == "No files found" else theirs.split("\n")
            assert ours.error is None
            assert sorted(info["path"] for info in ours.matches) == sorted(expected), (pattern, path)
    result = await agent.call("glob", "*.py")
    assert all(set(info) == {"path", "is_dir", "size", "modified_at"} and not info["is_dir"] for info in result.matches)
    stamps = [info["modified_at"] for info in result.matches]
    assert stamps == sorted(stamps, reverse=True)
    assert (await agent.call("glob", "../x")).error == "Path traversal not allowed in glob pattern '../x'"
    assert (await agent.call("glob", "*.py", "/missing")).matches == []


# --- upload / download ------------------------------------------------------------------------------


async def test_upload_and_download_round_trip_with_error_literals(agent: Agent) -> None:
    blob = bytes(range(256)) * 5
    uploaded = await agent.call("upload_files", [("/data/blob.bin", blob), ("/data/t.txt", b"text"), ("/x/../y", b"")])
    assert [(r.path, r.error) for r in uploaded] == [
        ("/data/blob.bin", None),
        ("/data/t.txt", None),
        ("/x/../y", "invalid_path"),
    ]
    downloaded = await agent.call("download_files", ["/data/blob.bin", "/missing", "/data", "/data/t.txt"])
    assert [(r.path, r.content, r.error) for r in downloaded] == [
        ("/data/blob.bin", blob, None),
        ("/missing", None, "file_not_found"),
        ("/data", None, "is_directory"),
        ("/data/t.txt", b"text", None),
    ]
    assert (await agent.call("upload_files", [("/data", b"onto a directory")]))[0].error == "is_directory"


# --- roots ------------------------------------------------------------------------------------------


async def test_each_thread_has_its_own_root(agent: Agent) -> None:
    await agent.call("write", "/shared.txt", "thread one")
    agent.thread = "t-2"
    assert (await agent.call("read", "/shared.txt")).error == "File '/shared.txt' not found"
    await agent.call("write", "/shared.txt", "thread two")
    assert await agent.vfs.read("deepagents/t-1/shared.txt") == b"thread one"
    assert await agent.vfs.read("deepagents/t-2/shared.txt") == b"thread two"


def test_roots_resolve_from_the_run_config() -> None:
    config = {"configurable": {"thread_id": "t-9", "user_id": "ann"}}
    assert resolve_root("deepagents/{thread_id}", config) == "deepagents/t-9"
    assert resolve_root("users/{user_id}/{thread_id}", config) == "users/ann/t-9"
    assert resolve_root("", None) == "" and resolve_root("fixed/", None) == "fixed"
    assert resolve_root(lambda cfg: f"by-fn/{(cfg or {})['configurable']['user_id']}", config) == "by-fn/ann"
    with pytest.raises(RuntimeError, match=r"needs configurable thread_id \(outside a LangGraph run\)"):
        resolve_root("deepagents/{thread_id}", None)
    with pytest.raises(InvalidArgumentError, match="cannot name a directory"):
        resolve_root("deepagents/{thread_id}", {"configurable": {"thread_id": "../x"}})
    assert to_vfs("r", "/a/b") == "r/a/b" and to_vfs("r", "/") == "r" and to_vfs("", "/a") == "a"
    assert to_agent("r", "r/a/b") == "/a/b" and to_agent("", "a") == "/a" and to_agent("r", "r") == "/"


def test_outside_a_run_a_template_root_is_a_clear_error_result() -> None:
    backend = AimonBackend(MemoryFileSystem())
    result = backend.write("/a.txt", "x")
    assert result.path is None and "needs configurable thread_id (outside a LangGraph run)" in result.error
    fixed = AimonBackend(MemoryFileSystem(), root="workspace")
    assert fixed.write("/a.txt", "x").path == "/a.txt"
    assert fixed.read("/a.txt").file_data["content"] == "x"


def test_construction_names_the_flavour_problems() -> None:
    only_async = AimonBackend(AsyncMemoryFileSystem(), root="w")
    with pytest.raises(RuntimeError, match="only an async filesystem: run the agent with ainvoke"):
        only_async.ls("/")
    with pytest.raises(InvalidArgumentError, match="sync_filesystem got a async filesystem"):
        AimonBackend(AsyncMemoryFileSystem(), sync_filesystem=AsyncMemoryFileSystem())  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="root must be a str template or a callable"):
        AimonBackend(MemoryFileSystem(), root=3)  # type: ignore[arg-type]
