"""Rules of the bucket filesystem that need a failing store to show: move compensation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from aimon_mongo.errors import BackendConnectionError, VirtualFileSystemError
from aimon_mongo.vfs import AsyncMemoryFileSystem


class _Failing:
    """Makes the store's ``delete_ids`` fail for the first ``failures`` calls after arming."""

    def __init__(self, fs: AsyncMemoryFileSystem, failures: int) -> None:
        self.store: Any = fs._store
        self.original = self.store.delete_ids
        self.failures = failures

    async def __call__(self, ids: Sequence[Any]) -> int:
        if self.failures:
            self.failures -= 1
            return len(ids)
        return int(await self.original(ids))


async def test_move_whose_source_cannot_be_deleted_restores_the_destination() -> None:
    async with AsyncMemoryFileSystem() as fs:
        await fs.write("src.txt", b"source")
        await fs.write("dst.txt", b"previous")
        fs._store.delete_ids = _Failing(fs, failures=1)  # type: ignore[method-assign]
        with pytest.raises(BackendConnectionError, match=r"Move failed: could not delete source after copy: src\.txt"):
            await fs.move("src.txt", "dst.txt", overwrite=True)
        assert await fs.read("src.txt") == b"source"
        assert await fs.read("dst.txt") == b"previous"
        assert await fs.ls_recursive() == ["dst.txt", "src.txt"]


async def test_move_whose_compensation_fails_says_the_state_may_be_inconsistent() -> None:
    async with AsyncMemoryFileSystem() as fs:
        await fs.write("src.txt", b"source")
        fs._store.delete_ids = _Failing(fs, failures=2)  # type: ignore[method-assign]
        with pytest.raises(VirtualFileSystemError, match="compensation also failed") as caught:
            await fs.move("src.txt", "dst.txt")
        assert "source=src.txt destination=dst.txt" in str(caught.value)


async def test_recursive_delete_reports_partial_failure() -> None:
    async with AsyncMemoryFileSystem() as fs:
        await fs.write("d/a.txt", b"a")
        await fs.write("d/b.txt", b"b")
        fs._store.delete_ids = _Failing(fs, failures=1)  # type: ignore[method-assign]
        with pytest.raises(VirtualFileSystemError, match="Recursive delete partially failed: 2 items"):
            await fs.delete_recursive("d")


async def test_a_read_that_loses_a_race_with_an_overwrite_reads_the_new_revision() -> None:
    async with AsyncMemoryFileSystem() as fs:
        await fs.write("r.txt", b"old")
        store: Any = fs._store
        original = store.open_newest
        raced: list[bool] = []

        async def racing_open(name: str) -> Any:
            if not raced:  # another writer replaces the file between lookup and open
                raced.append(True)
                stale = await store.newest(name)
                await fs.write("r.txt", b"new")
                return stale, await store.open_download(stale)
            return await original(name)

        store.open_newest = racing_open
        assert await fs.read("r.txt") == b"new"
        assert raced
