"""The ``aimon-mongo`` command (also ``python -m aimon_mongo``).

Exit codes: 0 success, 1 the operation failed (one clear line on stderr, never a traceback), 2 usage.
Connection: ``--uri`` or ``AIMON_MONGODB_URI`` (default ``mongodb://localhost:27017``); ``--db`` and
``--bucket`` pick the filesystem's database and GridFS bucket, ``--session-db`` the session-state database.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

from aimon_mongo import names
from aimon_mongo.cli import _context
from aimon_mongo.cli._context import CliContext, uri_from_env
from aimon_mongo.cli._errors import run_guarded

app = typer.Typer(
    name="aimon-mongo",
    help="Browse and operate what AI-agent sessions stored: files, transcripts, inboxes, leases, tasks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _global_options(
    ctx: typer.Context,
    uri: str = typer.Option(
        None, "--uri", envvar="AIMON_MONGODB_URI", help="MongoDB connection string.", show_default=False
    ),
    db: str = typer.Option(names.DEFAULT_VFS_DATABASE, "--db", help="Database of the virtual filesystem."),
    bucket: str = typer.Option(names.DEFAULT_GRIDFS_BUCKET, "--bucket", help="GridFS bucket of the filesystem."),
    session_db: str = typer.Option(
        names.DEFAULT_SESSION_DATABASE, "--session-db", help="Database of the session state."
    ),
    timeout_ms: int = typer.Option(5000, "--timeout-ms", help="Server selection timeout."),
) -> None:
    context = CliContext(
        uri=uri or uri_from_env(), vfs_db=db, bucket=bucket, session_db=session_db, timeout_ms=timeout_ms
    )
    ctx.obj = context
    _context.current = context
    ctx.call_on_close(context.close)


def _register() -> None:
    from aimon_mongo.cli import commands

    commands.register(app)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    _register()
    return run_guarded(app, list(sys.argv[1:] if argv is None else argv))
