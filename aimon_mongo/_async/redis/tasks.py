"""Background tasks on Redis (async source; the sync twin is generated): one JSON String per task
(``<tasks>:<taskId>``, reference §4.6 layout) plus the index set ``<tasks>:index`` of task ids (so
``list`` never scans the keyspace).

A change reads the value, makes the change on the decoded task and writes it back with a compare-and-set
script: the ``keep`` guard is atomic (a value that changed after the read makes the write fail, and the
service tries again). The task id ``index`` is refused (it is the index set's key).
"""

from __future__ import annotations

from aimon_mongo._async.redis.connection import AsyncRedisIO
from aimon_mongo._async.services.tasks import AsyncTaskStore
from aimon_mongo.clock import Clock
from aimon_mongo.codec.task import task_from_json, task_to_json
from aimon_mongo.exported import exported_from
from aimon_mongo.model.task import BackgroundTask, TaskQuery, TaskState
from aimon_mongo.redis.keys import RedisKeys
from aimon_mongo.redis.replies import text
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.task_change import LOST_RACE, LostRace, TaskChange

MGET_CHUNK = 512


@exported_from("aimon_mongo.redis")
class AsyncRedisTaskDriver:
    """Scripts and reads over the task values and their index set; a raw task is its JSON value."""

    def __init__(self, io: AsyncRedisIO, keys: RedisKeys) -> None:
        self._io = io
        self._keys = keys
        self.failures: Failures = io.guard

    def __repr__(self) -> str:
        return located(self, self._io.endpoint)

    def decode(self, raw: str | bytes) -> BackgroundTask:
        return task_from_json(raw)

    async def put(self, task: BackgroundTask) -> None:
        key = self._keys.task(task.task_id)
        await self._io.script("task_put", [key, self._keys.task_index()], [task_to_json(task), task.task_id])

    async def find(self, task_id: str) -> bytes | None:
        raw: bytes | None = await self._io.call("GET", self._keys.task(task_id))
        return raw

    async def remove(self, task_id: str) -> bool:
        key = self._keys.task(task_id)
        return int(await self._io.script("task_remove", [key, self._keys.task_index()], [task_id])) == 1

    async def change(self, task_id: str, keep: frozenset[TaskState], change: TaskChange) -> str | LostRace | None:
        key = self._keys.task(task_id)
        raw = await self._io.call("GET", key)
        if raw is None:
            return None
        current = task_from_json(raw)
        if current.state in keep:
            return None
        value = task_to_json(change.applied_to(current))
        return value if int(await self._io.script("cas", [key], [raw, value, ""])) == 1 else LOST_RACE

    async def list(self, query: TaskQuery) -> list[tuple[object, bytes]]:
        """Every task (the index set, then the values in chunks); ids whose value is gone leave the index."""
        index = self._keys.task_index()
        ids = sorted(text(raw, "task id") for raw in await self._io.call("SMEMBERS", index))
        found: list[tuple[object, bytes]] = []
        gone: list[str] = []
        for start in range(0, len(ids), MGET_CHUNK):
            chunk = ids[start : start + MGET_CHUNK]
            values = await self._io.call("MGET", *[self._keys.task(task_id) for task_id in chunk])
            for task_id, raw in zip(chunk, values, strict=True):
                if raw is None:
                    gone.append(task_id)
                else:
                    found.append((task_id, raw))
        if gone:
            await self._io.script("task_prune", [index, *[self._keys.task(task_id) for task_id in gone]], gone)
        return found


@exported_from("aimon_mongo.redis")
def AsyncRedisBackgroundTaskStore(io: AsyncRedisIO, keys: RedisKeys, clock: Clock) -> AsyncTaskStore[str | bytes]:
    """Background tasks of one Redis bundle; ``clock`` stamps a terminal task's ``end_time``.

    A factory: the :class:`~aimon_mongo.services.AsyncTaskStore` service over :class:`AsyncRedisTaskDriver`."""
    return AsyncTaskStore(AsyncRedisTaskDriver(io, keys), clock)
