"""The ``aimon-mongo`` command (also ``python -m aimon_mongo``).

Exit codes: 0 success, 1 the operation failed (one clear line on stderr, never a traceback), 2 usage,
3 the ``cli`` extra is not installed (said by the entry point, :mod:`aimon_mongo.cli_entry`), 130 interrupted
(Ctrl-C). Connection: ``--uri``, else ``AIMON_MONGODB_URI``, else ``MONGODB_URI``, else
``mongodb://localhost:27017`` (:mod:`aimon_mongo.connection`); ``--db`` and ``--bucket`` pick the
filesystem's database and GridFS bucket, ``--session-db`` the session-state database. ``--uri`` may also
name Redis (``redis://``, ``rediss://``; ``--redis-root`` moves every key prefix under a root) or
PostgreSQL (``postgresql://``, ``postgres://``; ``--pg-schema`` picks the schema): the session commands
(inbox, quarantine, leases, tasks, console, init-db) work there too; the MongoDB-only ones say so.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

import aimon_mongo
from aimon_mongo import names
from aimon_mongo.cli import _context
from aimon_mongo.cli._context import CliContext
from aimon_mongo.cli._errors import GuardedGroup, run_guarded
from aimon_mongo.cli._logging import log_to_stderr
from aimon_mongo.cli._options import not_blank
from aimon_mongo.connection import DEFAULT_URI, GENERIC_URI_ENV, URI_ENV, resolve_mongodb_uri, uri_source

app = typer.Typer(
    name="aimon-mongo",
    cls=GuardedGroup,
    help="Browse and operate what AI-agent sessions stored: files, transcripts, inboxes, leases, tasks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: flags without a type column, docstrings shown as written
)


def _print_version(value: bool) -> None:
    if value:
        print(f"aimon-mongo {aimon_mongo.__version__}")
        raise typer.Exit()


@app.callback()
def _global_options(
    ctx: typer.Context,
    uri: str = typer.Option(
        None,
        "--uri",
        help=(
            "Connection string: mongodb://, redis://, postgresql:// "
            f"[default: ${URI_ENV}, else ${GENERIC_URI_ENV}, else {DEFAULT_URI}]"
        ),
        show_default=False,
        callback=not_blank,
    ),
    db: str = typer.Option(names.DEFAULT_VFS_DATABASE, "--db", help="Database of the virtual filesystem."),
    bucket: str = typer.Option(names.DEFAULT_GRIDFS_BUCKET, "--bucket", help="GridFS bucket of the filesystem."),
    session_db: str = typer.Option(
        names.DEFAULT_SESSION_DATABASE, "--session-db", help="Database of the session state."
    ),
    pg_schema: str = typer.Option(
        names.PG_DEFAULT_SCHEMA, "--pg-schema", help="PostgreSQL schema of the session state (postgresql:// URIs)."
    ),
    redis_root: str = typer.Option(
        None, "--redis-root", help="Root every Redis key prefix is moved under (redis:// URIs; default: none)."
    ),
    timeout_ms: int = typer.Option(
        5000, "--timeout-ms", min=1, help="How long to wait for a server to answer, in milliseconds."
    ),
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    configured = resolve_mongodb_uri(uri)
    context = CliContext(
        uri=configured or DEFAULT_URI,
        vfs_db=db,
        bucket=bucket,
        session_db=session_db,
        timeout_ms=timeout_ms,
        uri_configured=configured is not None,
        uri_source=uri_source(uri),
        pg_schema=pg_schema,
        redis_root=redis_root or None,
    )
    ctx.obj = context
    _context.current = context
    ctx.call_on_close(context.close)


_registered = False


def get_app() -> typer.Typer:
    """The ``aimon-mongo`` app with every command group registered (what tests hand to Typer's runner)."""
    global _registered
    if not _registered:
        from aimon_mongo.cli import commands

        commands.register(app)
        _registered = True
    return app


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    log_to_stderr()
    # The app alone: its group registers the commands when one is looked up or listed (GuardedGroup).
    return run_guarded(app, list(sys.argv[1:] if argv is None else argv))
