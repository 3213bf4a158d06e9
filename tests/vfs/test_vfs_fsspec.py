"""Our fsspec filesystem beyond fsspec's abstract suite: registration, URLs, each method, mv, async use."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import fsspec
import pytest
from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo.vfs import GridFSFileSystem
from aimon_mongo.vfs.fsspec import GridFSFileSystemSpec
from tests.fixtures.mongo import CLIENT_OPTIONS


@pytest.fixture
def gfs(mongo_uri: str, mongo_db_name: str) -> Iterator[GridFSFileSystemSpec]:
    filesystem = fsspec.filesystem("gridfs", uri=mongo_uri, database=mongo_db_name, skip_instance_cache=True)
    yield filesystem
    filesystem.close()


def test_protocol_gridfs_is_registered_by_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    assert fsspec.get_filesystem_class("gridfs") is GridFSFileSystemSpec
    monkeypatch.delenv("AIMON_MONGODB_URI", raising=False)
    monkeypatch.delenv("MONGODB_URI", raising=False)
    with pytest.raises(ValueError, match="'uri' or a 'client' \\(looked at explicit --uri / uri=, AIMON_MONGODB_URI"):
        GridFSFileSystemSpec(skip_instance_cache=True)


def test_urls_and_fsspec_open(gfs: GridFSFileSystemSpec, mongo_uri: str, mongo_db_name: str) -> None:
    with fsspec.open(f"gridfs://{mongo_db_name}/fs/notes/a.txt", "wb", uri=mongo_uri) as f:
        f.write(b"hello")
    assert gfs.cat_file("gridfs:///notes/a.txt") == b"hello"
    assert gfs.cat_file(f"gridfs://{mongo_db_name}/fs/notes/a.txt") == b"hello"
    assert gfs.cat_file("notes/a.txt") == b"hello"
    with fsspec.open("gridfs:///notes/a.txt", "rt", uri=mongo_uri, database=mongo_db_name) as f:
        assert f.read() == "hello"
    assert GridFSFileSystemSpec._strip_protocol("gridfs://db/bucket/a/b/") == "a/b"
    assert GridFSFileSystemSpec._strip_protocol("gridfs:///a/b/") == "a/b"
    assert GridFSFileSystemSpec._get_kwargs_from_urls("gridfs://db/bk/x") == {"database": "db", "bucket": "bk"}
    assert GridFSFileSystemSpec._get_kwargs_from_urls("gridfs:///x") == {}
    assert gfs.unstrip_protocol("notes/a.txt") == f"gridfs://{mongo_db_name}/fs/notes/a.txt"
    with pytest.raises(ValueError, match="names database 'otherdb' bucket 'fs', but this filesystem is database"):
        gfs.cat_file("gridfs://otherdb/fs/notes/a.txt")


def test_the_uri_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, mongo_uri: str, mongo_db_name: str
) -> None:
    monkeypatch.delenv("MONGODB_URI", raising=False)
    monkeypatch.setenv("AIMON_MONGODB_URI", mongo_uri)
    with fsspec.open(f"gridfs://{mongo_db_name}/fs/env.txt", "wb") as f:
        f.write(b"from the environment")
    fs = GridFSFileSystemSpec(database=mongo_db_name, skip_instance_cache=True)
    try:
        assert fs.cat_file("env.txt") == b"from the environment"
    finally:
        fs.close()


def test_the_same_bucket_as_the_vfs(
    gfs: GridFSFileSystemSpec, mongo_client: MongoClient[Any], mongo_db_name: str
) -> None:
    with GridFSFileSystem(mongo_client, mongo_db_name) as vfs:
        vfs.write("shared/x.json", b"{}")
        gfs.pipe_file("shared/y.txt", b"y")
        assert vfs.read("shared/y.txt") == b"y"
    assert gfs.cat_file("shared/x.json") == b"{}"


def test_ls_info_created_modified(gfs: GridFSFileSystemSpec) -> None:
    gfs.pipe_file("d/f.json", b"{}")
    gfs.mkdir("d/empty")
    listing = gfs.ls("d", detail=True)
    assert [(e["name"], e["type"], e["size"]) for e in listing] == [
        ("d/empty", "directory", 0),
        ("d/f.json", "file", 2),
    ]
    assert gfs.ls("d", detail=False) == ["d/empty", "d/f.json"]
    assert gfs.ls("d/f.json", detail=False) == ["d/f.json"]
    info = gfs.info("d/f.json")
    assert info["etag"].startswith("sha256:") and info["mime"] == "application/json"
    assert isinstance(gfs.created("d/f.json"), datetime) and gfs.modified("d/f.json") >= gfs.created("d/f.json")
    assert gfs.info("")["type"] == "directory" and gfs.isdir("d") and gfs.isfile("d/f.json")
    with pytest.raises(FileNotFoundError):
        gfs.info("missing")
    with pytest.raises(FileNotFoundError):
        gfs.ls("missing")


def test_cat_file_ranges(gfs: GridFSFileSystemSpec) -> None:
    gfs.pipe_file("r.bin", bytes(range(100)))
    assert gfs.cat_file("r.bin", start=10, end=13) == bytes([10, 11, 12])
    assert gfs.cat_file("r.bin", start=-3) == bytes([97, 98, 99])
    assert gfs.cat_file("r.bin", start=95, end=200) == bytes(range(95, 100))
    assert gfs.cat_file("r.bin", start=50, end=40) == b""
    with gfs.open("r.bin", "rb", block_size=16) as f:
        f.seek(90)
        assert f.read() == bytes(range(90, 100))


def test_find_glob_du(gfs: GridFSFileSystemSpec) -> None:
    for path, size in (("t/a.py", 1), ("t/s/b.py", 2), ("t/s/c.txt", 3), ("t/s/deep/d.py", 4)):
        gfs.pipe_file(path, b"x" * size)
    gfs.mkdir("t/void")
    assert gfs.find("t") == ["t/a.py", "t/s/b.py", "t/s/c.txt", "t/s/deep/d.py"]
    assert gfs.find("t", maxdepth=1) == ["t/a.py"]
    assert "t/void" in gfs.find("t", withdirs=True)
    assert gfs.find("t/a.py") == ["t/a.py"]
    assert gfs.glob("t/**/*.py") == ["t/a.py", "t/s/b.py", "t/s/deep/d.py"]
    assert gfs.du("t") == 10
    assert gfs.du("t", total=False) == {"t/a.py": 1, "t/s/b.py": 2, "t/s/c.txt": 3, "t/s/deep/d.py": 4}
    assert gfs.du("t", maxdepth=1) == 1


def test_mkdir_makedirs_rmdir_rm(gfs: GridFSFileSystemSpec) -> None:
    gfs.makedirs("m/n/o")
    gfs.makedirs("m/n/o", exist_ok=True)
    with pytest.raises(FileExistsError):
        gfs.makedirs("m/n/o")
    with pytest.raises(FileExistsError):
        gfs.mkdir("m/n")
    with pytest.raises(FileNotFoundError):
        gfs.mkdir("nowhere/child", create_parents=False)
    gfs.pipe_file("m/n/file.txt", b"f")
    with pytest.raises(OSError, match="not empty"):
        gfs.rmdir("m/n")
    gfs.rmdir("m/n/o")
    assert not gfs.exists("m/n/o")
    with pytest.raises(IsADirectoryError):
        gfs.rm("m")
    gfs.rm("m/n/file.txt")
    gfs.rm("m", recursive=True)
    assert not gfs.exists("m")
    gfs.pipe_file("g/1.txt", b"1")
    gfs.pipe_file("g/2.txt", b"2")
    gfs.rm("g/*.txt")
    assert not gfs.exists("g")


def test_mv_moves_a_file_through_the_vfs_and_a_tree_by_copy(gfs: GridFSFileSystemSpec) -> None:
    gfs.pipe_file("src/a.txt", b"A")
    gfs.pipe_file("src/sub/b.txt", b"B")
    gfs.mkdir("dest")
    gfs.mv("src/a.txt", "dest")
    assert gfs.cat_file("dest/a.txt") == b"A" and not gfs.exists("src/a.txt")
    assert gfs.info("dest/a.txt")["copiedFrom"] == "src/a.txt"
    gfs.mv("dest/a.txt", "renamed.txt")
    assert gfs.cat_file("renamed.txt") == b"A"
    gfs.mv("renamed.txt", "renamed.txt")
    assert gfs.cat_file("renamed.txt") == b"A"
    gfs.mv("src", "moved", recursive=True)
    assert gfs.find("moved") == ["moved/sub/b.txt"] and not gfs.exists("src")
    with pytest.raises(FileNotFoundError):
        gfs.mv("missing.txt", "x.txt")


def test_open_modes(gfs: GridFSFileSystemSpec) -> None:
    with gfs.open("o.txt", "xb") as f:
        f.write(b"first")
    with pytest.raises(FileExistsError):
        gfs.open("o.txt", "xb")
    with gfs.open("o.txt", "ab") as f:
        f.write(b"+more")
    assert gfs.cat_file("o.txt") == b"first+more"
    with pytest.raises(NotImplementedError, match="mode 'r\\+b' is not supported"):
        gfs.open("o.txt", "r+b")
    with pytest.raises(RuntimeError):
        with gfs.open("o.txt", "wb", block_size=5) as f:
            f.write(b"0123456789" * 3)  # several blocks already uploaded
            raise RuntimeError("the caller failed")
    assert gfs.cat_file("o.txt") == b"first+more"  # the failed write was discarded, not half-committed
    with gfs.open("big.bin", "wb", block_size=5 * 2**20) as f:
        for _ in range(3):
            f.write(b"z" * (2 * 2**20))
    assert gfs.size("big.bin") == 6 * 2**20


def test_put_and_get_files(gfs: GridFSFileSystemSpec, tmp_path: Path) -> None:
    local = tmp_path / "local.bin"
    local.write_bytes(b"local bytes")
    gfs.put(str(local), "up/local.bin")
    assert gfs.cat_file("up/local.bin") == b"local bytes"
    back = tmp_path / "back.bin"
    gfs.get("up/local.bin", str(back))
    assert back.read_bytes() == b"local bytes"


async def test_async_use_with_a_borrowed_client(mongo_uri: str, mongo_db_name: str) -> None:
    client: AsyncMongoClient[Any] = AsyncMongoClient(mongo_uri, **CLIENT_OPTIONS)
    try:
        gfs = GridFSFileSystemSpec(client=client, database=mongo_db_name, asynchronous=True, skip_instance_cache=True)
        await gfs._pipe_file("async/a.txt", b"async")
        assert await gfs._cat_file("async/a.txt") == b"async"
        assert await gfs._ls("async", detail=False) == ["async/a.txt"]
        writer = await gfs.open_async("async/b.txt", "wb")
        async with writer:
            await writer.write(b"streamed")
        reader = await gfs.open_async("async/b.txt", "rb")
        async with reader:
            assert await reader.read() == b"streamed"
        with pytest.raises(RuntimeError):
            async with await gfs.open_async("async/b.txt", "wb") as failing:
                await failing.write(b"never")
                raise RuntimeError("the caller failed")
        assert await gfs._cat_file("async/b.txt") == b"streamed"
        await gfs._close()
        await client.admin.command("ping")  # the borrowed client is still usable
    finally:
        await client.close()
