"""The VFS contract, every backend flavour: the 22 shared cases of the reference testkit, then ours."""

from __future__ import annotations

import io
from typing import Any

import pytest

from aimon_mongo.errors import (
    DirectoryNotEmptyError,
    InsufficientStorageError,
    InvalidArgumentError,
    InvalidPathError,
    VfsFileExistsError,
    VfsFileNotFoundError,
    VfsStateError,
    VirtualFileSystemError,
)
from aimon_mongo.model.vfs import BackendState

CAP = 4

# --- the 22 cases (root spelled ".", cap 4) ---------------------------------------------------------


async def test_01_implied_directory_exists_and_file_is_not_a_directory(fs: Any) -> None:
    await fs.write("docs/a.txt", b"x")
    assert await fs.exists("docs") and await fs.is_dir("docs")
    assert await fs.exists("docs/a.txt") and not await fs.is_dir("docs/a.txt")


async def test_02_created_empty_directory_exists_and_lists_empty(fs: Any) -> None:
    await fs.mkdir("empty")
    assert await fs.exists("empty") and await fs.is_dir("empty")
    assert await fs.ls("empty") == []


async def test_03_mkdir_p_twice_makes_every_level(fs: Any) -> None:
    await fs.mkdir("a/b/c")
    await fs.mkdir("a/b/c")
    for level in ("a", "a/b", "a/b/c"):
        assert await fs.is_dir(level)


async def test_04_missing_path_neither_exists_nor_is_a_directory(fs: Any) -> None:
    assert not await fs.exists("nope")
    assert not await fs.is_dir("nope")


async def test_05_metadata_tells_directories_from_files(fs: Any) -> None:
    await fs.write("dir/a.txt", b"x")
    assert (await fs.info("dir")).is_dir
    assert not (await fs.info("dir/a.txt")).is_dir


async def _three_files(fs: Any) -> None:
    await fs.write("root.txt", b"1")
    await fs.write("dir/nested.txt", b"22")
    await fs.write("dir/deeper/x.txt", b"333")


async def test_06_ls_lists_files_and_immediate_subdirectories_relative_to_root(fs: Any) -> None:
    await _three_files(fs)
    assert sorted(await fs.ls(".")) == ["dir", "root.txt"]
    assert sorted(await fs.ls("dir")) == ["dir/deeper", "dir/nested.txt"]


async def test_07_ls_recursive_lists_files_only(fs: Any) -> None:
    await _three_files(fs)
    await fs.mkdir("emptydir")
    assert await fs.ls_recursive(".") == ["dir/deeper/x.txt", "dir/nested.txt", "root.txt"]


async def test_08_listing_a_missing_path_is_not_found(fs: Any) -> None:
    with pytest.raises(VfsFileNotFoundError):
        await fs.ls("missing")
    with pytest.raises(VfsFileNotFoundError):
        await fs.ls_recursive("missing")


async def test_09_listing_a_file_is_an_invalid_path(fs: Any) -> None:
    await fs.write("f.txt", b"x")
    with pytest.raises(InvalidPathError, match="Not a directory"):
        await fs.ls("f.txt")
    with pytest.raises(InvalidPathError, match="Not a directory"):
        await fs.ls_recursive("f.txt")


async def test_10_delete_removes_an_empty_directory(fs: Any) -> None:
    await fs.mkdir("gone")
    await fs.delete("gone")
    assert not await fs.exists("gone")


async def test_11_delete_refuses_a_populated_directory_and_keeps_it(fs: Any) -> None:
    await fs.write("full/a.txt", b"a")
    with pytest.raises(VirtualFileSystemError) as caught:
        await fs.delete("full")
    assert not isinstance(caught.value, FileNotFoundError)
    assert isinstance(caught.value, DirectoryNotEmptyError)
    assert await fs.read("full/a.txt") == b"a"


async def test_12_delete_of_missing_is_not_found(fs: Any) -> None:
    with pytest.raises(VfsFileNotFoundError):
        await fs.delete("missing")


async def test_13_delete_recursive_removes_only_that_subtree(fs: Any) -> None:
    await _three_files(fs)
    await fs.write("dirx/keep.txt", b"k")  # shares the prefix "dir" without being under "dir/"
    await fs.delete_recursive("dir")
    assert not await fs.exists("dir")
    assert await fs.ls_recursive(".") == ["dirx/keep.txt", "root.txt"]


async def test_14_write_onto_a_directory_is_refused_and_keeps_it(fs: Any) -> None:
    await fs.write("d/inner.txt", b"i")
    with pytest.raises(VirtualFileSystemError):
        await fs.write("d", b"x")
    await fs.mkdir("e")
    with pytest.raises(VirtualFileSystemError):
        await fs.write("e", b"x")
    assert await fs.is_dir("d") and await fs.is_dir("e")
    assert await fs.read("d/inner.txt") == b"i"


