# GENERATED from aimon_mongo/_async/langgraph/driver.py by scripts/gen_sync.py; do not edit.
"""The store primitives a checkpoint saver runs on (generated from the ``_async`` source).

The saver (``saver.py``) holds every rule: argument checks, serde, the inline/large split, value lookup
and caching, write ordering, ownership and retention policy. A driver is the store's atomic operations
only: MongoDB (``mongo.py``) and memory (``memory.py``) implement this protocol.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from aimon_mongo.langgraph.records import (
    ChannelValue,
    CheckpointRecord,
    PendingWriteRecord,
    Relocation,
    Scalar,
    StoredValue,
    ThreadInfo,
)


@dataclass(frozen=True)
class Touch:
    """Refresh a thread's retention to store-now + ``ttl``. ``continuation`` writes (a checkpoint with a
    parent, pending writes) are refused with ``ThreadExpiredError`` on an expired thread; a fresh start
    deletes the expired thread first and begins it anew."""

    ttl: timedelta
    continuation: bool


class CheckpointDriver(Protocol):
    """Atomic operations of one checkpoint store."""

    def insert_checkpoint(self, record: CheckpointRecord, fence: int | None, touch: Touch | None) -> None:
        """Store ``record`` (a re-put of the same id replaces it, keeping its pending writes). With ``fence``,
        the thread's fence is checked and the write performed atomically: a higher fence raises
        ``StaleWriteOwnerError`` and nothing is written."""
        ...

    def add_writes(
        self,
        thread_id: str,
        checkpoint_ns: str,
        checkpoint_id: str,
        writes: Sequence[PendingWriteRecord],
        fence: int | None,
        touch: Touch | None,
    ) -> None:
        """Merge ``writes`` into the checkpoint's pending writes (``records.merge_writes``), fenced like
        :meth:`insert_checkpoint`. Writes for a checkpoint not stored yet are kept until it is."""
        ...

    def get_checkpoint(
        self, thread_id: str, checkpoint_ns: str, checkpoint_id: str | None
    ) -> CheckpointRecord | None:
        """One checkpoint, or the newest of the namespace when ``checkpoint_id`` is ``None``."""
        ...

    def list_checkpoints(
        self,
        thread_id: str | None,
        checkpoint_ns: str | None,
        checkpoint_id: str | None,
        before_id: str | None,
        metadata: Sequence[tuple[str, Scalar]],
        limit: int | None,
    ) -> Iterator[CheckpointRecord]:
        """Checkpoints newest first (by checkpoint id), narrowed by every argument that is given;
        ``metadata`` entries must all match the stored projection."""
        ...

    def find_values(
        self, thread_id: str, checkpoint_ns: str, keys: Sequence[str]
    ) -> dict[str, list[tuple[str, StoredValue]]]:
        """Where each value key is stored: ``key -> [(checkpoint_id, value), ...]``."""
        ...

    def put_large(self, thread_id: str, checkpoint_ns: str, data: bytes) -> Any:
        """Store a large value's bytes; returns the file id recorded in the checkpoint."""
        ...

    def get_large(self, file_id: Any) -> bytes:
        """The bytes of a large value (``CheckpointStoreError`` when the file is gone)."""
        ...

    def delete_large(self, file_ids: Sequence[Any]) -> None:
        """Remove large-value files (missing ones are ignored)."""
        ...

    def thread_checkpoints(self, thread_id: str) -> list[CheckpointRecord]:
        """Every checkpoint of a thread, every namespace, oldest first."""
        ...

    def insert_copies(self, records: Sequence[CheckpointRecord]) -> None:
        """Store copied checkpoints (``copy_thread``); existing ids are replaced."""
        ...

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, write and large value of the thread; its fence (if any) stays."""
        ...

    def delete_checkpoints(
        self,
        thread_id: str,
        checkpoint_ns: str,
        checkpoint_ids: Sequence[str],
        relocations: Sequence[Relocation],
        drop_files: Sequence[Any],
    ) -> None:
        """Move ``relocations``' values into their surviving checkpoints, then delete the checkpoints and the
        files no survivor references."""
        ...

    def checkpoints_of_runs(self, run_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        """``(thread_id, checkpoint_ns, checkpoint_id)`` of every checkpoint whose metadata ``run_id`` is listed."""
        ...

    def claim_fence(self, thread_id: str, floor: int) -> int:
        """Take the thread's next fencing token: its fence becomes ``max(fence + 1, floor)`` (a thread never
        claimed has fence 0), atomically; returns it. Every later fenced write with a lower token is
        refused."""
        ...

    def fence(self, thread_id: str) -> int | None:
        """The thread's fence (``None``: never claimed)."""
        ...

    def touch(self, thread_id: str, touch: Touch) -> None:
        """Refresh the thread's retention (see :class:`Touch`)."""
        ...

    def sweep_expired(self, limit: int) -> list[str]:
        """Delete up to ``limit`` threads whose retention expired (store clock); returns their ids."""
        ...

    def threads(self, limit: int) -> list[ThreadInfo]:
        """Threads with stored checkpoints, most recently written first."""
        ...

    def find_checkpoint(self, checkpoint_id: str, thread_id: str | None) -> CheckpointRecord | None:
        """A checkpoint by id, in any thread and namespace unless ``thread_id`` is given."""
        ...


def drop_list(values: Sequence[ChannelValue | PendingWriteRecord]) -> list[Any]:
    """The large-value files of ``values``."""
    return [v.value.file_id for v in values if v.value.is_large]
