"""The LISTEN side of the PostgreSQL signal bus: one dedicated connection, stepped by the service's watcher.

It LISTENs on ``conversation_signal_doorbell`` (and on a private wake-up channel, so ``close()`` does not
wait for a poll to end), fetches new ``conversation_signal`` rows by id whenever a doorbell rings, and at
least every :data:`SELF_POLL_SECONDS` anyway (a lost NOTIFY only costs latency). When the connection
drops (``recover``) the next step reconnects and fetches everything after the last id it saw, so nothing
published meanwhile is missed and nothing is delivered twice. Late commits are recovered by
:class:`~aimon_mongo.postgres.signal_feed.SignalFeed`.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any

import psycopg
from psycopg import sql

from aimon_mongo import names as n
from aimon_mongo._async.postgres.pool import AsyncPgPool
from aimon_mongo._async_runtime import Event, monotonic
from aimon_mongo.errors import AimonStorageError, SignalBusError
from aimon_mongo.postgres.failures import translate
from aimon_mongo.postgres.signal_feed import (
    FETCH_LIMIT,
    POLL_SECONDS,
    RECONNECT_BACKOFF_SECONDS,
    SELF_POLL_SECONDS,
    SignalFeed,
)
from aimon_mongo.postgres.sqltext import qualify

log = logging.getLogger(__name__)

FetchedRow = tuple[int, str, str, str, str | None]
"""``(id, conversation_id, kind, origin_node_id, payload text or None when not for us)``."""
Deliver = Callable[[FetchedRow], Awaitable[None]]  # sync: Deliver = Callable[[FetchedRow], None]

_SEED = "SELECT COALESCE(MAX(id), 0) FROM {signal}"
# Rows of every session advance the position (so gaps can be told from other sessions' rows), but the
# payload is only read for subscribed sessions and other nodes' signals.
_COLUMNS = (
    "SELECT id, conversation_id, kind, origin_node_id, "
    "CASE WHEN conversation_id = ANY(%(sessions)s::text[]) AND origin_node_id <> %(node)s THEN payload::text END "
    "FROM {signal} "
)
_FETCH = _COLUMNS + f"WHERE id > %(last)s ORDER BY id LIMIT {FETCH_LIMIT}"
_FETCH_WITH_GAPS = _COLUMNS + f"WHERE id > %(last)s OR id = ANY(%(gaps)s::bigint[]) ORDER BY id LIMIT {FETCH_LIMIT}"
_WAKE_PREFIX = "aimon_wake_"


class AsyncSignalListener:
    """Feeds ``deliver`` with the rows other nodes publish, one by one, for the sessions ``sessions()``
    names (both given to :meth:`start`), one :meth:`step` at a time."""

    retry_backoff = RECONNECT_BACKOFF_SECONDS

    def __init__(
        self,
        pool: AsyncPgPool,
        schema: str,
        node_id: str,
        *,
        poll_seconds: float = POLL_SECONDS,
        self_poll_seconds: float = SELF_POLL_SECONDS,
    ) -> None:
        self._pool = pool
        self._node_id = node_id
        self._sessions: Callable[[], Sequence[str]] = list
        self._deliver: Deliver | None = None
        self._poll = poll_seconds
        self._self_poll = self_poll_seconds
        self._seed = qualify(_SEED, schema)
        self._fetch_new = qualify(_FETCH, schema)
        self._fetch_gaps = qualify(_FETCH_WITH_GAPS, schema)
        self._wake_channel = _WAKE_PREFIX + uuid.uuid4().hex
        self._feed: SignalFeed | None = None
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._fetch_due = True
        self._last_fetch = 0.0
        self.reconnects = 0
        """How often the LISTEN connection was re-established (for operators and tests)."""
        self.backend_pid: int | None = None
        """Server process id of the current LISTEN connection (``pg_stat_activity.pid``)."""

    async def start(self, deliver: Deliver, sessions: Callable[[], Sequence[str]]) -> None:
        """Connect, LISTEN and take the current last id as the starting point.

        Raises :class:`~aimon_mongo.errors.BackendUnavailable` when the first connection fails.
        """
        self._deliver = deliver
        self._sessions = sessions
        conn = await self._pool.dedicated(SignalBusError)
        try:
            await self._listen(conn)
            cur = await conn.execute(self._seed)
            row = await cur.fetchone()
            self._feed = SignalFeed(int(row[0]) if row else 0)
        except psycopg.Error as exc:
            await _close_quietly(conn)
            raise translate(exc, SignalBusError, self._pool.listen_endpoint) from exc
        self._conn = conn

    async def step(self, stopping: Event) -> None:
        """Reconnect if needed, fetch when due (a doorbell rang, the self-poll is due, after a reconnect),
        then wait up to ``poll_seconds`` for a doorbell (errors propagate)."""
        conn = self._conn
        if conn is None:
            conn = self._conn = await self._pool.dedicated(SignalBusError)
            await self._listen(conn)
            self.reconnects += 1
            self._fetch_due = True
            log.info("signal listener of node %s reconnected", self._node_id)
        if self._fetch_due or monotonic() - self._last_fetch >= self._self_poll:
            await self._fetch(conn)
            self._fetch_due, self._last_fetch = False, monotonic()
        if stopping.is_set():
            return
        async with aclosing(conn.notifies(timeout=self._poll, stop_after=1)) as doorbells:
            async for _ in doorbells:
                self._fetch_due = True

    async def recover(self, exc: Exception) -> str | None:
        """Drop the connection (the next step reconnects)."""
        conn, self._conn = self._conn, None
        await _close_quietly(conn)
        if isinstance(exc, psycopg.Error | AimonStorageError | OSError):
            return f"signal listener lost its connection ({type(exc).__name__})"
        return None

    async def wake(self) -> None:
        """Ring the private channel so a waiting step returns at once."""
        try:
            async with self._pool.connection(SignalBusError) as conn:
                await conn.execute("SELECT pg_notify(%s, '')", [self._wake_channel])
        except AimonStorageError:
            pass  # the step notices the stop after its current wait instead

    async def stop(self) -> None:
        """Close the connection. Idempotent."""
        conn, self._conn = self._conn, None
        await _close_quietly(conn)

    async def _listen(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.backend_pid = conn.info.backend_pid
        await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(n.PG_SIGNAL_DOORBELL_CHANNEL)))
        await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self._wake_channel)))

    async def _fetch(self, conn: psycopg.AsyncConnection[Any]) -> None:
        feed = self._feed
        assert feed is not None
        while True:
            gaps = feed.gaps(monotonic())
            params: dict[str, Any] = {"sessions": list(self._sessions()), "node": self._node_id, "last": feed.last_seen}
            if gaps:
                params["gaps"] = gaps
            cur = await conn.execute(self._fetch_gaps if gaps else self._fetch_new, params)
            rows: list[FetchedRow] = await cur.fetchall()
            if not rows:
                return
            feed.observe((row[0] for row in rows), monotonic())
            for row in rows:
                if row[4] is not None and self._deliver is not None:
                    await self._deliver(row)
            if len(rows) < FETCH_LIMIT:
                return


async def _close_quietly(conn: psycopg.AsyncConnection[Any] | None) -> None:
    if conn is None:
        return
    try:
        await conn.close()
    except (psycopg.Error, OSError):
        pass