async def test_15_mkdir_onto_a_file_is_refused_and_keeps_it(fs: Any) -> None:
    await fs.write("f.txt", b"file")
    with pytest.raises(VirtualFileSystemError):
        await fs.mkdir("f.txt")
    with pytest.raises(VfsFileExistsError):
        await fs.mkdir("f.txt/sub")
    assert await fs.read("f.txt") == b"file"


async def test_16_reading_a_directory_is_an_invalid_path(fs: Any) -> None:
    await fs.mkdir("d")
    with pytest.raises(InvalidPathError):
        await fs.read("d")


async def test_17_usage_totals_whole_and_per_directory(fs: Any) -> None:
    await fs.write("one.txt", b"1")
    await fs.write("dir/two.txt", b"22")
    await fs.write("dir/sub/three.txt", b"333")
    whole = await fs.usage()
    assert (whole.file_count, whole.total_size, whole.directory_count) == (3, 6, 2)
    part = await fs.usage("dir")
    assert (part.file_count, part.total_size, part.directory_count) == (2, 5, 1)


async def test_18_usage_of_an_empty_filesystem_is_zero(fs: Any) -> None:
    usage = await fs.usage()
    assert (usage.file_count, usage.total_size, usage.directory_count) == (0, 0, 0)


async def test_19_write_of_exactly_the_cap_is_stored(make_fs: Any) -> None:
    capped = await make_fs(max_file_size=CAP)
    await capped.write("cap.txt", "abcd")
    assert await capped.read("cap.txt") == b"abcd"


async def test_20_write_over_the_cap_is_refused_and_leaves_nothing(make_fs: Any) -> None:
    capped = await make_fs(max_file_size=CAP)
    with pytest.raises(InsufficientStorageError, match="4 bytes"):
        await capped.write("big.txt", "abcde")
    assert not await capped.exists("big.txt")


async def test_21_over_cap_rewrite_leaves_the_previous_content(make_fs: Any) -> None:
    capped = await make_fs(max_file_size=CAP)
    await capped.write("f.txt", "old")
    with pytest.raises(InsufficientStorageError):
        await capped.write("f.txt", "abcde")
    assert await capped.read("f.txt") == b"old"  # stronger than the reference: every backend keeps it


async def test_22_streaming_over_the_cap_fails_on_the_write_that_crosses_it(make_fs: Any) -> None:
    capped = await make_fs(max_file_size=CAP)
    writer = await capped.open_output("s.txt")  # never refused at open
    await writer.write(b"ab")
    with pytest.raises(InsufficientStorageError):
        await writer.write(b"cde")
    assert not await capped.exists("s.txt")


# --- beyond the 22 cases ------------------------------------------------------------------------


async def test_over_cap_streaming_rewrite_leaves_the_previous_content_readable(make_fs: Any) -> None:
    capped = await make_fs(max_file_size=CAP)
    await capped.write("f.txt", b"old")
    writer = await capped.open_output("f.txt")
    await writer.write(b"new")
    with pytest.raises(InsufficientStorageError):
        await writer.write(b"er")
    assert await capped.read("f.txt") == b"old"
    with pytest.raises(VfsStateError):
        await writer.write(b"x")  # the refused stream is dead


async def test_cap_zero_admits_no_byte(make_fs: Any) -> None:
    capped = await make_fs(max_file_size=0)
    await capped.write("empty.txt", b"")
    with pytest.raises(InsufficientStorageError):
        await capped.write("one.txt", b"1")
    assert await capped.read("empty.txt") == b""


async def test_no_cap_is_none_and_the_legacy_minus_one_means_none() -> None:
    from aimon_mongo.vfs import NO_MAX_FILE_SIZE, MemoryFileSystem

    assert NO_MAX_FILE_SIZE is None
    assert MemoryFileSystem().max_file_size is None
    with pytest.warns(DeprecationWarning, match=r"max_file_size=-1 is deprecated: pass None"):
        assert MemoryFileSystem(max_file_size=-1).max_file_size is None
    with pytest.raises(InvalidArgumentError, match=r"must be None \(no limit\) or non-negative, got: -2"):
        MemoryFileSystem(max_file_size=-2)


