"""Shared state of one ``aimon-mongo`` invocation: connection settings, lazily opened clients, output."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from aimon_mongo import names
from aimon_mongo.cli._errors import CommandFailed
from aimon_mongo.connection import DEFAULT_URI
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.mongo.clients import mongo_client, uri_hosts

if TYPE_CHECKING:  # PyMongo is imported on first use: ``--help`` and ``--version`` never load it
    from pymongo import MongoClient
    from pymongo.synchronous.database import Database

    from aimon_mongo._sync.ports import SessionBackends
    from aimon_mongo.inspect import Inspector
    from aimon_mongo.vfs import GridFSFileSystem

__all__ = ["DEFAULT_URI", "CliContext", "of"]

CLI_NODE_ID = "aimon-mongo-cli"
"""The node id the command's session stores run under (it never publishes or holds a lease)."""


@dataclass
class CliContext:
    """Connection settings from the global options; clients open on first use and close at exit.

    ``uri_configured`` is false when none of ``--uri``, ``AIMON_MONGODB_URI``, ``MONGODB_URI`` was given
    (``uri`` is then the default, and the demo starts the local stand-in); ``uri_source`` names which one
    was used. Read-only commands ask :meth:`filesystem` / :meth:`backends` with ``existing=True`` (the
    default): a database or bucket that does not exist is then reported, never created.
    """

    uri: str = DEFAULT_URI
    vfs_db: str = names.DEFAULT_VFS_DATABASE
    session_db: str = names.DEFAULT_SESSION_DATABASE
    bucket: str = names.DEFAULT_GRIDFS_BUCKET
    timeout_ms: int = 5000
    uri_configured: bool = True
    uri_source: str | None = None
    pg_schema: str = names.PG_DEFAULT_SCHEMA
    redis_root: str | None = None
    console: Console = field(default_factory=lambda: make_console())
    err: Console = field(default_factory=lambda: make_console(stderr=True))
    _client: MongoClient[dict[str, Any]] | None = None
    _fs: GridFSFileSystem | None = None
    _backends: Any = None
    _inspector: Inspector | None = None

    @property
    def backend(self) -> str:
        """The backend ``uri`` names: ``mongo`` (also for a bare ``host:port`` list), ``redis``, ``postgres``
        or ``memory`` (:func:`aimon_mongo.opening.backend_of`); an unknown scheme is :class:`CommandFailed`."""
        if "://" not in self.uri:
            return "mongo"
        from aimon_mongo.opening import backend_of

        try:
            return backend_of(self.uri)
        except InvalidArgumentError as exc:
            raise CommandFailed(str(exc)) from None

    def require_mongo(self) -> None:
        """:class:`CommandFailed` (one line) unless ``uri`` names MongoDB: for the commands that are MongoDB's
        alone (the GridFS filesystem, snapshots in it, sharding, LangGraph checkpoints)."""
        backend = self.backend
        if backend != "mongo":
            shown = {"redis": "Redis", "postgres": "PostgreSQL", "memory": "in-memory"}[backend]
            raise CommandFailed(
                f"this command works on MongoDB only (the GridFS filesystem, snapshots, sharding, LangGraph "
                f"checkpoints), and --uri names a {shown} deployment ({self.uri.partition('://')[0]}://); the session "
                "commands (inbox, quarantine, leases, tasks, console, init-db) work on every backend"
            )

    @property
    def client(self) -> MongoClient[dict[str, Any]]:
        self.require_mongo()
        if self._client is None:
            try:
                # PyMongo warns about an option value it cannot use (tls=maybe) and ignores the option:
                # for a command that is a mistake to report, not a warning to print and carry on.
                self._client = mongo_client(self.uri, timeout_ms=self.timeout_ms, strict_options=True)
            except InvalidArgumentError as exc:
                raise CommandFailed(str(exc)) from None
        return self._client

    @property
    def session_database(self) -> Database[dict[str, Any]]:
        """The database of the session stores (``--session-db``)."""
        return self.client[self.session_db]

    def require_database(self, name: str, option: str) -> set[str]:
        """The collection names of database ``name``; :class:`CommandFailed` when it has none (MongoDB
        then has no such database: a read must not create it). ``option`` is the flag that picks it."""
        found = set(self.client[name].list_collection_names())
        if not found:
            raise CommandFailed(
                f"database {name!r} does not exist at {self.hosts()} (nothing is stored in it; {option} picks "
                "the database to read)"
            )
        return found

    def filesystem(self, existing: bool = True) -> GridFSFileSystem:
        """The GridFS filesystem of ``--db`` / ``--bucket``, initialized; closed with the context.

        ``existing``: the database and the bucket must exist already (:class:`CommandFailed` otherwise, and
        nothing is created); commands that write pass ``False``.
        """
        from aimon_mongo.vfs import GridFSFileSystem

        if self._fs is None:
            if existing:
                found = self.require_database(self.vfs_db, "--db")
                if f"{self.bucket}.files" not in found:
                    raise CommandFailed(
                        f"database {self.vfs_db!r} holds no files: it has no GridFS bucket {self.bucket!r} "
                        "(--bucket picks another)"
                    )
            fs = GridFSFileSystem(self.client, self.vfs_db, self.bucket)
            fs.initialize()
            self._fs = fs
        return self._fs

    def backends(self, existing: bool = True) -> SessionBackends:
        """The session stores of the deployment ``uri`` names, closed with the context: MongoDB on
        ``--session-db``, PostgreSQL in ``--pg-schema``, Redis under ``--redis-root`` (opened with
        :func:`aimon_mongo.open_backends`). ``existing``: the database (PostgreSQL: the schema) must exist
        (:class:`CommandFailed` otherwise, and nothing is created); ``init-db`` passes ``False``."""
        if self._backends is None:
            backend = self.backend
            if backend == "memory":
                raise CommandFailed(
                    "memory:// holds nothing outside the process that made it: point --uri at MongoDB, Redis "
                    "or PostgreSQL"
                )
            if backend == "mongo":
                from aimon_mongo.mongo import MongoSessionBackends

                if existing:
                    self.require_database(self.session_db, "--session-db")
                self._backends = MongoSessionBackends(self.session_database, CLI_NODE_ID)
            else:
                self._backends = self._open_other(backend, existing)
        return self._backends  # type: ignore[no-any-return]

    def _open_other(self, backend: str, existing: bool) -> SessionBackends:
        from aimon_mongo.opening import open_backends

        options: dict[str, Any] = {}
        try:
            if backend == "postgres":
                options = {"schema": self.pg_schema, "timeout": self.timeout_ms / 1000, "replication_guard": "off"}
            elif self.redis_root is not None:
                from aimon_mongo.redis import RedisKeyPrefixes

                options = {"key_prefixes": RedisKeyPrefixes().under(self.redis_root)}
            bundle: Any = open_backends(self.uri, node_id=CLI_NODE_ID, **options)
        except InvalidArgumentError as exc:
            raise CommandFailed(str(exc)) from None
        if backend == "postgres" and existing:
            from aimon_mongo.inspect.postgres import schema_exists

            try:
                if not schema_exists(bundle):
                    raise CommandFailed(
                        f"schema {self.pg_schema!r} does not exist at {bundle.endpoint} (nothing is stored in it; "
                        "'init-db' creates it, --pg-schema picks another)"
                    )
            except BaseException:
                bundle.close()
                raise
        return bundle  # type: ignore[no-any-return]

    def inspector(self) -> Inspector:
        """The read-only views (:mod:`aimon_mongo.inspect`) over :meth:`backends`."""
        if self._inspector is None:
            from aimon_mongo.inspect import inspector_for

            self._inspector = inspector_for(self.backends())
        return self._inspector

    def hosts(self) -> str:
        """``host:port`` list of the configured URI (credentials never shown)."""
        return uri_hosts(self.uri)

    def close(self) -> None:
        """Close what this invocation opened (the stores, then the client)."""
        self._inspector = None
        if self._backends is not None:
            self._backends.close()
            self._backends = None
        if self._fs is not None:
            self._fs.close()
            self._fs = None
        if self._client is not None:
            self._client.close()
            self._client = None

    def emit_json(self, value: Any) -> None:
        """Machine output: one JSON document on stdout."""
        sys.stdout.write(json.dumps(value, indent=2, default=_json_default, ensure_ascii=False) + "\n")
        sys.stdout.flush()


PIPE_WIDTH = 160
"""Width of tables written to a pipe or file (a terminal's own width is used on a terminal)."""


def make_console(stderr: bool = False) -> Console:
    """A console for stdout (or stderr): the terminal's width, or :data:`PIPE_WIDTH` when not a terminal
    and ``COLUMNS`` is unset, so piped tables do not wrap at 80 columns."""
    console = Console(stderr=stderr)
    if console.is_terminal or os.environ.get("COLUMNS"):
        return console
    return Console(stderr=stderr, width=PIPE_WIDTH)


current: CliContext | None = None
"""The context of the running invocation (set by the global options callback)."""


def of(ctx: typer.Context) -> CliContext:
    """The :class:`CliContext` of a command (the root callback stores it on the click context)."""
    found = ctx.find_root().obj
    if not isinstance(found, CliContext):  # only when a command runs without the root callback
        raise RuntimeError("aimon-mongo command invoked without its global options")
    return found


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):  # one form in every --json, pydantic's: UTC with a Z
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return aware.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return str(value)
