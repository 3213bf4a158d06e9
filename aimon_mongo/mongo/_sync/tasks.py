# GENERATED from aimon_mongo/mongo/_async/tasks.py by scripts/gen_sync.py; do not edit.
"""MongoDB background-task store (generated from the ``_async`` source): ``background_task``.

``transition`` and ``heartbeat`` are single ``find_one_and_update`` calls guarded by ``state NOT IN
terminal``, so duplicate completion, duplicate stop and a heartbeat after completion are no-ops. ``list``
sends its filter to the server: ``state`` is served by ``by_state``, the agent runtime id by ``by_context``
(an owner-only filter is evaluated by the server too; the whole collection is read only for no filter).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pymongo import ReturnDocument
from pymongo.synchronous.collection import Collection

from aimon_mongo import names as n
from aimon_mongo.clock import Clock
from aimon_mongo.codec.task import task_from_mongo, task_to_mongo
from aimon_mongo.errors import BackgroundTaskStoreError
from aimon_mongo.model import TERMINAL_STATES, BackgroundTask, TaskQuery, TaskState
from aimon_mongo.mongo._sync.pages import read_in_pages
from aimon_mongo.mongo.documents import task_filter
from aimon_mongo.mongo.failures import failures
from aimon_mongo.validate import require_aware, require_id, require_instance

_NOT_TERMINAL = {"$nin": sorted(s.value for s in TERMINAL_STATES)}


class MongoBackgroundTaskStore:
    def __init__(self, collection: Collection[dict[str, Any]], clock: Clock) -> None:
        self._tasks = collection
        self._clock = clock

    def put(self, task: BackgroundTask) -> None:
        require_instance(task, BackgroundTask, "task")
        with failures(BackgroundTaskStoreError, f"put of task {task.task_id!r}"):
            self._tasks.replace_one({n.F_ID: task.task_id}, task_to_mongo(task), upsert=True)

    def find(self, task_id: str) -> BackgroundTask | None:
        require_id(task_id, "task_id")
        with failures(BackgroundTaskStoreError, f"find of task {task_id!r}"):
            doc = self._tasks.find_one({n.F_ID: task_id})
        return None if doc is None else task_from_mongo(doc)

    def remove(self, task_id: str) -> bool:
        require_id(task_id, "task_id")
        with failures(BackgroundTaskStoreError, f"remove of task {task_id!r}"):
            result = self._tasks.delete_one({n.F_ID: task_id})
        return result.deleted_count == 1

    def transition(self, task_id: str, to: TaskState) -> BackgroundTask | None:
        require_id(task_id, "task_id")
        require_instance(to, TaskState, "to")
        update: dict[str, Any] = {n.TASK_STATE: to.value}
        if to.is_terminal:
            update[n.TASK_END_TIME] = self._clock()
        return self._update_live(task_id, update, "transition")

    def heartbeat(self, task_id: str, at: datetime) -> BackgroundTask | None:
        require_id(task_id, "task_id")
        return self._update_live(task_id, {n.TASK_LAST_HEARTBEAT: require_aware(at, "at")}, "heartbeat")

    def list(self, query: TaskQuery | None = None) -> list[BackgroundTask]:
        if query is not None:
            require_instance(query, TaskQuery, "query")
        with failures(BackgroundTaskStoreError, "list of tasks"):
            docs = read_in_pages(self._tasks, task_filter(query))
        return [task_from_mongo(doc) for doc in docs]

    def _update_live(self, task_id: str, update: dict[str, Any], what: str) -> BackgroundTask | None:
        with failures(BackgroundTaskStoreError, f"{what} of task {task_id!r}"):
            doc = self._tasks.find_one_and_update(
                {n.F_ID: task_id, n.TASK_STATE: _NOT_TERMINAL},
                {"$set": update},
                return_document=ReturnDocument.AFTER,
            )
        return None if doc is None else task_from_mongo(doc)
