"""The in-memory checkpoint store: what a database is to the MongoDB saver (one lock, one clock).

Both saver flavours (``AsyncAimonMemoryCheckpointSaver`` and ``AimonMemoryCheckpointSaver``) run on a
:class:`CheckpointMemoryStore`; savers sharing one store behave like nodes sharing a database. ``clock``
is the store's own clock and decides retention, as ``$$NOW`` does on MongoDB. ``lease_storage`` holds the
thread leases of write ownership for the savers on this store that are given no lease store (as the
MongoDB saver's default lease store is in the same database).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.errors import CheckpointStoreError, StaleWriteOwnerError, ThreadExpiredError
from aimon_mongo.langgraph.records import (
    CheckpointRecord,
    PendingWriteRecord,
    Relocation,
    Scalar,
    StoredValue,
    ThreadInfo,
    merge_writes,
)
from aimon_mongo.memory.storage import MemoryStorage

Touch = Any  # aimon_mongo._async.langgraph.driver.Touch (same fields in both flavours)


@dataclass
class _Thread:
    fence: int | None = None
    expires_at: datetime | None = None
    expired: bool = False
    written: int = 0


class CheckpointMemoryStore:
    """Checkpoints, pending writes, large values and thread states of every thread, behind one lock."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock or system_clock
        self.lease_storage = MemoryStorage(self.clock)
        self._lock = threading.Lock()
        self._checkpoints: dict[tuple[str, str], dict[str, CheckpointRecord]] = {}
        self._orphan_writes: dict[tuple[str, str, str], tuple[PendingWriteRecord, ...]] = {}
        self._files: dict[int, tuple[str, bytes]] = {}
        self._threads: dict[str, _Thread] = {}
        self._ids = itertools.count(1)
        self._seq = itertools.count(1)

    # --- writes ------------------------------------------------------------------------------------

    def insert_checkpoint(self, record: CheckpointRecord, fence: int | None, touch: Touch | None) -> None:
        with self._lock:
            keep = {v.value.file_id for v in record.values if v.value.is_large}
            self._admit(record.thread_id, fence, touch, keep)
            chain = self._checkpoints.setdefault((record.thread_id, record.checkpoint_ns), {})
            previous = chain.get(record.checkpoint_id)
            writes = previous.writes if previous is not None else ()
            orphans = self._orphan_writes.pop((record.thread_id, record.checkpoint_ns, record.checkpoint_id), ())
            chain[record.checkpoint_id] = replace(record, writes=merge_writes(writes, orphans))
            self._written(record.thread_id)

    def add_writes(
        self,
        thread_id: str,
        checkpoint_ns: str,
        checkpoint_id: str,
        writes: Sequence[PendingWriteRecord],
        fence: int | None,
        touch: Touch | None,
    ) -> None:
        with self._lock:
            self._admit(thread_id, fence, touch)
            chain = self._checkpoints.setdefault((thread_id, checkpoint_ns), {})
            record = chain.get(checkpoint_id)
            if record is None:
                key = (thread_id, checkpoint_ns, checkpoint_id)
                self._orphan_writes[key] = merge_writes(self._orphan_writes.get(key, ()), writes)
            else:
                chain[checkpoint_id] = replace(record, writes=merge_writes(record.writes, writes))
            self._written(thread_id)

    def _admit(self, thread_id: str, fence: int | None, touch: Touch | None, keep: set[Any] | None = None) -> None:
        """Fence check and retention refresh, under the lock (so atomic with the write that follows)."""
        state = self._threads.get(thread_id)
        if fence is not None and (state is None or state.fence is None or state.fence > fence):
            raise StaleWriteOwnerError(thread_id, fence, None if state is None else state.fence)
        if touch is not None:
            self._touch(thread_id, touch, keep or set())

    def _touch(self, thread_id: str, touch: Touch, keep: set[Any]) -> None:
        state = self._threads.setdefault(thread_id, _Thread())
        now = self.clock()
        lapsed = state.expired or (state.expires_at is not None and state.expires_at <= now)
        if lapsed:
            if touch.continuation:
                raise ThreadExpiredError(f"thread {thread_id!r} expired; it cannot be continued, start it afresh")
            self._drop_thread(thread_id, keep)
            state.expired = False
        state.expires_at = now + touch.ttl

    def _written(self, thread_id: str) -> None:
        self._threads.setdefault(thread_id, _Thread()).written = next(self._seq)

    def touch(self, thread_id: str, touch: Touch) -> None:
        with self._lock:
            self._touch(thread_id, touch, set())

    def claim_fence(self, thread_id: str, floor: int) -> int:
        """The thread's next fencing token, ``max(fence + 1, floor)`` (no fence: 0), stored as its fence."""
        with self._lock:
            state = self._threads.setdefault(thread_id, _Thread())
            state.fence = max((state.fence or 0) + 1, floor)
            return state.fence

    def fence(self, thread_id: str) -> int | None:
        with self._lock:
            state = self._threads.get(thread_id)
            return None if state is None else state.fence

    # --- large values ----------------------------------------------------------------------------------

    def put_large(self, thread_id: str, data: bytes) -> int:
        with self._lock:
            file_id = next(self._ids)
            self._files[file_id] = (thread_id, bytes(data))
            return file_id

    def get_large(self, file_id: Any) -> bytes:
        with self._lock:
            entry = self._files.get(file_id)
        if entry is None:
            raise CheckpointStoreError(f"large value {file_id!r} is missing")
        return entry[1]

    def delete_large(self, file_ids: Sequence[Any]) -> None:
        with self._lock:
            for file_id in file_ids:
                self._files.pop(file_id, None)

    def large_count(self) -> int:
        with self._lock:
            return len(self._files)

    # --- reads -----------------------------------------------------------------------------------------

    def get_checkpoint(self, thread_id: str, checkpoint_ns: str, checkpoint_id: str | None) -> CheckpointRecord | None:
        with self._lock:
            chain = self._checkpoints.get((thread_id, checkpoint_ns), {})
            if checkpoint_id is not None:
                return chain.get(checkpoint_id)
            return chain[max(chain)] if chain else None

    def list_checkpoints(
        self,
        thread_id: str | None,
        checkpoint_ns: str | None,
        checkpoint_id: str | None,
        before_id: str | None,
        metadata: Sequence[tuple[str, Scalar]],
        limit: int | None,
    ) -> list[CheckpointRecord]:
        with self._lock:
            found = [
                record
                for (thread, ns), chain in self._checkpoints.items()
                if (thread_id is None or thread == thread_id) and (checkpoint_ns is None or ns == checkpoint_ns)
                for record in chain.values()
                if (checkpoint_id is None or record.checkpoint_id == checkpoint_id)
                and (before_id is None or record.checkpoint_id < before_id)
                and all(entry in record.metadata_keys for entry in metadata)
            ]
        found.sort(key=lambda r: (r.checkpoint_id, r.thread_id, r.checkpoint_ns), reverse=True)
        return found if limit is None else found[:limit]

    def find_values(
        self, thread_id: str, checkpoint_ns: str, keys: Sequence[str]
    ) -> dict[str, list[tuple[str, StoredValue]]]:
        wanted = set(keys)
        out: dict[str, list[tuple[str, StoredValue]]] = {}
        with self._lock:
            for record in self._checkpoints.get((thread_id, checkpoint_ns), {}).values():
                for value in record.values:
                    if value.key in wanted:
                        out.setdefault(value.key, []).append((record.checkpoint_id, value.value))
        return out

    def thread_checkpoints(self, thread_id: str) -> list[CheckpointRecord]:
        with self._lock:
            records = [
                record
                for (thread, _), chain in self._checkpoints.items()
                if thread == thread_id
                for record in chain.values()
            ]
        return sorted(records, key=lambda r: (r.checkpoint_ns, r.checkpoint_id))

    def find_checkpoint(self, checkpoint_id: str, thread_id: str | None) -> CheckpointRecord | None:
        with self._lock:
            for (thread, _), chain in self._checkpoints.items():
                if (thread_id is None or thread == thread_id) and checkpoint_id in chain:
                    return chain[checkpoint_id]
        return None

    def checkpoints_of_runs(self, run_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        wanted = set(run_ids)
        with self._lock:
            return [
                (r.thread_id, r.checkpoint_ns, r.checkpoint_id)
                for chain in self._checkpoints.values()
                for r in chain.values()
                if r.run_id in wanted
            ]

    def threads(self, limit: int) -> list[ThreadInfo]:
        with self._lock:
            by_thread: dict[str, list[CheckpointRecord]] = {}
            for (thread, _), chain in self._checkpoints.items():
                by_thread.setdefault(thread, []).extend(chain.values())
            infos = []
            for thread, records in by_thread.items():
                if not records:
                    continue
                state = self._threads.get(thread, _Thread())
                infos.append(
                    (
                        state.written,
                        ThreadInfo(
                            thread_id=thread,
                            checkpoints=len(records),
                            namespaces=tuple(sorted({r.checkpoint_ns for r in records})),
                            latest_checkpoint_id=max(r.checkpoint_id for r in records),
                            fencing_token=state.fence,
                            expires_at=state.expires_at,
                            state="expired" if state.expired else "live",
                        ),
                    )
                )
        infos.sort(key=lambda item: item[0], reverse=True)
        return [info for _, info in infos[:limit]]

    # --- deletes and copies ----------------------------------------------------------------------------

    def insert_copies(self, records: Sequence[CheckpointRecord]) -> None:
        with self._lock:
            for record in records:
                self._checkpoints.setdefault((record.thread_id, record.checkpoint_ns), {})[record.checkpoint_id] = (
                    record
                )
                self._written(record.thread_id)

    def delete_thread(self, thread_id: str) -> None:
        with self._lock:
            self._drop_thread(thread_id)
            state = self._threads.get(thread_id)
            if state is not None:
                if state.fence is None:
                    del self._threads[thread_id]
                else:
                    self._threads[thread_id] = _Thread(fence=state.fence)

    def _drop_thread(self, thread_id: str, keep: set[Any] | None = None) -> None:
        for chain_key in [k for k in self._checkpoints if k[0] == thread_id]:
            del self._checkpoints[chain_key]
        for writes_key in [k for k in self._orphan_writes if k[0] == thread_id]:
            del self._orphan_writes[writes_key]
        for file_id in [f for f, (thread, _) in self._files.items() if thread == thread_id and f not in (keep or ())]:
            del self._files[file_id]

    def delete_checkpoints(
        self,
        thread_id: str,
        checkpoint_ns: str,
        checkpoint_ids: Sequence[str],
        relocations: Sequence[Relocation],
        drop_files: Sequence[Any],
    ) -> None:
        with self._lock:
            chain = self._checkpoints.get((thread_id, checkpoint_ns), {})
            for move in relocations:
                record = chain.get(move.checkpoint_id)
                if record is not None:
                    chain[move.checkpoint_id] = replace(record, values=record.values + move.values)
            for checkpoint_id in checkpoint_ids:
                chain.pop(checkpoint_id, None)
            for file_id in drop_files:
                self._files.pop(file_id, None)

    def sweep_expired(self, limit: int) -> list[str]:
        with self._lock:
            now = self.clock()
            expired = [
                thread
                for thread, state in self._threads.items()
                if not state.expired and state.expires_at is not None and state.expires_at <= now
            ][:limit]
            for thread in expired:
                self._drop_thread(thread)
                self._threads[thread].expired = True
            return expired
