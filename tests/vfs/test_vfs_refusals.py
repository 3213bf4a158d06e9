"""Path refusal matrix: every unsafe path is refused by every operation of every backend, naming the
path and the reason, and nothing is stored or changed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from aimon_mongo.errors import InvalidPathError

BAD_PATHS = {
    "../etc/passwd": "path traversal is not allowed",
    "..\\x": "path traversal is not allowed",
    "a/..": "path traversal is not allowed",
    "..": "path traversal is not allowed",
    "a\x00b": "path contains null byte",
    "a\x01b": "path contains control characters",
    "tab\there": "path contains control characters",
    "del\x7f": "path contains control characters",
    "   ": "path cannot be empty or blank",
    "/etc/passwd": "absolute paths are not allowed",
    "a//b": "empty path segment",
    "./a": "'.' path segment is not allowed",
    "a\\b": "backslash is not a path separator",
}


async def _walk(fs: Any, path: str) -> list[Any]:
    return [info async for info in fs.walk(path)]


OPERATIONS: dict[str, Callable[[Any, str], Awaitable[Any]]] = {
    "write": lambda fs, p: fs.write(p, b"x"),
    "read": lambda fs, p: fs.read(p),
    "read_text": lambda fs, p: fs.read_text(p),
    "open_input": lambda fs, p: fs.open_input(p),
    "open_output": lambda fs, p: fs.open_output(p),
    "exists": lambda fs, p: fs.exists(p),
    "is_dir": lambda fs, p: fs.is_dir(p),
    "is_file": lambda fs, p: fs.is_file(p),
    "info": lambda fs, p: fs.info(p),
    "ls": lambda fs, p: fs.ls(p),
    "ls_info": lambda fs, p: fs.ls_info(p),
    "ls_recursive": lambda fs, p: fs.ls_recursive(p),
    "walk": _walk,
    "find": lambda fs, p: fs.find(p, "*"),
    "mkdir": lambda fs, p: fs.mkdir(p),
    "delete": lambda fs, p: fs.delete(p),
    "delete_recursive": lambda fs, p: fs.delete_recursive(p),
    "copy_source": lambda fs, p: fs.copy(p, "target.txt"),
    "copy_destination": lambda fs, p: fs.copy("ok.txt", p, overwrite=True),
    "move_source": lambda fs, p: fs.move(p, "target.txt"),
    "move_destination": lambda fs, p: fs.move("ok.txt", p, overwrite=True),
    "usage": lambda fs, p: fs.usage(p),
}

FILE_OPERATIONS = [
    "write",
    "read",
    "read_text",
    "open_input",
    "open_output",
    "copy_source",
    "copy_destination",
    "move_source",
    "move_destination",
]


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
async def test_every_operation_refuses_every_unsafe_path(fs: Any, operation: str) -> None:
    await fs.write("ok.txt", b"intact")
    call = OPERATIONS[operation]
    for bad, reason in BAD_PATHS.items():
        with pytest.raises(InvalidPathError) as caught:
            await call(fs, bad)
        message = str(caught.value)
        assert reason in message, (operation, bad, message)
        assert message.startswith("Invalid path '") and "\x00" not in message
    assert await fs.ls_recursive(".") == ["ok.txt"]
    assert await fs.read("ok.txt") == b"intact"


@pytest.mark.parametrize("operation", FILE_OPERATIONS)
async def test_file_operations_refuse_the_root_blank_and_a_trailing_separator(fs: Any, operation: str) -> None:
    await fs.write("ok.txt", b"intact")
    call = OPERATIONS[operation]
    for bad, reason in {
        "": "path cannot be empty or blank",
        ".": "path names the root directory",
        "dir/": "file path cannot end with a separator",
    }.items():
        with pytest.raises(InvalidPathError, match=reason):
            await call(fs, bad)
    assert await fs.ls_recursive(".") == ["ok.txt"]


async def test_a_non_string_path_is_refused(fs: Any) -> None:
    for bad in (None, 42, b"bytes.txt"):
        with pytest.raises(InvalidPathError, match="path must be a str"):
            await fs.write(bad, b"x")
        with pytest.raises(InvalidPathError, match="path must be a str"):
            await fs.exists(bad)