async def test_write_accepts_bytes_text_file_objects_and_chunk_iterables(fs: Any) -> None:
    await fs.write("b.bin", bytearray(b"\x00\x01"))
    await fs.write("t.txt", "héllo")
    await fs.write("f.bin", io.BytesIO(b"from a file" * 100))
    await fs.write("i.bin", [b"it", b"er", b"able"])
    assert await fs.read("b.bin") == b"\x00\x01"
    assert await fs.read_text("t.txt") == "héllo"
    assert await fs.read("f.bin") == b"from a file" * 100
    assert await fs.read("i.bin") == b"iterable"
    with pytest.raises(InvalidArgumentError):
        await fs.write("bad.bin", 42)
    assert not await fs.exists("bad.bin")


async def test_overwrite_replaces_content_and_changes_the_etag(fs: Any) -> None:
    first = await fs.write("f.txt", b"one")
    second = await fs.write("f.txt", b"two!")
    info = await fs.info("f.txt")
    assert await fs.read("f.txt") == b"two!"
    assert info.size == 4 and info.etag == second.etag != first.etag
    assert info.mime == "text/plain" and not info.is_dir
    assert info.modified >= info.created
    assert await fs.ls_recursive() == ["f.txt"]


async def test_streams_read_in_pieces_and_seek(fs: Any) -> None:
    content = bytes(range(256)) * 8
    writer = await fs.open_output("s.bin")
    for start in range(0, len(content), 100):
        await writer.write(content[start : start + 100])
    info = await writer.close()
    assert info.size == len(content)
    reader = await fs.open_input("s.bin")
    try:
        assert reader.size == len(content)
        assert await reader.read(10) == content[:10]
        assert await reader.seek(1000) == 1000
        assert await reader.read(24) == content[1000:1024]
        assert reader.tell() == 1024
        assert await reader.read() == content[1024:]
        assert await reader.read(5) == b""
    finally:
        await reader.close()


async def test_writer_context_manager_commits_or_aborts(fs: Any) -> None:
    async with await fs.open_output("ok.txt") as writer:
        await writer.write(b"done")
    assert await fs.read("ok.txt") == b"done"
    with pytest.raises(RuntimeError):
        async with await fs.open_output("ok.txt") as writer:
            await writer.write(b"half")
            raise RuntimeError("caller failed")
    assert await fs.read("ok.txt") == b"done"


async def test_info_ls_info_and_walk(fs: Any) -> None:
    await fs.write("a/x.json", b"{}")
    await fs.mkdir("a/empty")
    await fs.write("b.pdf", b"%PDF")
    infos = {i.path: i for i in await fs.ls_info("a")}
    assert set(infos) == {"a/empty", "a/x.json"}
    assert infos["a/empty"].is_dir and infos["a/empty"].size == 0
    assert infos["a/x.json"].mime == "application/json" and infos["a/x.json"].size == 2
    walked = [i async for i in fs.walk(".")]
    assert [i.path for i in walked] == ["a/x.json", "b.pdf"]
    assert walked[1].mime == "application/pdf"
    root = await fs.info(".")
    assert root.is_dir and root.path == "."
    assert (await fs.info("a/")).is_dir


async def test_find_globs_base_names_under_a_directory(fs: Any) -> None:
    for path in ("src/a.py", "src/b.py", "src/sub/c.py", "src/sub/d.txt", "other/e.py"):
        await fs.write(path, b"x")
    assert await fs.find("src", "*.py") == ["src/a.py", "src/b.py", "src/sub/c.py"]
    assert await fs.find(".", "?.txt") == ["src/sub/d.txt"]
    assert await fs.find("src", "**.py", max_results=2) == ["src/a.py", "src/b.py"]
    assert await fs.find("src", "sub/*.py") == []  # "/" is removed: "sub*.py" matches no base name
    assert await fs.find("src", "[]{}") == []
    with pytest.raises(InvalidArgumentError, match="maxResults must be >= 1, got: 0"):
        await fs.find("src", "*", max_results=0)
    with pytest.raises(VfsFileNotFoundError):
        await fs.find("missing", "*")


async def test_parent_that_is_a_file_refuses_the_write(fs: Any) -> None:
    await fs.write("f.txt", b"file")
    with pytest.raises(InvalidPathError, match=r"parent 'f\.txt' is a file"):
        await fs.write("f.txt/child", b"x")
    assert await fs.read("f.txt") == b"file"


async def test_copy_semantics(fs: Any) -> None:
    await fs.write("src.txt", b"source")
    await fs.write("dst.txt", b"old")
    copied = await fs.copy("src.txt", "new/dir/copy.txt")
    assert copied.size == 6 and await fs.read("new/dir/copy.txt") == b"source"
    assert await fs.read("src.txt") == b"source"
    with pytest.raises(VfsFileExistsError):
        await fs.copy("src.txt", "dst.txt")
    assert await fs.read("dst.txt") == b"old"
    await fs.copy("src.txt", "dst.txt", overwrite=True)
    assert await fs.read("dst.txt") == b"source"
    with pytest.raises(VfsFileNotFoundError):
        await fs.copy("missing.txt", "x.txt")
    await fs.mkdir("adir")
    with pytest.raises(VfsFileNotFoundError):
        await fs.copy("adir", "y.txt")
    with pytest.raises(InvalidPathError, match="directory"):
        await fs.copy("src.txt", "adir", overwrite=True)


