"""The VFS operations agents use, every backend flavour: append, conditional writes, ranged and line reads,
glob, grep, seek/tell, writer tell, touch, path-like paths."""

from __future__ import annotations

import asyncio
import io
import os
from datetime import UTC, datetime, timedelta
from pathlib import PurePosixPath
from typing import Any

import pytest

from aimon_mongo.errors import (
    InsufficientStorageError,
    InvalidArgumentError,
    InvalidPathError,
    RevisionMismatchError,
    VfsFileNotFoundError,
)
from aimon_mongo.vfs.globbing import InvalidGlobError

# --- append -----------------------------------------------------------------------------------------


async def test_append_creates_then_extends_and_changes_the_etag(fs: Any) -> None:
    first = await fs.append("logs/run.log", "one\n")
    assert await fs.read("logs/run.log") == b"one\n"
    second = await fs.append("logs/run.log", b"two\n")
    assert await fs.read("logs/run.log") == b"one\ntwo\n"
    assert second.size == 8 and second.etag != first.etag


async def test_append_refuses_streams_and_other_types(fs: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="append takes bytes or str"):
        await fs.append("a.txt", io.BytesIO(b"x"))


async def test_open_output_append_starts_from_the_content_and_reports_tell(fs: Any) -> None:
    await fs.write("notes.md", b"head\n")
    writer = await fs.open_output("notes.md", append=True)
    assert writer.tell() == 5
    await writer.write(b"tail\n")
    assert writer.tell() == 10
    info = await writer.close()
    assert info.size == 10
    assert await fs.read("notes.md") == b"head\ntail\n"


async def test_appending_writer_that_lost_a_race_commits_nothing(fs: Any) -> None:
    await fs.write("shared.txt", b"base\n")
    writer = await fs.open_output("shared.txt", append=True)
    await writer.write(b"mine\n")
    await fs.append("shared.txt", b"theirs\n")
    with pytest.raises(RevisionMismatchError):
        await writer.close()
    assert await fs.read("shared.txt") == b"base\ntheirs\n"


async def test_concurrent_appends_all_land_and_no_file_is_torn(fs: Any) -> None:
    lines = [f"line-{i:02d}\n".encode() for i in range(12)]
    await asyncio.gather(*(fs.append("journal.txt", line) for line in lines))
    content = await fs.read("journal.txt")
    assert sorted(content.splitlines(keepends=True)) == lines


async def test_append_over_the_cap_is_refused_and_keeps_the_file(make_fs: Any) -> None:
    capped = await make_fs(max_file_size=6)
    await capped.write("c.txt", b"1234")
    with pytest.raises(InsufficientStorageError):
        await capped.append("c.txt", b"567")
    assert await capped.read("c.txt") == b"1234"


# --- conditional writes -----------------------------------------------------------------------------


async def test_write_if_revision_succeeds_at_that_revision_only(fs: Any) -> None:
    first = await fs.write("cfg.json", b"{}")
    second = await fs.write("cfg.json", b'{"a": 1}', if_revision=first.etag)
    assert await fs.read("cfg.json") == b'{"a": 1}'
    with pytest.raises(RevisionMismatchError) as caught:
        await fs.write("cfg.json", b'{"b": 2}', if_revision=first.etag)
    assert caught.value.expected == first.etag and caught.value.actual == second.etag
    assert caught.value.path == "cfg.json"
    assert f"cfg.json is at revision {second.etag}" in str(caught.value)
    assert await fs.read("cfg.json") == b'{"a": 1}'


async def test_write_if_revision_of_a_missing_file_is_refused(fs: Any) -> None:
    with pytest.raises(RevisionMismatchError, match="is absent") as caught:
        await fs.write("gone.txt", b"x", if_revision="sha256:" + "0" * 64)
    assert caught.value.actual is None
    assert not await fs.exists("gone.txt")


