"""The scoped view (over the filesystem store on every backend, and over memory) and the in-memory LRU."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.snapshots import (
    AsyncInMemorySessionSnapshotStore,
    AsyncScopedSessionSnapshotStore,
    InMemorySessionSnapshotStore,
    ResumableSession,
    ScopedSessionSnapshotStore,
)
from tests.snapshot_stores.samples import transcript
from tests.vfs.adapters import Threaded


def _scoped(delegate: Any, runtime_id: str | None, is_sync: bool) -> Any:
    if is_sync:
        return Threaded(ScopedSessionSnapshotStore.scope_or_pass_through(delegate.wrapped, runtime_id))
    return AsyncScopedSessionSnapshotStore.scope_or_pass_through(delegate, runtime_id)


async def test_scoped_store_loads_only_its_own_runtime_s_snapshots(make_store: Any, is_sync: bool) -> None:
    delegate, _ = await make_store("snapshot")
    scoped = _scoped(delegate, "agent:reviewer", is_sync)
    mine, foreign, untagged = transcript("mine"), transcript("foreign"), transcript("untagged")
    await scoped.save("mine", "reviewer", "agent:reviewer", mine)
    await scoped.save("foreign", "reviewer", "agent:reviewer:other", foreign)
    await delegate.save("untagged", "reviewer", None, untagged)
    assert (await scoped.load("mine")).snapshot == mine
    assert await scoped.load("foreign") is None
    assert await scoped.load("untagged") is None
    assert (await delegate.load("foreign")).snapshot == foreign  # saved through the view, unchanged
    await scoped.evict("foreign")
    assert await delegate.load("foreign") is None


async def test_scope_or_pass_through_without_a_runtime_id_is_the_delegate(make_store: Any, is_sync: bool) -> None:
    delegate, _ = await make_store("snapshot")
    target = delegate.wrapped if is_sync else delegate
    cls = ScopedSessionSnapshotStore if is_sync else AsyncScopedSessionSnapshotStore
    assert cls.scope_or_pass_through(target, None) is target
    assert isinstance(cls.scope_or_pass_through(target, "agent:a"), cls)


@pytest.mark.parametrize("runtime_id", [None, "", "reviewer", "agent:"])
def test_a_scoped_store_needs_a_runtime_id(runtime_id: Any) -> None:
    with pytest.raises(InvalidArgumentError):
        ScopedSessionSnapshotStore(InMemorySessionSnapshotStore(), runtime_id)


@pytest.mark.parametrize("cls", [AsyncInMemorySessionSnapshotStore, InMemorySessionSnapshotStore])
async def test_memory_store_round_trip_and_scoping(cls: Any) -> None:
    store = cls()
    view = Threaded(store) if cls is InMemorySessionSnapshotStore else store
    snapshot = transcript("a")
    await view.save("t", "n", "agent:a", snapshot)
    assert await view.load("t") == ResumableSession(subagent_name="n", agent_runtime_id="agent:a", snapshot=snapshot)
    assert (await view.load("t")).snapshot is snapshot  # a reference, not a copy
    scoped_cls = ScopedSessionSnapshotStore if cls is InMemorySessionSnapshotStore else AsyncScopedSessionSnapshotStore
    scoped = scoped_cls(store, "agent:b")
    scoped_view = Threaded(scoped) if cls is InMemorySessionSnapshotStore else scoped
    assert await scoped_view.load("t") is None
    await view.evict("t")
    await view.evict("t")
    assert await view.load("t") is None


def test_memory_store_drops_the_least_recently_used() -> None:
    store = InMemorySessionSnapshotStore(max_snapshots=3)
    for name in ("a", "b", "c"):
        store.save(name, "n", None, transcript(name))
    assert store.load("a") is not None  # refreshes a: b is now the least recently used
    store.save("d", "n", None, transcript("d"))
    assert store.load("b") is None
    assert [store.load(x) is not None for x in ("a", "c", "d")] == [True, True, True]
    assert len(store) == 3


@pytest.mark.parametrize("bad", [0, -1, True, 2.5, "3"])
def test_memory_store_cap_must_be_a_positive_int(bad: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="max_snapshots must be >= 1"):
        InMemorySessionSnapshotStore(bad)


def test_memory_store_default_cap_is_256() -> None:
    assert InMemorySessionSnapshotStore().max_snapshots == 256
    assert AsyncInMemorySessionSnapshotStore().max_snapshots == 256


def test_memory_store_is_thread_safe() -> None:
    store = InMemorySessionSnapshotStore(max_snapshots=8)
    snapshots = [transcript(f"s{i}", 1) for i in range(4)]
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(300):
                task = f"t{(worker + i) % 12}"
                store.save(task, "n", None, snapshots[worker])
                session = store.load(task)
                assert session is None or session.snapshot in snapshots
                if i % 7 == 0:
                    store.evict(task)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(store) <= 8


def test_memory_store_refuses_bad_task_ids() -> None:
    store = InMemorySessionSnapshotStore()
    for bad in ("", "a/b", ".."):
        with pytest.raises(InvalidArgumentError):
            store.save(bad, "n", None, transcript("a"))
        with pytest.raises(InvalidArgumentError):
            store.load(bad)
