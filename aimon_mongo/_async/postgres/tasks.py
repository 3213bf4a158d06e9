"""PostgreSQL background-task driver (async source; the sync twin is generated): ``background_task``,
the ``keep`` guard of a change in the UPDATE itself, ``list`` filtered in SQL."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from aimon_mongo._async.postgres.pool import AsyncPgPool
from aimon_mongo._async.services.tasks import AsyncTaskStore
from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.exported import exported_from
from aimon_mongo.model import BackgroundTask, TaskQuery, TaskState
from aimon_mongo.postgres.rows import TASK_COLUMNS, task_from_row, task_params
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.task_change import TaskChange

Row = Sequence[Any]

_UPDATES = ", ".join(f"{c} = EXCLUDED.{c}" for c in TASK_COLUMNS.split(", ")[1:])
_PUT = (
    f"INSERT INTO {{task}} ({TASK_COLUMNS}) VALUES ({', '.join(['%s'] * 12)}) "
    f"ON CONFLICT (task_id) DO UPDATE SET {_UPDATES}"
)
_FIND = f"SELECT {TASK_COLUMNS} FROM {{task}} WHERE task_id = %s"
_REMOVE = "DELETE FROM {task} WHERE task_id = %s"
# A change sets the named columns (TaskChange field names are the column names).
_CHANGE = f"UPDATE {{task}} SET {{set}} WHERE task_id = %s AND state <> ALL(%s::text[]) RETURNING {TASK_COLUMNS}"
# One statement per combination of TaskQuery filters, each served by an index (state, context_id) or
# a plain predicate; values are parameters, the text is fixed.
_FILTERS = ("state = %s", "owner_type = %s AND owner_id = %s", "context_id = %s")
_LIST = f"SELECT {TASK_COLUMNS} FROM {{task}}{{where}} ORDER BY start_time, task_id"


@exported_from("aimon_mongo.postgres")
class AsyncPostgresTaskDriver:
    """One statement per primitive; a raw task is its row (:data:`TASK_COLUMNS`)."""

    def __init__(self, pool: AsyncPgPool, schema: str) -> None:
        self._pool = pool
        self._schema = schema
        self.failures: Failures = pool.failures
        self._put = qualify(_PUT, schema)
        self._find = qualify(_FIND, schema)
        self._remove = qualify(_REMOVE, schema)
        self._changes: dict[tuple[str, ...], str] = {}
        self._list: dict[tuple[bool, ...], str] = {}
        for used in itertools.product((False, True), repeat=len(_FILTERS)):
            clauses = [clause for clause, on in zip(_FILTERS, used, strict=True) if on]
            where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
            self._list[used] = qualify(_LIST.replace("{where}", where), schema)

    def __repr__(self) -> str:
        return located(self, self._pool.endpoint)

    def decode(self, raw: Row) -> BackgroundTask:
        return task_from_row(raw)

    async def put(self, task: BackgroundTask) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(self._put, task_params(task))

    async def find(self, task_id: str) -> Row | None:
        return await self._one(self._find, [task_id])

    async def remove(self, task_id: str) -> bool:
        async with self._pool.connection() as conn:
            return (await conn.execute(self._remove, [task_id])).rowcount > 0

    async def change(self, task_id: str, keep: frozenset[TaskState], change: TaskChange) -> Row | None:
        fields = change.fields()
        columns = tuple(fields)
        statement = self._changes.get(columns)
        if statement is None:
            assignments = ", ".join(f"{column} = %s" for column in columns)
            statement = self._changes[columns] = qualify(_CHANGE.replace("{set}", assignments), self._schema)
        return await self._one(statement, [*fields.values(), task_id, sorted(state.value for state in keep)])

    async def list(self, query: TaskQuery) -> list[tuple[object, Row]]:
        params: list[Any] = []
        if query.state is not None:
            params.append(query.state.value)
        if query.owner is not None:
            params += [query.owner.type.value, query.owner.id]
        if query.agent_runtime_id is not None:
            params.append(query.agent_runtime_id)
        used = (query.state is not None, query.owner is not None, query.agent_runtime_id is not None)
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(self._list[used], params)).fetchall()
        return [(row[0], row) for row in rows]

    async def _one(self, statement: str, params: Sequence[Any]) -> Row | None:
        async with self._pool.connection() as conn:
            row: Row | None = await (await conn.execute(statement, params)).fetchone()
        return row


@exported_from("aimon_mongo.postgres")
def AsyncPostgresBackgroundTaskStore(pool: AsyncPgPool, schema: str, clock: Clock | None = None) -> AsyncTaskStore[Row]:
    """Background task records of one PostgreSQL bundle; ``clock`` stamps a terminal task's ``end_time``.

    A factory: the :class:`~aimon_mongo.services.AsyncTaskStore` service over :class:`AsyncPostgresTaskDriver`."""
    return AsyncTaskStore(AsyncPostgresTaskDriver(pool, schema), clock or system_clock)
