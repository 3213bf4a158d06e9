"""Background tasks on Redis: one JSON String per task (``<tasks>:<taskId>``, reference §4.6 layout)
plus the index set ``<tasks>:index`` of task ids (so ``list`` never scans the keyspace).

``transition`` and ``heartbeat`` read, decide in Python with the shared codec and write back with a
compare-and-set script, retrying when the value changed meanwhile: the terminal guard is atomic (a
value that turned terminal after the read makes the write fail and the retry see it). The task id
``index`` is refused (it is the index set's key).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from aimon_mongo.clock import Clock
from aimon_mongo.codec.task import task_from_json, task_to_json
from aimon_mongo.errors import BackgroundTaskStoreError, CodecError
from aimon_mongo.model.task import BackgroundTask, TaskQuery, TaskState
from aimon_mongo.redis._async.connection import AsyncRedisIO
from aimon_mongo.redis.keys import RedisKeys
from aimon_mongo.redis.replies import text
from aimon_mongo.validate import require_aware, require_instance

log = logging.getLogger(__name__)

CAS_ATTEMPTS = 16
MGET_CHUNK = 512


class AsyncRedisBackgroundTaskStore:
    """Task records with an atomic terminal guard (see the module text)."""

    def __init__(self, io: AsyncRedisIO, keys: RedisKeys, clock: Clock) -> None:
        self._io = io
        self._keys = keys
        self._clock = clock

    async def put(self, task: BackgroundTask) -> None:
        require_instance(task, BackgroundTask, "task")
        key = self._keys.task(task.task_id)
        with self._io.guard(BackgroundTaskStoreError, f"task put of {task.task_id!r}"):
            await self._io.script("task_put", [key, self._keys.task_index()], [task_to_json(task), task.task_id])

    async def find(self, task_id: str) -> BackgroundTask | None:
        key = self._keys.task(task_id)
        with self._io.guard(BackgroundTaskStoreError, f"task find of {task_id!r}"):
            raw = await self._io.call("GET", key)
        return None if raw is None else task_from_json(raw)

    async def remove(self, task_id: str) -> bool:
        key = self._keys.task(task_id)
        with self._io.guard(BackgroundTaskStoreError, f"task remove of {task_id!r}"):
            return int(await self._io.script("task_remove", [key, self._keys.task_index()], [task_id])) == 1

    async def transition(self, task_id: str, to: TaskState) -> BackgroundTask | None:
        require_instance(to, TaskState, "to")

        def change(task: BackgroundTask) -> BackgroundTask:
            update: dict[str, object] = {"state": to}
            if to.is_terminal:
                update["end_time"] = self._clock()
            return task.model_copy(update=update)

        return await self._update(task_id, "transition", change)

    async def heartbeat(self, task_id: str, at: datetime) -> BackgroundTask | None:
        at = require_aware(at, "at")
        return await self._update(task_id, "heartbeat", lambda task: task.model_copy(update={"last_heartbeat": at}))

    async def _update(
        self, task_id: str, action: str, change: Callable[[BackgroundTask], BackgroundTask]
    ) -> BackgroundTask | None:
        key = self._keys.task(task_id)
        with self._io.guard(BackgroundTaskStoreError, f"task {action} of {task_id!r}"):
            for _ in range(CAS_ATTEMPTS):
                raw = await self._io.call("GET", key)
                if raw is None:
                    return None
                current = task_from_json(raw)
                if current.state.is_terminal:
                    return None
                updated = BackgroundTask.model_validate(change(current).model_dump())
                if int(await self._io.script("cas", [key], [raw, task_to_json(updated), ""])) == 1:
                    return updated
        raise BackgroundTaskStoreError(f"task {action} of {task_id!r} kept racing with other writers")

    async def list(self, query: TaskQuery | None = None) -> list[BackgroundTask]:
        if query is not None:
            require_instance(query, TaskQuery, "query")
        index = self._keys.task_index()
        tasks: list[BackgroundTask] = []
        with self._io.guard(BackgroundTaskStoreError, "task list"):
            ids = sorted(text(raw, "task id") for raw in await self._io.call("SMEMBERS", index))
            gone: list[str] = []
            for start in range(0, len(ids), MGET_CHUNK):
                chunk = ids[start : start + MGET_CHUNK]
                values = await self._io.call("MGET", *[self._keys.task(tid) for tid in chunk])
                for tid, raw in zip(chunk, values, strict=True):
                    if raw is None:
                        gone.append(tid)
                        continue
                    try:
                        task = task_from_json(raw)
                    except CodecError as exc:
                        log.warning("skipping unreadable background task %s: %s", tid, exc)
                        continue
                    if query is None or query.matches(task):
                        tasks.append(task)
            if gone:  # self-healing: ids whose value is gone leave the index
                keys = [index, *[self._keys.task(tid) for tid in gone]]
                await self._io.script("task_prune", keys, gone)
        return tasks