async def test_copy_respects_the_cap(make_fs: Any) -> None:
    capped = await make_fs(max_file_size=CAP)
    await capped.write("small.txt", b"abc")
    await capped.copy("small.txt", "copy.txt")
    assert await capped.read("copy.txt") == b"abc"


async def test_move_semantics(fs: Any) -> None:
    await fs.write("a.txt", b"A")
    await fs.write("b.txt", b"B")
    moved = await fs.move("a.txt", "m/a.txt")
    assert moved.path == "m/a.txt" and await fs.read("m/a.txt") == b"A"
    assert not await fs.exists("a.txt")
    with pytest.raises(VfsFileExistsError):
        await fs.move("m/a.txt", "b.txt")
    assert await fs.read("m/a.txt") == b"A" and await fs.read("b.txt") == b"B"
    await fs.move("m/a.txt", "b.txt", overwrite=True)
    assert await fs.read("b.txt") == b"A" and not await fs.exists("m/a.txt")
    assert (await fs.move("b.txt", "b.txt")).path == "b.txt"
    assert await fs.read("b.txt") == b"A"
    with pytest.raises(VfsFileNotFoundError):
        await fs.move("missing.txt", "z.txt")


async def test_delete_recursive_semantics(fs: Any) -> None:
    await fs.write("t/a.txt", b"a")
    await fs.mkdir("t/empty/deeper")
    await fs.write("solo.txt", b"s")
    await fs.delete_recursive("solo.txt")
    assert not await fs.exists("solo.txt")
    await fs.delete_recursive("t")
    assert await fs.ls(".") == []
    with pytest.raises(VfsFileNotFoundError):
        await fs.delete_recursive("t")
    for root in (".", ""):
        with pytest.raises(VirtualFileSystemError, match="Cannot delete VFS root directory"):
            await fs.delete_recursive(root)
        with pytest.raises(VirtualFileSystemError, match="Cannot delete VFS root directory"):
            await fs.delete(root)


async def test_delete_of_a_file_and_of_a_marker_directory(fs: Any) -> None:
    await fs.write("x/f.txt", b"f")
    await fs.mkdir("x")
    await fs.delete("x/f.txt")
    assert await fs.is_dir("x")  # the marker keeps the emptied directory
    await fs.delete("x")
    assert not await fs.exists("x")


async def test_is_file_and_trailing_separator_spellings(fs: Any) -> None:
    await fs.write("d/f.txt", b"f")
    assert await fs.is_file("d/f.txt") and not await fs.is_file("d") and not await fs.is_file(".")
    assert await fs.is_dir("d/") and await fs.ls("d/") == ["d/f.txt"]
    assert not await fs.exists("d/f.txt/")


async def test_lifecycle_and_status(make_fs: Any) -> None:
    fs = await make_fs()
    await fs.initialize()  # idempotent
    assert (await fs.status()).state is BackendState.CONNECTED
    assert (await fs.status()).is_available
    await fs.close()
    await fs.close()  # idempotent
    status = await fs.status()
    assert status.state is BackendState.DISCONNECTED and status.error_message == "VirtualFileSystem is closed"
    with pytest.raises(VfsStateError, match="VirtualFileSystem is closed"):
        await fs.exists("x")
    with pytest.raises(VfsStateError, match="Cannot initialize closed VirtualFileSystem"):
        await fs.initialize()


async def test_use_before_initialize_is_refused() -> None:
    from aimon_mongo.vfs import AsyncMemoryFileSystem, MemoryFileSystem

    fresh = AsyncMemoryFileSystem()
    assert (await fresh.status()).state is BackendState.UNKNOWN
    with pytest.raises(VfsStateError, match=r"not initialized\. Call initialize\(\) first\."):
        await fresh.read("x")
    with MemoryFileSystem() as sync_fs:  # the context manager initialises and closes
        sync_fs.write("a", b"1")
        assert sync_fs.read("a") == b"1"


async def test_working_directory_names_the_storage(fs: Any, backend: str) -> None:
    where = fs.working_directory
    if backend.startswith("gridfs"):
        assert where.startswith("gridfs://t_") and where.endswith("/fs")
    elif backend.startswith("memory"):
        assert where == "memory://"
    else:
        assert where.startswith("/")
