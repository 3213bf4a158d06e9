"""The contracts of the task stores (async flavour; the sync twin is generated).

All three are keyed by task id (the namespace of the background-task store) and best-effort: a backend
failure is logged and swallowed, never raised, because losing a transcript or an output chunk must not
fail the task that produced it. Bad arguments raise :class:`~aimon_mongo.errors.InvalidArgumentError`.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from aimon_mongo.exported import exported_from
from aimon_mongo.snapshots.envelope import ResumableSession
from aimon_mongo.snapshots.model import SessionSnapshot
from aimon_mongo.snapshots.output import DEFAULT_MAX_CHARS, OutputSlice
from aimon_mongo.snapshots.task_result import TaskResult


@exported_from("aimon_mongo.snapshots")
@runtime_checkable
class AsyncSessionSnapshotStore(Protocol):
    """Subagent transcripts by task id, for ``Task(resume=<task_id>)``; tolerates a saver racing a loader."""

    async def save(
        self, task_id: str, subagent_name: str, agent_runtime_id: str | None, snapshot: SessionSnapshot
    ) -> None:
        """Store the transcript, replacing any previous one (last write wins)."""
        ...

    async def load(self, task_id: str) -> ResumableSession | None:
        """The stored session, or ``None`` when unknown, evicted or unreadable."""
        ...

    async def evict(self, task_id: str) -> None:
        """Forget the transcript; nothing happens for an unknown task."""
        ...


@exported_from("aimon_mongo.snapshots")
@runtime_checkable
class AsyncTaskOutputStore(Protocol):
    """A task's output text, append-only, read by windows of UTF-16 offsets."""

    async def append(self, task_id: str, chunk: str | None) -> None:
        """Append a chunk (``None`` or ``""`` is ignored)."""
        ...

    async def read(self, task_id: str, from_offset: int = 0, max_chars: int = DEFAULT_MAX_CHARS) -> OutputSlice:
        """Up to ``max_chars`` UTF-16 units of output starting at ``from_offset``."""
        ...

    async def length(self, task_id: str) -> int:
        """The total length of the output in UTF-16 units (0 for an unknown task)."""
        ...

    async def evict(self, task_id: str) -> None:
        """Remove all of a task's output."""
        ...


@exported_from("aimon_mongo.snapshots")
@runtime_checkable
class AsyncTaskResultStore(Protocol):
    """What a finished background task produced, by task id."""

    async def save(self, task_id: str, result: TaskResult) -> None:
        """Store the result, replacing any previous one."""
        ...

    async def load(self, task_id: str) -> TaskResult | None:
        """The stored result, or ``None`` when unknown or unreadable."""
        ...

    async def evict(self, task_id: str) -> None:
        """Forget the result; nothing happens for an unknown task."""
        ...
