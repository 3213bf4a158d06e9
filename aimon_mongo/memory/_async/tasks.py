"""The in-memory background-task store (async flavour; the sync twin is generated)."""

from __future__ import annotations

import logging
from datetime import datetime

from aimon_mongo.clock import Clock
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import (
    BackgroundTask,
    TaskQuery,
    TaskState,
)
from aimon_mongo.validate import (
    require_aware,
    require_id,
    require_instance,
)

log = logging.getLogger(__name__)


class AsyncMemoryBackgroundTaskStore:
    def __init__(self, storage: MemoryStorage, clock: Clock) -> None:
        self._table = storage.tasks
        self._clock = clock

    async def put(self, task: BackgroundTask) -> None:
        self._table.put(require_instance(task, BackgroundTask, "task"))

    async def find(self, task_id: str) -> BackgroundTask | None:
        return self._table.find(require_id(task_id, "task_id"))

    async def remove(self, task_id: str) -> bool:
        return self._table.remove(require_id(task_id, "task_id"))

    async def transition(self, task_id: str, to: TaskState) -> BackgroundTask | None:
        require_id(task_id, "task_id")
        return self._table.transition(task_id, require_instance(to, TaskState, "to"), self._clock())

    async def heartbeat(self, task_id: str, at: datetime) -> BackgroundTask | None:
        return self._table.heartbeat(require_id(task_id, "task_id"), require_aware(at, "at"))

    async def list(self, query: TaskQuery | None = None) -> list[BackgroundTask]:
        if query is not None:
            require_instance(query, TaskQuery, "query")
        return self._table.list(query)
