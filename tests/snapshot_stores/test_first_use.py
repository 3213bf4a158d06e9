"""The VFS-backed stores initialise a filesystem nobody initialised, on their first use of it (as the fsspec
and deepagents adapters do), sync and async; a closed filesystem stays a logged best-effort failure."""

from __future__ import annotations

import logging

import pytest

from aimon_mongo import snapshots as sn
from aimon_mongo.model import CompletionReason
from aimon_mongo.vfs import AsyncMemoryFileSystem, MemoryFileSystem

DONE = sn.TaskResult(success=True, final_answer="done", completion_reason=CompletionReason.COMPLETED)


def snapshot() -> sn.SessionSnapshot:
    return sn.SessionSnapshot.of_messages("s-1", [sn.Message.text(sn.Role.USER, "hello")])


def test_sync_stores_initialise_the_filesystem_on_first_use() -> None:
    for make in (sn.VfsSessionSnapshotStore, sn.VfsTaskResultStore, sn.VfsTaskOutputStore):
        fs = MemoryFileSystem()  # never initialised by the caller
        store = make(fs)
        if isinstance(store, sn.VfsSessionSnapshotStore):
            store.save("t-1", "analyst", None, snapshot())
            loaded = store.load("t-1")
            assert loaded is not None and [e.task_id for e in store.list_snapshots()] == ["t-1"]
        elif isinstance(store, sn.VfsTaskResultStore):
            store.save("t-1", DONE)
            assert store.load("t-1") is not None
        else:
            store.append("t-1", "abc")
            assert store.read("t-1").text == "abc"
        fs.close()


async def test_async_stores_initialise_the_filesystem_on_first_use() -> None:
    fs = AsyncMemoryFileSystem()
    snapshots = sn.AsyncVfsSessionSnapshotStore(fs)
    await snapshots.save("t-1", "analyst", None, snapshot())
    assert await snapshots.load("t-1") is not None
    results, output = sn.AsyncVfsTaskResultStore(fs), sn.AsyncVfsTaskOutputStore(fs)
    await results.save("t-2", DONE)
    await output.append("t-2", "xyz")
    assert await results.load("t-2") is not None and (await output.read("t-2")).text == "xyz"
    await fs.close()


def test_a_closed_filesystem_is_still_a_logged_best_effort_failure(caplog: pytest.LogCaptureFixture) -> None:
    fs = MemoryFileSystem()
    fs.close()
    store = sn.VfsSessionSnapshotStore(fs)
    with caplog.at_level(logging.WARNING, "aimon_mongo.snapshots"):
        store.save("t-1", "analyst", None, snapshot())
        assert store.load("t-1") is None
    assert "Failed to save session snapshot for task t-1" in caplog.text
