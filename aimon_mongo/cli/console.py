"""``aimon-mongo console``: the operator's web console (extra ``console``; see ``docs/console.md``)."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from aimon_mongo.cli import _context
from aimon_mongo.cli._errors import CommandFailed
from aimon_mongo.cli._options import not_blank


def _bind(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise typer.BadParameter(f"--bind takes HOST:PORT, got {value!r}")
    return host, int(port)


def console(
    ctx: typer.Context,
    uri: Annotated[
        str | None,
        typer.Option(
            "--uri",
            help="Connection string: mongodb://, redis://, postgresql:// (overrides the global --uri).",
            callback=not_blank,
        ),
    ] = None,
    bind: Annotated[str, typer.Option("--bind", help="HOST:PORT to listen on.")] = "127.0.0.1:8008",
    allow_writes: Annotated[
        bool, typer.Option("--allow-writes", help="Offer quarantine replay and delete (read-only otherwise).")
    ] = False,
    token: Annotated[
        str | None,
        typer.Option("--token", help="Access token required on every request [default: $AIMON_CONSOLE_TOKEN]."),
    ] = None,
    snapshot_dir: Annotated[str, typer.Option("--base-dir", help="Directory of the snapshot store.")] = "task-snapshot",
) -> None:
    """Serve the web console: sessions, quarantine, snapshots, files, tasks, signals (read-only by default)."""
    try:
        from aimon_mongo.console import (
            TOKEN_ENV,
            ConsoleBindError,
            ConsoleConfigError,
            ConsoleData,
            ConsoleSettings,
            listen,
            serve,
        )
    except ImportError as exc:
        raise CommandFailed(
            f"the console needs the 'console' extra (pip install 'aimon-mongo[console]'): {exc}"
        ) from None
    host, port = _bind(bind)
    settings = ConsoleSettings(
        bind_host=host, bind_port=port, allow_writes=allow_writes, token=token or os.environ.get(TOKEN_ENV) or None
    )
    try:
        settings.check()
    except ConsoleConfigError as exc:
        raise typer.BadParameter(str(exc)) from None
    try:
        sock = listen(settings)
    except ConsoleBindError as exc:
        raise CommandFailed(str(exc)) from None
    cli = _context.of(ctx)
    if uri:
        cli.uri = uri
    if cli.backend == "memory":
        raise CommandFailed("memory:// holds nothing outside the process that made it: the console cannot read it")
    data = ConsoleData(
        uri=cli.uri,
        pg_schema=cli.pg_schema,
        redis_root=cli.redis_root,
        session_db=cli.session_db,
        vfs_db=cli.vfs_db,
        bucket=cli.bucket,
        snapshot_dir=snapshot_dir.strip("/") or snapshot_dir,
        timeout_ms=cli.timeout_ms,
    )
    cli.err.print(f"aimon-mongo console on http://{host}:{port}/ ({'writes allowed' if allow_writes else 'read-only'})")
    serve(data, settings, sock)


def register(app: typer.Typer) -> None:
    app.command("console")(console)