async def test_write_if_absent_creates_once(fs: Any) -> None:
    await fs.write("lock.txt", b"first", if_absent=True)
    with pytest.raises(RevisionMismatchError, match="the write required no file"):
        await fs.write("lock.txt", b"second", if_absent=True)
    assert await fs.read("lock.txt") == b"first"


async def test_conditions_are_validated(fs: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="cannot both be given"):
        await fs.write("x.txt", b"x", if_revision="e", if_absent=True)
    with pytest.raises(InvalidArgumentError, match="if_revision must be a non-empty etag"):
        await fs.write("x.txt", b"x", if_revision="")
    assert not await fs.exists("x.txt")


async def test_a_conditional_stream_is_checked_again_at_close(fs: Any) -> None:
    base = await fs.write("doc.txt", b"v1")
    writer = await fs.open_output("doc.txt", if_revision=base.etag)
    await writer.write(b"v2 from a stale reader")
    await fs.write("doc.txt", b"v2 from someone else")
    with pytest.raises(RevisionMismatchError):
        await writer.close()
    assert await fs.read("doc.txt") == b"v2 from someone else"


async def test_exactly_one_of_many_conditional_writers_on_one_revision_wins(fs: Any) -> None:
    base = await fs.write("race.txt", b"base")

    async def attempt(i: int) -> bool:
        try:
            await fs.write("race.txt", f"writer {i}".encode(), if_revision=base.etag)
        except RevisionMismatchError:
            return False
        return True

    outcomes = await asyncio.gather(*(attempt(i) for i in range(8)))
    assert outcomes.count(True) == 1
    winner = outcomes.index(True)
    assert await fs.read("race.txt") == f"writer {winner}".encode()
    assert await fs.ls_recursive(".") == ["race.txt"]


async def test_exactly_one_of_many_create_if_absent_writers_wins(fs: Any) -> None:
    async def attempt(i: int) -> bool:
        try:
            await fs.write("once.txt", f"creator {i}".encode(), if_absent=True)
        except RevisionMismatchError:
            return False
        return True

    outcomes = await asyncio.gather(*(attempt(i) for i in range(6)))
    assert outcomes.count(True) == 1
    assert await fs.read("once.txt") == f"creator {outcomes.index(True)}".encode()


# --- ranged reads and line windows ------------------------------------------------------------------


async def test_read_range_follows_fsspec_conventions(fs: Any) -> None:
    await fs.write("digits.txt", b"0123456789")
    assert await fs.read_range("digits.txt", 2, 5) == b"234"
    assert await fs.read_range("digits.txt") == b"0123456789"
    assert await fs.read_range("digits.txt", 7) == b"789"
    assert await fs.read_range("digits.txt", -3) == b"789"
    assert await fs.read_range("digits.txt", None, -8) == b"01"
    assert await fs.read_range("digits.txt", 8, 100) == b"89"
    assert await fs.read_range("digits.txt", 20, 30) == b""
    assert await fs.read_range("digits.txt", 5, 2) == b""


async def test_read_range_crosses_chunk_boundaries(make_fs: Any) -> None:
    small = await make_fs(chunk_size=7)
    data = bytes(range(256)) * 3
    await small.write("blob.bin", data)
    assert await small.read_range("blob.bin", 5, 700) == data[5:700]
    assert await small.read_range("blob.bin", 763) == data[763:]


async def test_read_lines_returns_a_window_with_line_ends(fs: Any) -> None:
    await fs.write("poem.txt", "one\ntwo\r\nthree\rfour\n\nsix")
    window = await fs.read_lines("poem.txt", 1, 2)
    assert window.lines == ["two\r\n", "three\r"]
    assert window.offset == 1 and window.has_more and window.total_lines is None
    rest = await fs.read_lines("poem.txt", 3)
    assert rest.lines == ["four\n", "\n", "six"]
    assert rest.total_lines == 6 and not rest.has_more
    assert (await fs.read_lines("poem.txt", 0, 6)).lines == "one\ntwo\r\nthree\rfour\n\nsix".splitlines(True)
    beyond = await fs.read_lines("poem.txt", 10, 5)
    assert beyond.lines == [] and beyond.total_lines == 6


