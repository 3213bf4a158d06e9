"""Running fenced statements (see :mod:`aimon_mongo.postgres.fencing`) and refusing stale tokens."""

from __future__ import annotations

from typing import Any

from aimon_mongo.errors import AimonStorageError, StaleFencingTokenError
from aimon_mongo.postgres._async.pool import AsyncPgPool
from aimon_mongo.postgres.fencing import HIGHEST
from aimon_mongo.postgres.sqltext import qualify
from aimon_mongo.validate import require_id, require_token


class AsyncFencedWriter:
    """Runs the fenced statements of one store (failures reported in the store's error ``family``)."""

    def __init__(self, pool: AsyncPgPool, schema: str, family: type[AimonStorageError]) -> None:
        self._pool = pool
        self._family = family
        self._highest = qualify(HIGHEST, schema)

    async def write(self, statement: str, session_id: str, token: int, **params: Any) -> tuple[Any, ...]:
        """Run ``statement`` (built by :func:`~aimon_mongo.postgres.fencing.fenced`) as ``token``'s write to
        the session; its first row, or :class:`StaleFencingTokenError` naming the token that won."""
        require_id(session_id, "session_id")
        require_token(token)
        async with self._pool.connection(self._family) as conn:
            cur = await conn.execute(statement, {"sid": session_id, "token": token, **params})
            row = await cur.fetchone()
            if row is not None:
                return tuple(row)
            cur = await conn.execute(self._highest, [session_id])
            found = await cur.fetchone()
        raise StaleFencingTokenError(session_id, token, found[0] if found else None)
