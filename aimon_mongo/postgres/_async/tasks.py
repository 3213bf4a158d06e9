"""PostgreSQL background-task store (``background_task``): terminal states guarded in the UPDATE itself."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.errors import BackgroundTaskStoreError
from aimon_mongo.model import TERMINAL_STATES, BackgroundTask, TaskQuery, TaskState
from aimon_mongo.postgres._async.pool import AsyncPgPool
from aimon_mongo.postgres.rows import TASK_COLUMNS, task_from_row, task_params
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.validate import require_aware, require_id, require_instance

_UPDATES = ", ".join(f"{c} = EXCLUDED.{c}" for c in TASK_COLUMNS.split(", ")[1:])
_PUT = (
    f"INSERT INTO {{task}} ({TASK_COLUMNS}) VALUES ({', '.join(['%s'] * 12)}) "
    f"ON CONFLICT (task_id) DO UPDATE SET {_UPDATES}"
)
_FIND = f"SELECT {TASK_COLUMNS} FROM {{task}} WHERE task_id = %s"
_REMOVE = "DELETE FROM {task} WHERE task_id = %s"
_TERMINAL = ", ".join(f"'{state.value}'" for state in sorted(TERMINAL_STATES))
_TRANSITION = (
    "UPDATE {task} SET state = %s, end_time = CASE WHEN %s THEN %s ELSE end_time END "
    f"WHERE task_id = %s AND state NOT IN ({_TERMINAL}) RETURNING {TASK_COLUMNS}"
)
_HEARTBEAT = (
    "UPDATE {task} SET last_heartbeat = %s "
    f"WHERE task_id = %s AND state NOT IN ({_TERMINAL}) RETURNING {TASK_COLUMNS}"
)
# One statement per combination of TaskQuery filters, each served by an index (state, context_id) or
# a plain predicate; values are parameters, the text is fixed.
_FILTERS = ("state = %s", "owner_type = %s AND owner_id = %s", "context_id = %s")
_LIST = f"SELECT {TASK_COLUMNS} FROM {{task}}{{where}} ORDER BY start_time, task_id"


class AsyncPostgresBackgroundTaskStore:
    """Background task records; ``list`` filters in SQL."""

    def __init__(self, pool: AsyncPgPool, schema: str, clock: Clock | None = None) -> None:
        self._pool = pool
        self._clock = clock or system_clock
        self._put = qualify(_PUT, schema)
        self._find = qualify(_FIND, schema)
        self._remove = qualify(_REMOVE, schema)
        self._transition = qualify(_TRANSITION, schema)
        self._heartbeat = qualify(_HEARTBEAT, schema)
        self._list: dict[tuple[bool, ...], str] = {}
        for used in itertools.product((False, True), repeat=len(_FILTERS)):
            clauses = [clause for clause, on in zip(_FILTERS, used, strict=True) if on]
            where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
            self._list[used] = qualify(_LIST.replace("{where}", where), schema)

    async def put(self, task: BackgroundTask) -> None:
        """Create or fully overwrite the task."""
        require_instance(task, BackgroundTask, "task")
        require_id(task.task_id, "task_id")
        async with self._pool.connection(BackgroundTaskStoreError) as conn:
            await conn.execute(self._put, task_params(task))

    async def find(self, task_id: str) -> BackgroundTask | None:
        require_id(task_id, "task_id")
        return await self._one(self._find, [task_id])

    async def remove(self, task_id: str) -> bool:
        require_id(task_id, "task_id")
        async with self._pool.connection(BackgroundTaskStoreError) as conn:
            cur = await conn.execute(self._remove, [task_id])
            return cur.rowcount > 0

    async def transition(self, task_id: str, to: TaskState) -> BackgroundTask | None:
        """Move a non-terminal task to ``to`` (terminal → ``end_time`` = clock now); else ``None``."""
        require_id(task_id, "task_id")
        require_instance(to, TaskState, "to")
        terminal = to in TERMINAL_STATES
        return await self._one(self._transition, [to.value, terminal, self._clock() if terminal else None, task_id])

    async def heartbeat(self, task_id: str, at: datetime) -> BackgroundTask | None:
        """Set ``last_heartbeat`` of a non-terminal task; ``None`` when unknown or terminal."""
        require_id(task_id, "task_id")
        at = require_aware(at, "at")
        return await self._one(self._heartbeat, [at, task_id])

    async def list(self, query: TaskQuery | None = None) -> list[BackgroundTask]:
        """Tasks matching ``query`` (all when ``None``), oldest start first."""
        if query is not None:
            require_instance(query, TaskQuery, "query")
        q = query or TaskQuery()
        params: list[Any] = []
        if q.state is not None:
            params.append(q.state.value)
        if q.owner is not None:
            params += [q.owner.type.value, q.owner.id]
        if q.agent_runtime_id is not None:
            params.append(q.agent_runtime_id)
        text = self._list[(q.state is not None, q.owner is not None, q.agent_runtime_id is not None)]
        async with self._pool.connection(BackgroundTaskStoreError) as conn:
            cur = await conn.execute(text, params)
            rows = await cur.fetchall()
        return [task_from_row(row) for row in rows]

    async def _one(self, text: str, params: Sequence[Any]) -> BackgroundTask | None:
        async with self._pool.connection(BackgroundTaskStoreError) as conn:
            cur = await conn.execute(text, params)
            row = await cur.fetchone()
        return task_from_row(row) if row is not None else None
