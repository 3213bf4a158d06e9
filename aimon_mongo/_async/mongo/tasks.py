"""MongoDB background-task driver (async source; the sync twin is generated): ``background_task``.

A change is one ``find_one_and_update`` guarded by ``state NOT IN keep``, so duplicate completion,
duplicate stop and a heartbeat after completion are no-ops. ``list`` sends its filter to the server:
``state`` is served by ``by_state``, the agent runtime id by ``by_context`` (an owner-only filter is
evaluated by the server too; the whole collection is read only for no filter).
"""

from __future__ import annotations

from typing import Any

from pymongo import ReturnDocument
from pymongo.asynchronous.collection import AsyncCollection

from aimon_mongo import names as n
from aimon_mongo._async.mongo.pages import read_in_pages
from aimon_mongo._async.services.tasks import AsyncTaskStore
from aimon_mongo.clock import Clock
from aimon_mongo.codec.task import task_from_mongo, task_to_mongo
from aimon_mongo.exported import exported_from
from aimon_mongo.model import BackgroundTask, TaskQuery, TaskState
from aimon_mongo.mongo.documents import task_filter
from aimon_mongo.mongo.failures import failures
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.task_change import TaskChange

Document = dict[str, Any]

_KEYS = {"state": n.TASK_STATE, "end_time": n.TASK_END_TIME, "last_heartbeat": n.TASK_LAST_HEARTBEAT}


@exported_from("aimon_mongo.mongo")
class AsyncMongoTaskDriver:
    """One command per primitive on the ``background_task`` collection; a raw task is its document."""

    def __init__(self, collection: AsyncCollection[Document]) -> None:
        self._tasks = collection
        self.failures: Failures = failures

    def __repr__(self) -> str:
        return located(self, self._tasks.full_name)

    def decode(self, raw: Document) -> BackgroundTask:
        return task_from_mongo(raw)

    async def put(self, task: BackgroundTask) -> None:
        await self._tasks.replace_one({n.F_ID: task.task_id}, task_to_mongo(task), upsert=True)

    async def find(self, task_id: str) -> Document | None:
        return await self._tasks.find_one({n.F_ID: task_id})

    async def remove(self, task_id: str) -> bool:
        return (await self._tasks.delete_one({n.F_ID: task_id})).deleted_count == 1

    async def change(self, task_id: str, keep: frozenset[TaskState], change: TaskChange) -> Document | None:
        return await self._tasks.find_one_and_update(
            {n.F_ID: task_id, n.TASK_STATE: {"$nin": sorted(state.value for state in keep)}},
            {"$set": {_KEYS[field]: value for field, value in change.fields().items()}},
            return_document=ReturnDocument.AFTER,
        )

    async def list(self, query: TaskQuery) -> list[tuple[object, Document]]:
        return [(doc.get(n.F_ID), doc) for doc in await read_in_pages(self._tasks, task_filter(query))]


@exported_from("aimon_mongo.mongo")
def AsyncMongoBackgroundTaskStore(collection: AsyncCollection[Document], clock: Clock) -> AsyncTaskStore[Document]:
    """Background tasks in ``collection``; ``clock`` stamps a terminal task's ``end_time``.

    A factory: the :class:`~aimon_mongo.services.AsyncTaskStore` service over :class:`AsyncMongoTaskDriver`."""
    return AsyncTaskStore(AsyncMongoTaskDriver(collection), clock)
