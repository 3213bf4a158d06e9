"""Background sub-agent task records."""

from __future__ import annotations

from enum import StrEnum

from aimon_mongo.model._base import Frozen, NonBlankStr, UtcDatetime
from aimon_mongo.model.principal import Principal


class TaskState(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    KILLED = "KILLED"

    @property
    def is_terminal(self) -> bool:
        return self in TERMINAL_STATES


TERMINAL_STATES = frozenset({TaskState.COMPLETED, TaskState.FAILED, TaskState.KILLED})


class BackgroundTask(Frozen):
    """A background task. ``agent_runtime_id`` is stored under the frozen key ``contextId``.

    Stores enforce one rule: a task never leaves a terminal state.
    """

    task_id: NonBlankStr
    subagent_name: str
    description: str = ""
    state: TaskState
    start_time: UtcDatetime
    end_time: UtcDatetime | None = None
    output_offset: int = 0
    owner: Principal | None = None
    agent_runtime_id: str | None = None
    last_heartbeat: UtcDatetime | None = None


class TaskQuery(Frozen):
    """Filter for ``BackgroundTaskStore.list``; an unset field matches everything."""

    state: TaskState | None = None
    owner: Principal | None = None
    agent_runtime_id: str | None = None

    def matches(self, task: BackgroundTask) -> bool:
        return (
            (self.state is None or task.state == self.state)
            and (self.owner is None or task.owner == self.owner)
            and (self.agent_runtime_id is None or task.agent_runtime_id == self.agent_runtime_id)
        )