async def test_read_lines_stops_early_and_validates(make_fs: Any) -> None:
    small = await make_fs(chunk_size=16)
    await small.write("big.txt", "".join(f"row {i}\n" for i in range(300)))
    window = await small.read_lines("big.txt", 10, 3)
    assert window.lines == ["row 10\n", "row 11\n", "row 12\n"] and window.has_more
    with pytest.raises(InvalidArgumentError, match="offset must be"):
        await small.read_lines("big.txt", -1)
    with pytest.raises(InvalidArgumentError, match="limit must be"):
        await small.read_lines("big.txt", 0, -2)
    await small.write("latin1.txt", "café".encode("latin-1"))
    with pytest.raises(UnicodeDecodeError):
        await small.read_lines("latin1.txt")


# --- glob -------------------------------------------------------------------------------------------


async def _tree(fs: Any) -> None:
    for path in (
        "top.py",
        "README.md",
        "src/app/main.py",
        "src/app/util.py",
        "src/lib.rs",
        "docs/guide.md",
        ".github/workflows/ci.yml",
        ".env",
        "f1.txt",
        "f2.txt",
        "f3.txt",
    ):
        await fs.write(path, path.encode())


async def _glob(fs: Any, pattern: str, path: str = ".") -> list[str]:
    return [info.path for info in await fs.glob(pattern, path)]


async def test_glob_bare_pattern_matches_base_names_at_any_depth(fs: Any) -> None:
    await _tree(fs)
    assert await _glob(fs, "*.py") == ["src/app/main.py", "src/app/util.py", "top.py"]
    assert await _glob(fs, "*.yml") == [".github/workflows/ci.yml"]
    assert await _glob(fs, "*") == [p for p in await fs.ls_recursive(".") if not p.rpartition("/")[2].startswith(".")]
    assert await _glob(fs, ".env") == [".env"]


async def test_glob_paths_globstar_braces_classes_and_anchor(fs: Any) -> None:
    await _tree(fs)
    assert await _glob(fs, "src/**/*.py") == ["src/app/main.py", "src/app/util.py"]
    assert await _glob(fs, "**/*.yml") == []  # ** never enters a dot directory
    assert await _glob(fs, "/*.py") == ["top.py"]
    assert await _glob(fs, "*.{md,rs}") == ["README.md", "docs/guide.md", "src/lib.rs"]
    assert await _glob(fs, "f[12].txt") == ["f1.txt", "f2.txt"]
    assert await _glob(fs, "f[!12].txt") == ["f3.txt"]
    assert await _glob(fs, "f{1..2}.txt") == ["f1.txt", "f2.txt"]
    assert await _glob(fs, "src/*") == ["src/lib.rs"]
    assert await _glob(fs, "*.py", "src") == ["src/app/main.py", "src/app/util.py"]
    assert await _glob(fs, "app/*.py", "src") == ["src/app/main.py", "src/app/util.py"]
    infos = await fs.glob("main.py")
    assert infos[0].size == len(b"src/app/main.py") and not infos[0].is_dir


async def test_glob_refusals_and_limits(fs: Any) -> None:
    await _tree(fs)
    with pytest.raises(InvalidGlobError, match="path traversal"):
        await fs.glob("../*.py")
    with pytest.raises(VfsFileNotFoundError):
        await fs.glob("*.py", "missing")
    assert len(await fs.glob("*", max_results=2)) == 2
    assert await _glob(fs, "*.py", "top.py") == ["top.py"]


# --- grep -------------------------------------------------------------------------------------------


