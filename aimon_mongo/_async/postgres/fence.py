"""The statements of the stores fenced by ``session_fence`` (records, log segments): qualified for the
session schema once, when a store is built; fenced writes (see :mod:`aimon_mongo.postgres.fencing`) and
plain reads, each on a pooled connection whose failures the calling service's translator names."""

from __future__ import annotations

from typing import Any

from aimon_mongo._async.postgres.pool import AsyncPgPool
from aimon_mongo.postgres.fencing import HIGHEST
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.services.fencing import Stale


class AsyncFencedStatements:
    """Runs the statement templates one store was built with (``templates``), qualified for ``schema``."""

    def __init__(self, pool: AsyncPgPool, schema: str, *templates: str) -> None:
        self._pool = pool
        self.endpoint = pool.endpoint
        """``host:port`` of the server (a driver's ``repr`` names it)."""
        self._qualified = {template: qualify(template, schema) for template in (HIGHEST, *templates)}

    async def write(self, template: str, session_id: str, token: int, **params: Any) -> tuple[Any, ...] | Stale:
        """Run a fenced statement (built by :func:`~aimon_mongo.postgres.fencing.fenced`) as ``token``'s
        write to the session: its first row, or :class:`Stale` naming the token that won."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(self._qualified[template], {"sid": session_id, "token": token, **params})
            row = await cur.fetchone()
            if row is not None:
                return tuple(row)
            cur = await conn.execute(self._qualified[HIGHEST], [session_id])
            found = await cur.fetchone()
        return Stale(found[0] if found else None)

    async def one(self, template: str, *params: Any) -> tuple[Any, ...] | None:
        """The first row of a read, or ``None``."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(self._qualified[template], params or None)
            row = await cur.fetchone()
        return None if row is None else tuple(row)

    async def all(self, template: str, *params: Any) -> list[tuple[Any, ...]]:
        """Every row of a read."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(self._qualified[template], params or None)
            return [tuple(row) for row in await cur.fetchall()]
