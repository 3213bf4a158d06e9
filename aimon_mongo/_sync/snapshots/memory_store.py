# GENERATED from aimon_mongo/_async/snapshots/memory_store.py by scripts/gen_sync.py; do not edit.
"""``InMemorySessionSnapshotStore``: transcripts kept in this process only, least recently used first
out (default 256). Snapshots are immutable values, so the store keeps references, never copies."""

from __future__ import annotations

from aimon_mongo.exported import exported_from
from aimon_mongo.snapshots.envelope import ResumableSession, check_save_arguments
from aimon_mongo.snapshots.layout import validate_task_id
from aimon_mongo.snapshots.lru import DEFAULT_MAX_SNAPSHOTS, SessionLru
from aimon_mongo.snapshots.model import SessionSnapshot


@exported_from("aimon_mongo.snapshots")
class InMemorySessionSnapshotStore:
    """A bounded LRU of resumable sessions (thread-safe). Beyond ``max_snapshots`` the least recently saved
    or loaded one is dropped, and resuming it then finds nothing."""

    def __init__(self, max_snapshots: int = DEFAULT_MAX_SNAPSHOTS) -> None:
        self._lru = SessionLru(max_snapshots)

    @property
    def max_snapshots(self) -> int:
        return self._lru.max_snapshots

    def __len__(self) -> int:
        return len(self._lru)

    def save(
        self, task_id: str, subagent_name: str, agent_runtime_id: str | None, snapshot: SessionSnapshot
    ) -> None:
        """Keep the session (replacing any previous one for the task)."""
        check_save_arguments(task_id, subagent_name, agent_runtime_id, snapshot)
        session = ResumableSession(subagent_name=subagent_name, agent_runtime_id=agent_runtime_id, snapshot=snapshot)
        self._lru.put(task_id, session)

    def load(self, task_id: str) -> ResumableSession | None:
        """The kept session, or ``None``."""
        return self._lru.get(validate_task_id(task_id))

    def evict(self, task_id: str) -> None:
        """Forget the session (nothing happens for an unknown task)."""
        self._lru.pop(validate_task_id(task_id))