async def test_grep_finds_literal_lines_with_numbers(fs: Any) -> None:
    await fs.write("a.py", "import os\n# TODO: x\nprint('TODO')\n")
    await fs.write("sub/b.md", "nothing\r\nTODO here\r\n")
    await fs.write("sub/c.txt", "no match")
    result = await fs.grep("TODO")
    assert [(m.path, m.line, m.text) for m in result.matches] == [
        ("a.py", 2, "# TODO: x"),
        ("a.py", 3, "print('TODO')"),
        ("sub/b.md", 2, "TODO here\r"),
    ]
    assert not result.truncated and result.truncation_reason is None
    assert result.files_searched == 3
    assert [m.path for m in (await fs.grep("TODO", glob="*.md")).matches] == ["sub/b.md"]
    assert [m.path for m in (await fs.grep("TODO", "sub")).matches] == ["sub/b.md"]
    assert [m.line for m in (await fs.grep("TODO", "a.py")).matches] == [2, 3]
    assert (await fs.grep("(.*)")).matches == []  # a literal, never a regex


async def test_grep_max_count_truncates_only_when_more_exist(fs: Any) -> None:
    await fs.write("many.txt", "hit\n" * 5)
    exact = await fs.grep("hit", max_count=5)
    assert len(exact.matches) == 5 and not exact.truncated
    cut = await fs.grep("hit", max_count=3)
    assert len(cut.matches) == 3 and cut.truncated and cut.truncation_reason == "max_count"


async def test_grep_stops_at_the_byte_budget(fs: Any) -> None:
    for i in range(4):
        await fs.write(f"f{i}.txt", f"needle {i}\n" + "x" * 100)
    capped = await fs.grep("needle", max_bytes=250)
    assert capped.truncated and capped.truncation_reason == "max_bytes"
    assert [m.text for m in capped.matches] == ["needle 0", "needle 1"]
    assert capped.bytes_searched <= 250
    whole = await fs.grep("needle", max_bytes=None)
    assert len(whole.matches) == 4 and not whole.truncated


async def test_grep_skips_binary_files(fs: Any) -> None:
    await fs.write("bin.dat", b"needle\x00\x01")
    await fs.write("latin.txt", "needle café".encode("latin-1"))
    await fs.write("text.txt", "needle ok")
    assert [m.path for m in (await fs.grep("needle")).matches] == ["text.txt"]


async def test_grep_streams_files_larger_than_a_chunk(make_fs: Any) -> None:
    small = await make_fs(chunk_size=10)
    await small.write("long.txt", "".join(f"line {i} {'needle' if i % 50 == 7 else ''}\n" for i in range(300)))
    result = await small.grep("needle")
    assert [m.line for m in result.matches] == [i + 1 for i in range(300) if i % 50 == 7]


# --- seek / tell ------------------------------------------------------------------------------------


async def test_reader_seek_follows_io_conventions(fs: Any) -> None:
    await fs.write("s.bin", b"abcdefghij")
    async with await fs.open_input("s.bin") as reader:
        assert await reader.seek(3) == 3 and reader.tell() == 3
        assert await reader.read(2) == b"de"
        assert await reader.seek(-1, os.SEEK_CUR) == 4
        assert await reader.read(None) == b"efghij"
        assert await reader.seek(-2, os.SEEK_END) == 8
        assert await reader.read() == b"ij"
        assert await reader.seek(50) == 50 and await reader.read(3) == b""
        with pytest.raises(ValueError, match="invalid whence"):
            await reader.seek(0, 3)
        with pytest.raises(ValueError, match="negative seek position -1"):
            await reader.seek(-1)
        with pytest.raises(ValueError, match="negative seek position -5"):
            await reader.seek(-15, os.SEEK_END)
        assert reader.tell() == 50
    with pytest.raises(ValueError, match="closed file"):
        await reader.read(1)


async def test_writer_reports_tell(fs: Any) -> None:
    writer = await fs.open_output("w.bin")
    assert writer.tell() == 0
    await writer.write(b"12345")
    await writer.write(bytearray(b"678"))
    assert writer.tell() == 8
    await writer.close()


# --- touch ------------------------------------------------------------------------------------------


