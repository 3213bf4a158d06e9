# GENERATED from aimon_mongo/_async/memory/tasks.py by scripts/gen_sync.py; do not edit.
"""The in-memory background-task store (generated from the ``_async`` source): the task table's
primitives (:mod:`aimon_mongo.memory.task_table`) under the shared service."""

from __future__ import annotations

from aimon_mongo._sync.services.tasks import TaskStore
from aimon_mongo.clock import Clock
from aimon_mongo.exported import exported_from
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import BackgroundTask, TaskQuery, TaskState
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures, no_failures
from aimon_mongo.services.task_change import TaskChange


@exported_from("aimon_mongo.memory")
class MemoryTaskDriver:
    """The table's calls; a raw task is the model itself."""

    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.tasks
        self.failures: Failures = no_failures

    def __repr__(self) -> str:
        return located(self)

    def decode(self, raw: BackgroundTask) -> BackgroundTask:
        return raw

    def put(self, task: BackgroundTask) -> None:
        self._table.put(task)

    def find(self, task_id: str) -> BackgroundTask | None:
        return self._table.find(task_id)

    def remove(self, task_id: str) -> bool:
        return self._table.remove(task_id)

    def change(self, task_id: str, keep: frozenset[TaskState], change: TaskChange) -> BackgroundTask | None:
        return self._table.change(task_id, keep, change.applied_to)

    def list(self, query: TaskQuery) -> list[tuple[object, BackgroundTask]]:
        return [(task.task_id, task) for task in self._table.list()]


@exported_from("aimon_mongo.memory")
def MemoryBackgroundTaskStore(storage: MemoryStorage, clock: Clock) -> TaskStore[BackgroundTask]:
    """Background tasks of a :class:`MemoryStorage`; ``clock`` stamps a terminal task's ``end_time``.

    A factory: the :class:`~aimon_mongo.services.TaskStore` service over :class:`MemoryTaskDriver`."""
    return TaskStore(MemoryTaskDriver(storage), clock)
