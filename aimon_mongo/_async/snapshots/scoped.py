"""``AsyncScopedSessionSnapshotStore``: a snapshot store seen through one agent runtime id."""

from __future__ import annotations

from aimon_mongo._async.snapshots.ports import AsyncSessionSnapshotStore
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.exported import exported_from
from aimon_mongo.snapshots.envelope import ResumableSession, validate_agent_runtime_id
from aimon_mongo.snapshots.model import SessionSnapshot


@exported_from("aimon_mongo.snapshots")
class AsyncScopedSessionSnapshotStore:
    """Saves and evicts through the delegate unchanged; loads only sessions tagged with ``runtime_id``.

    A snapshot saved under another runtime id, or untagged, loads as ``None`` — exactly like an unknown
    task — so one runtime cannot resume another's transcript by guessing its task id.
    """

    def __init__(self, delegate: AsyncSessionSnapshotStore, runtime_id: str) -> None:
        checked = validate_agent_runtime_id(runtime_id)
        if checked is None:
            raise InvalidArgumentError("runtime_id cannot be None (scope_or_pass_through passes None through)")
        self.delegate = delegate
        self.runtime_id = checked

    @classmethod
    def scope_or_pass_through(
        cls, delegate: AsyncSessionSnapshotStore, runtime_id: str | None
    ) -> AsyncSessionSnapshotStore:
        """A scoped view when ``runtime_id`` is given, else ``delegate`` itself."""
        return delegate if runtime_id is None else cls(delegate, runtime_id)

    async def save(
        self, task_id: str, subagent_name: str, agent_runtime_id: str | None, snapshot: SessionSnapshot
    ) -> None:
        """Delegated unchanged (the caller's runtime id is stored, whatever this view is scoped to)."""
        await self.delegate.save(task_id, subagent_name, agent_runtime_id, snapshot)

    async def load(self, task_id: str) -> ResumableSession | None:
        """The delegate's session when it is tagged with this view's runtime id, else ``None``."""
        session = await self.delegate.load(task_id)
        if session is None or session.agent_runtime_id != self.runtime_id:
            return None
        return session

    async def evict(self, task_id: str) -> None:
        """Delegated unchanged."""
        await self.delegate.evict(task_id)
