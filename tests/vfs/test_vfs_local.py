"""The local-directory backend: symbolic links are refused and invisible, nothing escapes the base,
writes are atomic renames of hidden temporaries."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aimon_mongo.errors import BackendConnectionError, InvalidPathError
from aimon_mongo.vfs import AsyncLocalFileSystem, LocalFileSystem


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    base = tmp_path / "base"
    outside = tmp_path / "outside"
    (base / "real").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"secret")
    (base / "real" / "file.txt").write_bytes(b"inside")
    os.symlink(outside, base / "escape")
    os.symlink(base / "real", base / "alias")
    os.symlink(outside / "secret.txt", base / "real" / "link.txt")
    return base, outside


def test_symlinks_are_refused_even_when_they_point_inside(layout: tuple[Path, Path]) -> None:
    base, _ = layout
    with LocalFileSystem(base) as fs:
        for path in ("escape/secret.txt", "alias/file.txt", "real/link.txt"):
            with pytest.raises(InvalidPathError, match="Symbolic link detected"):
                fs.read(path)
        with pytest.raises(InvalidPathError, match="Symbolic link detected"):
            fs.write("escape/new.txt", b"x")
        with pytest.raises(InvalidPathError, match="Symbolic link detected"):
            fs.ls("alias")
        with pytest.raises(InvalidPathError, match="Symbolic link detected"):
            fs.delete_recursive("escape")
        assert fs.read("real/file.txt") == b"inside"


def test_symlinks_are_invisible_to_listings_and_never_followed(layout: tuple[Path, Path]) -> None:
    base, outside = layout
    with LocalFileSystem(base) as fs:
        assert fs.ls(".") == ["real"]
        assert fs.ls("real") == ["real/file.txt"]
        assert fs.ls_recursive(".") == ["real/file.txt"]
        assert fs.usage().file_count == 1
        os.symlink(outside, base / "real" / "inner-escape")
        fs.delete_recursive("real")  # removes the link itself, never what it points to
    assert (outside / "secret.txt").read_bytes() == b"secret"
    assert not (base / "real").exists()


def test_the_base_is_the_root(tmp_path: Path) -> None:
    with LocalFileSystem(tmp_path / "new" / "base") as fs:
        fs.write("a/b.txt", b"b")
        assert fs.working_directory == str((tmp_path / "new" / "base").resolve())
    assert (tmp_path / "new" / "base" / "a" / "b.txt").read_bytes() == b"b"
    assert not list((tmp_path / "new" / "base" / "a").glob(".aimon-tmp-*"))


def test_unfinished_writes_are_hidden_and_replace_atomically(tmp_path: Path) -> None:
    with LocalFileSystem(tmp_path) as fs:
        fs.write("f.txt", b"old")
        writer = fs.open_output("f.txt")
        writer.write(b"new content")
        assert fs.ls(".") == ["f.txt"] and fs.read("f.txt") == b"old"
        assert len(list(tmp_path.glob(".aimon-tmp-*"))) == 1
        writer.close()
        assert fs.read("f.txt") == b"new content"
        assert not list(tmp_path.glob(".aimon-tmp-*"))


async def test_missing_base_without_create_fails_at_initialize(tmp_path: Path) -> None:
    fs = AsyncLocalFileSystem(tmp_path / "absent", create=False)
    with pytest.raises(BackendConnectionError, match="not a writable directory"):
        await fs.initialize()


async def test_content_hash_etag(tmp_path: Path) -> None:
    async with AsyncLocalFileSystem(tmp_path, content_hash_etag=True) as fs:
        info = await fs.write("h.txt", b"hello")
        assert info.etag == "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
