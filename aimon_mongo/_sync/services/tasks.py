# GENERATED from aimon_mongo/_async/services/tasks.py by scripts/gen_sync.py; do not edit.
"""The background-task store, policy once (generated from the ``_async`` source).

:class:`TaskStore` implements :class:`~aimon_mongo._sync.ports.BackgroundTaskStore` over a driver,
:class:`TaskDriver`. The policy here: every argument check; the one transition rule — a task in a
terminal state never changes again, any other may take any state — with a terminal ``end_time`` stamped by
the injected clock; a heartbeat only on a live task; a conditional change that lost a race is tried again
(up to :data:`CHANGE_ATTEMPTS`); ``list`` decodes each task on its own (an unreadable one is logged and
skipped) and filters by the query, whatever the driver already narrowed; the error family
:class:`~aimon_mongo.errors.BackgroundTaskStoreError` and its messages.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Generic, Protocol, TypeVar

from aimon_mongo.clock import Clock
from aimon_mongo.errors import BackgroundTaskStoreError
from aimon_mongo.exported import exported_from
from aimon_mongo.model import TERMINAL_STATES, BackgroundTask, Principal, TaskQuery, TaskState
from aimon_mongo.services.composed import composed_repr
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.readable import readable
from aimon_mongo.services.task_change import LostRace, TaskChange
from aimon_mongo.telemetry.capabilities import traced
from aimon_mongo.validate import require_aware, require_id, require_instance

log = logging.getLogger(__name__)

Raw = TypeVar("Raw")

CHANGE_ATTEMPTS = 16
"""How often a conditional change that lost a race (:data:`~aimon_mongo.services.task_change.LOST_RACE`)
is tried before the call fails."""

FINAL_STATES = TERMINAL_STATES
"""The states a task never leaves."""


class TaskDriver(Protocol[Raw]):
    """A store's background-task primitives. ``Raw`` is a task as the store returns it (a document, a JSON
    text, a row, a model); :meth:`decode` reads one and raises :class:`~aimon_mongo.errors.CodecError`."""

    failures: Failures

    def decode(self, raw: Raw) -> BackgroundTask: ...

    def put(self, task: BackgroundTask) -> None:
        """Create or fully overwrite the task."""
        ...

    def find(self, task_id: str) -> Raw | None: ...

    def remove(self, task_id: str) -> bool:
        """Delete the task; True when it was there."""
        ...

    def change(self, task_id: str, keep: frozenset[TaskState], change: TaskChange) -> Raw | LostRace | None:
        """Atomically make ``change`` unless the task's state is in ``keep``: the task as stored afterwards,
        ``None`` when it is unknown or in ``keep``, ``LOST_RACE`` when an optimistic store saw another
        writer between its read and its write (nothing was written)."""
        ...

    def list(self, query: TaskQuery) -> Sequence[tuple[object, Raw]]:
        """``(task id, raw)`` of every task matching ``query``, or of more (the service filters again)."""
        ...


@exported_from("aimon_mongo.services")
@traced("tasks")
class TaskStore(Generic[Raw]):
    """Background task records; a task never leaves a terminal state (see the module text)."""

    def __init__(self, driver: TaskDriver[Raw], clock: Clock) -> None:
        self._driver = driver
        self._clock = clock

    __repr__ = composed_repr

    @property
    def driver(self) -> TaskDriver[Raw]:
        """The store's primitives (driver-level tests use them)."""
        return self._driver

    def put(self, task: BackgroundTask) -> None:
        """Create or fully overwrite the task."""
        require_instance(task, BackgroundTask, "task")
        task_id = require_id(task.task_id, "task_id")
        with self._driver.failures(BackgroundTaskStoreError, f"put of task {task_id!r}"):
            self._driver.put(task)

    def find(self, task_id: str) -> BackgroundTask | None:
        """The task, or ``None``."""
        require_id(task_id, "task_id")
        with self._driver.failures(BackgroundTaskStoreError, f"find of task {task_id!r}"):
            raw = self._driver.find(task_id)
        return None if raw is None else self._driver.decode(raw)

    def remove(self, task_id: str) -> bool:
        """Delete the task; False when it was not there."""
        require_id(task_id, "task_id")
        with self._driver.failures(BackgroundTaskStoreError, f"remove of task {task_id!r}"):
            return self._driver.remove(task_id)

    def transition(self, task_id: str, to: TaskState) -> BackgroundTask | None:
        """Move a non-terminal task to ``to`` (a terminal ``to`` also sets ``end_time`` to the clock's now);
        ``None`` when the task is unknown or already terminal."""
        require_id(task_id, "task_id")
        require_instance(to, TaskState, "to")
        end_time = self._clock() if to.is_terminal else None
        return self._change(task_id, TaskChange(state=to, end_time=end_time), "transition")

    def heartbeat(self, task_id: str, at: datetime) -> BackgroundTask | None:
        """Set ``last_heartbeat`` of a non-terminal task; ``None`` when unknown or terminal."""
        require_id(task_id, "task_id")
        return self._change(task_id, TaskChange(last_heartbeat=require_aware(at, "at")), "heartbeat")

    def list(self, query: TaskQuery | None = None) -> list[BackgroundTask]:
        """Tasks matching ``query`` (all when ``None``); an unreadable task is logged and skipped."""
        query = TaskQuery() if query is None else _checked(query)
        with self._driver.failures(BackgroundTaskStoreError, "list of tasks"):
            found = self._driver.list(query)
        return [task for task in readable(found, self._driver.decode, "background task", log) if query.matches(task)]

    def _change(self, task_id: str, change: TaskChange, what: str) -> BackgroundTask | None:
        for _ in range(CHANGE_ATTEMPTS):
            with self._driver.failures(BackgroundTaskStoreError, f"{what} of task {task_id!r}"):
                raw = self._driver.change(task_id, FINAL_STATES, change)
            if not isinstance(raw, LostRace):
                return None if raw is None else self._driver.decode(raw)
        raise BackgroundTaskStoreError(f"{what} of task {task_id!r} kept racing with other writers")


def _checked(query: object) -> TaskQuery:
    """``query`` with its fields re-checked (a ``model_construct()``ed query skips validation)."""
    query = require_instance(query, TaskQuery, "query")
    if query.state is not None:
        require_instance(query.state, TaskState, "query.state")
    if query.owner is not None:
        require_id(require_instance(query.owner, Principal, "query.owner").id, "query.owner.id")
    if query.agent_runtime_id is not None:
        require_instance(query.agent_runtime_id, str, "query.agent_runtime_id")
    return query
