"""Two writers of one path, every backend: readers always see one complete revision, never a mix, and
exactly one revision survives."""

from __future__ import annotations

import asyncio
from typing import Any

from aimon_mongo.names import GRIDFS_FILENAME

OLD = b"o" * 1500
A = b"A" * 2600
B = b"B" * 3900
ROUNDS = 4


async def _stored_revisions(fs: Any, path: str) -> int:
    """Revisions of ``path`` as stored: GridFS file documents; elsewhere the listed entries."""
    raw = getattr(fs, "wrapped", fs)
    store = getattr(raw, "gridfs", None)
    if store is None:
        return (await fs.ls_recursive(".")).count(path)
    count = store.files.count_documents({GRIDFS_FILENAME: path})
    return int(await count) if asyncio.iscoroutine(count) else int(count)


async def test_two_concurrent_writers_leave_one_complete_revision(make_fs: Any) -> None:
    fs = await make_fs(chunk_size=64)
    await fs.write("race.bin", OLD)
    seen: set[bytes] = set()
    for _ in range(ROUNDS):
        done = asyncio.Event()

        async def reader(done: asyncio.Event) -> None:
            while not done.is_set():
                content = await fs.read("race.bin")
                assert content in (OLD, A, B), f"torn read of {len(content)} bytes"
                seen.add(content[:1])
                await asyncio.sleep(0)

        async def writers(done: asyncio.Event) -> None:
            try:
                await asyncio.gather(
                    fs.write("race.bin", [A[i : i + 500] for i in range(0, len(A), 500)]),
                    fs.write("race.bin", [B[i : i + 500] for i in range(0, len(B), 500)]),
                )
            finally:
                done.set()

        await asyncio.gather(reader(done), writers(done))
        assert await fs.read("race.bin") in (A, B)
        assert await _stored_revisions(fs, "race.bin") == 1
        assert (await fs.info("race.bin")).size in (len(A), len(B))
    assert seen  # the reader did read while writers ran