async def test_touch_creates_and_sets_the_modified_time(fs: Any) -> None:
    assert fs.supports_set_modified is True
    created = await fs.touch("t/empty.txt")
    assert created.size == 0 and await fs.read("t/empty.txt") == b""
    when = datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=UTC)
    await fs.write("t/data.txt", b"keep")
    touched = await fs.touch("t/data.txt", when)
    assert touched.modified == when
    assert (await fs.info("t/data.txt")).modified == when
    assert await fs.read("t/data.txt") == b"keep"
    later = await fs.touch("t/data.txt")
    assert later.modified > when + timedelta(days=1)


async def test_touch_refuses_directories_and_naive_times(fs: Any) -> None:
    await fs.mkdir("d")
    with pytest.raises(InvalidPathError):
        await fs.touch("d")
    with pytest.raises(InvalidArgumentError, match="timezone-aware"):
        await fs.touch("x.txt", datetime(2024, 1, 1))


# --- path-like paths --------------------------------------------------------------------------------


async def test_pure_posix_paths_are_normal_path_inputs(fs: Any) -> None:
    await fs.write(PurePosixPath("pp/a.txt"), b"x")
    assert await fs.read(PurePosixPath("pp") / "a.txt") == b"x"
    assert await fs.ls(PurePosixPath("pp")) == ["pp/a.txt"]
    assert await fs.exists(PurePosixPath("pp/a.txt"))
    with pytest.raises(InvalidPathError, match="absolute paths are not allowed"):
        await fs.read(PurePosixPath("/pp/a.txt"))
    with pytest.raises(InvalidPathError, match=r"path must be a str or an os\.PathLike"):
        await fs.read(b"pp/a.txt")


async def test_retries_cover_a_lost_read_race_and_stop_after_the_attempts() -> None:
    from aimon_mongo._async.vfs.retry import retry_conflicts
    from aimon_mongo.errors import FileReplacedError

    failures = [FileReplacedError("f.txt"), RevisionMismatchError("f.txt", "a", "b")]

    async def flaky() -> str:
        if failures:
            raise failures.pop(0)
        return "done"

    assert await retry_conflicts(flaky) == "done" and failures == []

    async def always() -> str:
        raise RevisionMismatchError("f.txt", "a", "b")

    with pytest.raises(RevisionMismatchError):
        await retry_conflicts(always, attempts=3)
    with pytest.raises(InvalidArgumentError, match="attempts must be an int >= 1"):
        await retry_conflicts(always, attempts=0)


# --- attributes -------------------------------------------------------------------------------------


async def test_attributes_are_kept_and_listed(fs: Any, backend: str) -> None:
    with pytest.raises(InvalidArgumentError, match="attributes must map non-empty text keys to text"):
        await fs.write("a/x.txt", b"x", attributes={"n": 1})
    with pytest.raises(InvalidArgumentError, match="attributes must map"):
        await fs.write("a/x.txt", b"x", attributes={"": "v"})
    if not backend.startswith(("memory", "gridfs")):
        assert fs.supports_attributes is False
        with pytest.raises(InvalidArgumentError, match="keeps no file attributes"):
            await fs.write("a/x.txt", b"x", attributes={"k": "v"})
        assert not await fs.exists("a/x.txt")
        assert (await fs.write("a/x.txt", b"x", attributes={})).custom_metadata == {}
        return
    assert fs.supports_attributes is True
    written = await fs.write("a/x.txt", b"x", attributes={"kind": "note", "path": "not the path"})
    assert written.custom_metadata == {"kind": "note", "path": "not the path"}
    [listed] = await fs.ls_info("a")
    assert listed.custom_metadata == written.custom_metadata == (await fs.info("a/x.txt")).custom_metadata
    await fs.write("a/x.txt", b"y")  # a new revision: the attributes described the old one
    assert (await fs.info("a/x.txt")).custom_metadata == {}
    writer = await fs.open_output("a/s.txt", attributes={"k": "v"})
    await writer.write(b"stream")
    assert (await writer.close()).custom_metadata == {"k": "v"}
