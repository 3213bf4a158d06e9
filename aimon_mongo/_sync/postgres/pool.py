# GENERATED from aimon_mongo/_async/postgres/pool.py by scripts/gen_sync.py; do not edit.
"""The connection pool of one PostgreSQL bundle (owned or borrowed), with failure translation."""

from __future__ import annotations

from collections.abc import Iterator, Awaitable, Callable
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from aimon_mongo._sync_runtime import Lock
from aimon_mongo.errors import AimonStorageError, BackendRefused, BackendUnavailable, InvalidArgumentError
from aimon_mongo.postgres.failures import endpoint, require_conninfo, translate, translated

Conn = psycopg.Connection[Any]
FirstUse = Callable[[Conn], None]

DEFAULT_MIN_SIZE = 1
DEFAULT_MAX_SIZE = 16
DEFAULT_TIMEOUT = 10.0
DIAGNOSTIC_CONNECT_TIMEOUT = 2
"""Seconds the one direct attempt that names why a pool did not open may take."""


class PgPool:
    """Connections for the stores of one bundle.

    Given a connection string, the pool is ours: created on first use (autocommit connections, so a
    single statement is a single round trip), closed by :meth:`close`. Given an
    :class:`ConnectionPool`, it is borrowed: used as it is and left open. Every psycopg failure
    leaving :meth:`connection` becomes :class:`BackendUnavailable` (naming ``host:port``) or the error
    family the caller names. ``first_use`` runs on the first connection handed out, before the caller's
    statements, until it returns once (the bundle's replication check).
    family the caller names.

    ``pooled=True`` is for a server reached through a transaction-mode pooler (PgBouncer): the
    connections the pool opens never prepare statements (psycopg's ``prepare_threshold=None``), since a
    prepared statement lives on one server connection and the pooler hands each transaction another.
    ``listen_dsn`` is where :meth:`dedicated` connects (default: the pool's own server); LISTEN must reach
    the server directly, because a pooler does not keep a session's LISTEN across transactions.
    """

    def __init__(
        self,
        source: str | ConnectionPool[Any],
        *,
        min_size: int = DEFAULT_MIN_SIZE,
        max_size: int = DEFAULT_MAX_SIZE,
        timeout: float = DEFAULT_TIMEOUT,
        application_name: str = "aimon-mongo",
        first_use: FirstUse | None = None,
        pooled: bool = False,
        listen_dsn: str | None = None,
    ) -> None:
        if not isinstance(pooled, bool):
            raise InvalidArgumentError(f"pooled must be a bool, got {type(pooled).__name__}")
        if listen_dsn is not None and (not isinstance(listen_dsn, str) or not listen_dsn.strip()):
            raise InvalidArgumentError(f"listen_dsn must be a non-empty connection string, got {listen_dsn!r}")
        self._timeout = timeout
        self._first_use = first_use
        self.pooled = pooled
        """Whether statements are never prepared (for a transaction-mode pooler)."""
        self._application_name = application_name
        self._min_size = min_size
        self._max_size = max_size
        self._lock = Lock()
        self._closed = False
        if isinstance(source, str):
            self._conninfo = require_conninfo(source, "source")
            self._kwargs: dict[str, Any] = {}
            self._pool: ConnectionPool[Any] | None = None
            self._owned = True
        elif isinstance(source, ConnectionPool) and isinstance(source.conninfo, str):
            self._conninfo = source.conninfo
            self._kwargs = dict(source.kwargs) if isinstance(source.kwargs, dict) else {}
            self._pool = source
            self._owned = False
        else:
            raise TypeError(
                f"expected a connection string or a psycopg_pool pool with a str conninfo, got {type(source).__name__}"
            )
        if pooled and not self._owned and self._kwargs.get("prepare_threshold", 5) is not None:
            raise InvalidArgumentError(
                "pooled=True with a borrowed pool needs that pool built with kwargs={'prepare_threshold': None}"
            )
        self.endpoint = endpoint(self._conninfo, self._kwargs)
        self._listen_conninfo = require_conninfo(listen_dsn, "listen_dsn") if listen_dsn is not None else self._conninfo
        self.listen_endpoint = endpoint(listen_dsn) if listen_dsn is not None else self.endpoint
        """``host:port`` the LISTEN connection goes to (as named in errors)."""

    @property
    def timeout(self) -> float:
        return self._timeout

    def _opened(self) -> ConnectionPool[Any]:
        with self._lock:
            if self._closed:
                raise BackendUnavailable(f"PostgreSQL pool for {self.endpoint} is closed")
            if self._pool is None:
                pool: ConnectionPool[Any] = ConnectionPool(
                    self._conninfo,
                    min_size=self._min_size,
                    max_size=self._max_size,
                    timeout=self._timeout,
                    kwargs={**self._connect_kwargs(), **({"prepare_threshold": None} if self.pooled else {})},
                    open=False,
                    name=f"aimon-postgres {self.endpoint}",
                )
                try:
                    pool.open(wait=True, timeout=self._timeout)
                except psycopg.Error as exc:
                    pool.close()
                    raise self._why_not_opened(exc) from exc
                self._pool = pool
            return self._pool

    def _why_not_opened(self, exc: psycopg.Error) -> AimonStorageError:
        """The error for a pool that did not open: the pool only says it timed out (each attempt's reason
        went to its WARNING log), so one direct connection attempt names the reason (refused, unknown host,
        authentication failed ...)."""
        if not isinstance(exc, PoolTimeout):
            return translate(exc, BackendUnavailable, self.endpoint)
        try:
            conn = psycopg.Connection.connect(
                self._conninfo, **self._connect_kwargs(connect_timeout=DIAGNOSTIC_CONNECT_TIMEOUT)
            )
        except psycopg.Error as direct:
            found = translate(direct, BackendUnavailable, self.endpoint)
            if isinstance(found, BackendRefused):  # reached and refused: waiting longer would not help
                return found
            return type(found)(f"{found} (no pooled connection within {self._timeout:g} s)")
        conn.close()  # reachable again: the pool's own timeout is the error
        return translate(exc, BackendUnavailable, self.endpoint)

    def _connect_kwargs(self, connect_timeout: int | None = None) -> dict[str, Any]:
        """psycopg's arguments for a connection this pool opens: a borrowed pool's own, then autocommit, the
        bundle's ``application_name`` and a connect timeout (``connect_timeout``, else the pool's timeout
        in whole seconds, at least 1) unless the borrowed pool set them."""
        kwargs: dict[str, Any] = {**self._kwargs, "autocommit": True}
        kwargs.setdefault("application_name", self._application_name)
        if connect_timeout is not None:
            kwargs["connect_timeout"] = connect_timeout
        kwargs.setdefault("connect_timeout", max(1, round(self._timeout)))
        return kwargs

    def failures(self, family: type[AimonStorageError], action: str) -> translated:
        """The translator a service wraps around a driver call (:mod:`aimon_mongo.services`): psycopg
        failures inside the block become ``family`` or :class:`BackendUnavailable` naming ``action``."""
        return translated(family, action, self.endpoint)

    @contextmanager
    def connection(
        self, family: type[AimonStorageError] | None = None
    ) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection; psycopg failures inside the block are translated for ``family``, or left to
        the caller's :meth:`failures` block when ``family`` is ``None`` (a driver under a service)."""
        pool = self._pool if self._pool is not None and not self._closed else self._opened()
        try:
            with pool.connection() as conn:
                if self._first_use is not None:
                    self._first_use(conn)  # until it returns once: a refusal refuses every use
                    self._first_use = None
                yield conn
        except psycopg.Error as exc:
            if family is None:
                raise
            raise translate(exc, family, self.endpoint) from exc

    def dedicated(self, family: type[AimonStorageError]) -> psycopg.Connection[Any]:
        """A new autocommit connection outside the pool (LISTEN state is bound to one connection), to
        ``listen_dsn`` when one was given. The first use (creating the schema) runs before, through the pool:
        a listener can be the first of a bundle's users (a signal subscription before any other call)."""
        if self._first_use is not None:
            with self.connection(family):
                pass
        try:
            return psycopg.Connection.connect(self._listen_conninfo, **self._connect_kwargs())
        except psycopg.Error as exc:
            raise translate(exc, family, self.listen_endpoint) from exc

    def close(self) -> None:
        """Close an owned pool (a borrowed one stays open). Idempotent."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None and self._owned:
            pool.close()
