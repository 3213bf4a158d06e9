"""What a background-task service asks its driver to write, flavour-independent (both flavours' drivers
and the memory table share it): one :class:`TaskChange`, and :data:`LOST_RACE`, the answer of a store that
checks optimistically and saw another writer in between (the service tries again)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from aimon_mongo.model import BackgroundTask, TaskState


@dataclass(frozen=True, slots=True)
class TaskChange:
    """Fields to set on a task; ``None`` leaves a field as it is (nothing is ever cleared)."""

    state: TaskState | None = None
    end_time: datetime | None = None
    last_heartbeat: datetime | None = None

    def fields(self) -> dict[str, object]:
        """The fields set, by model field name in declaration order; the state as its stored text."""
        found: dict[str, object] = {}
        if self.state is not None:
            found["state"] = self.state.value
        if self.end_time is not None:
            found["end_time"] = self.end_time
        if self.last_heartbeat is not None:
            found["last_heartbeat"] = self.last_heartbeat
        return found

    def applied_to(self, task: BackgroundTask) -> BackgroundTask:
        """``task`` with the change made, validated as a whole (for stores that change a decoded task)."""
        return BackgroundTask.model_validate({**task.model_dump(), **self.fields()})


class LostRace:
    """The type of :data:`LOST_RACE`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "LOST_RACE"


LOST_RACE: Final = LostRace()
"""A conditional change that found the task changed by another writer between its read and its write."""
