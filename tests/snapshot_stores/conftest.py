"""Store fixtures: every store test runs on memory, local and GridFS filesystems, async and sync.

``make_store(kind, fs=None, **options)`` builds the store of ``kind`` (``snapshot``, ``output``,
``result``) in the test's flavour over a fresh filesystem (or over ``fs``, e.g. to simulate a restart
or to inject faults with :class:`tests.snapshot_stores.samples.Failing`). It returns ``(store, fs)``, both
with the async API: a sync store is driven through :class:`tests.vfs.adapters.Threaded`, so its calls
really run on worker threads. ``fs.wrapped`` is the raw sync filesystem of a sync flavour.
"""

from __future__ import annotations

from typing import Any

import pytest

from aimon_mongo.snapshots import (
    AsyncVfsSessionSnapshotStore,
    AsyncVfsTaskOutputStore,
    AsyncVfsTaskResultStore,
    VfsSessionSnapshotStore,
    VfsTaskOutputStore,
    VfsTaskResultStore,
)
from tests.vfs.adapters import Threaded
from tests.vfs.conftest import BACKENDS, make_fs  # noqa: F401  (fixture re-exported for these tests)

STORES = {
    "snapshot": (AsyncVfsSessionSnapshotStore, VfsSessionSnapshotStore),
    "output": (AsyncVfsTaskOutputStore, VfsTaskOutputStore),
    "result": (AsyncVfsTaskResultStore, VfsTaskResultStore),
}


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def is_sync(backend: str) -> bool:
    return backend.endswith("-sync")


def raw(fs: Any) -> Any:
    """The filesystem a store of the test's flavour takes (the sync one behind a Threaded view)."""
    return fs.wrapped if isinstance(fs, Threaded) else fs


@pytest.fixture
def make_store(make_fs: Any, is_sync: bool) -> Any:  # noqa: F811
    async def make(kind: str, fs: Any = None, **options: Any) -> tuple[Any, Any]:
        if fs is None:
            fs = await make_fs()
        async_cls, sync_cls = STORES[kind]
        target = raw(fs)
        if is_sync:
            return Threaded(sync_cls(target, **options)), fs
        return async_cls(target, **options), fs

    return make
