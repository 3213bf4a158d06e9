"""The in-memory background-task store (async flavour; the sync twin is generated): the task table's
primitives (:mod:`aimon_mongo.memory.task_table`) under the shared service."""

from __future__ import annotations

from aimon_mongo._async.services.tasks import AsyncTaskStore
from aimon_mongo.clock import Clock
from aimon_mongo.exported import exported_from
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import BackgroundTask, TaskQuery, TaskState
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures, no_failures
from aimon_mongo.services.task_change import TaskChange


@exported_from("aimon_mongo.memory")
class AsyncMemoryTaskDriver:
    """The table's calls; a raw task is the model itself."""

    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.tasks
        self.failures: Failures = no_failures

    def __repr__(self) -> str:
        return located(self)

    def decode(self, raw: BackgroundTask) -> BackgroundTask:
        return raw

    async def put(self, task: BackgroundTask) -> None:
        self._table.put(task)

    async def find(self, task_id: str) -> BackgroundTask | None:
        return self._table.find(task_id)

    async def remove(self, task_id: str) -> bool:
        return self._table.remove(task_id)

    async def change(self, task_id: str, keep: frozenset[TaskState], change: TaskChange) -> BackgroundTask | None:
        return self._table.change(task_id, keep, change.applied_to)

    async def list(self, query: TaskQuery) -> list[tuple[object, BackgroundTask]]:
        return [(task.task_id, task) for task in self._table.list()]


@exported_from("aimon_mongo.memory")
def AsyncMemoryBackgroundTaskStore(storage: MemoryStorage, clock: Clock) -> AsyncTaskStore[BackgroundTask]:
    """Background tasks of a :class:`MemoryStorage`; ``clock`` stamps a terminal task's ``end_time``.

    A factory: the :class:`~aimon_mongo.services.AsyncTaskStore` service over :class:`AsyncMemoryTaskDriver`."""
    return AsyncTaskStore(AsyncMemoryTaskDriver(storage), clock)
