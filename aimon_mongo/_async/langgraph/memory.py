"""The in-memory checkpoint saver (async source; the sync twin is generated): the same rules as the
MongoDB saver, on a :class:`~aimon_mongo.langgraph.memory_store.CheckpointMemoryStore`, for unit tests of
graphs that will run on MongoDB."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from aimon_mongo._async.langgraph.driver import Touch
from aimon_mongo._async.langgraph.saver import AsyncCheckpointSaverBase
from aimon_mongo._async.memory.leases import AsyncMemorySessionLeaseStore
from aimon_mongo._async.ports import AsyncSessionLeaseStore
from aimon_mongo.clock import Clock
from aimon_mongo.exported import exported_from
from aimon_mongo.langgraph.memory_store import CheckpointMemoryStore
from aimon_mongo.langgraph.records import (
    CheckpointRecord,
    PendingWriteRecord,
    Relocation,
    Scalar,
    StoredValue,
    ThreadInfo,
)


class AsyncMemoryCheckpointDriver:
    """The driver over one :class:`CheckpointMemoryStore` (every call is one locked step)."""

    def __init__(self, store: CheckpointMemoryStore) -> None:
        self.store = store

    async def insert_checkpoint(self, record: CheckpointRecord, fence: int | None, touch: Touch | None) -> None:
        self.store.insert_checkpoint(record, fence, touch)

    async def add_writes(
        self,
        thread_id: str,
        checkpoint_ns: str,
        checkpoint_id: str,
        writes: Sequence[PendingWriteRecord],
        fence: int | None,
        touch: Touch | None,
    ) -> None:
        self.store.add_writes(thread_id, checkpoint_ns, checkpoint_id, writes, fence, touch)

    async def get_checkpoint(
        self, thread_id: str, checkpoint_ns: str, checkpoint_id: str | None
    ) -> CheckpointRecord | None:
        return self.store.get_checkpoint(thread_id, checkpoint_ns, checkpoint_id)

    async def list_checkpoints(
        self,
        thread_id: str | None,
        checkpoint_ns: str | None,
        checkpoint_id: str | None,
        before_id: str | None,
        metadata: Sequence[tuple[str, Scalar]],
        limit: int | None,
    ) -> AsyncIterator[CheckpointRecord]:
        records = self.store.list_checkpoints(thread_id, checkpoint_ns, checkpoint_id, before_id, metadata, limit)
        for record in records:  # sync: yield from records
            yield record  # sync: drop

    async def find_values(
        self, thread_id: str, checkpoint_ns: str, keys: Sequence[str]
    ) -> dict[str, list[tuple[str, StoredValue]]]:
        return self.store.find_values(thread_id, checkpoint_ns, keys)

    async def put_large(self, thread_id: str, checkpoint_ns: str, data: bytes) -> Any:
        return self.store.put_large(thread_id, data)

    async def get_large(self, file_id: Any) -> bytes:
        return self.store.get_large(file_id)

    async def delete_large(self, file_ids: Sequence[Any]) -> None:
        self.store.delete_large(file_ids)

    async def thread_checkpoints(self, thread_id: str) -> list[CheckpointRecord]:
        return self.store.thread_checkpoints(thread_id)

    async def insert_copies(self, records: Sequence[CheckpointRecord]) -> None:
        self.store.insert_copies(records)

    async def delete_thread(self, thread_id: str) -> None:
        self.store.delete_thread(thread_id)

    async def delete_checkpoints(
        self,
        thread_id: str,
        checkpoint_ns: str,
        checkpoint_ids: Sequence[str],
        relocations: Sequence[Relocation],
        drop_files: Sequence[Any],
    ) -> None:
        self.store.delete_checkpoints(thread_id, checkpoint_ns, checkpoint_ids, relocations, drop_files)

    async def checkpoints_of_runs(self, run_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        return self.store.checkpoints_of_runs(run_ids)

    async def claim_fence(self, thread_id: str, floor: int) -> int:
        return self.store.claim_fence(thread_id, floor)

    async def fence(self, thread_id: str) -> int | None:
        return self.store.fence(thread_id)

    async def touch(self, thread_id: str, touch: Touch) -> None:
        self.store.touch(thread_id, touch)

    async def sweep_expired(self, limit: int) -> list[str]:
        return self.store.sweep_expired(limit)

    async def threads(self, limit: int) -> list[ThreadInfo]:
        return self.store.threads(limit)

    async def find_checkpoint(self, checkpoint_id: str, thread_id: str | None) -> CheckpointRecord | None:
        return self.store.find_checkpoint(checkpoint_id, thread_id)


@exported_from("aimon_mongo.langgraph")
class AsyncAimonMemoryCheckpointSaver(AsyncCheckpointSaverBase):
    """The checkpoint saver in memory: every rule of :class:`AsyncAimonCheckpointSaver` (the same class
    of results, the same conformance suite), for unit tests.

    ``store`` is the shared state (pass one to several savers to simulate nodes sharing a database);
    ``clock`` is the new store's clock when none is given. ``leases`` defaults to an in-memory lease store
    on the store's ``lease_storage`` (so savers sharing a store share thread leases too). Other keyword
    arguments as for :class:`AsyncCheckpointSaverBase`.
    """

    def __init__(
        self,
        store: CheckpointMemoryStore | None = None,
        *,
        clock: Clock | None = None,
        leases: AsyncSessionLeaseStore | None = None,
        **options: Any,
    ) -> None:
        self.store = store or CheckpointMemoryStore(clock)
        if leases is None:
            leases = AsyncMemorySessionLeaseStore(self.store.lease_storage)
        super().__init__(AsyncMemoryCheckpointDriver(self.store), leases=leases, **options)
        self._elapsed = lambda: self.store.clock().timestamp()  # the store's clock decides, as on a server
