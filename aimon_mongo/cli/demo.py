"""``aimon-mongo demo``: the end-to-end scenario of :mod:`aimon_mongo.demo` on a stand-in or a deployment."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aimon_mongo.cli import _context
from aimon_mongo.cli._options import not_blank
from aimon_mongo.cli._output import JsonFlag, cell
from aimon_mongo.connection import URI_PRECEDENCE, resolve_mongodb_uri


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo(
        ctx: typer.Context,
        uri: Annotated[
            str | None,
            typer.Option(
                "--uri",
                help="Run against this deployment (else AIMON_MONGODB_URI, MONGODB_URI, or a stand-in).",
                callback=not_blank,
            ),
        ] = None,
        database: Annotated[
            str | None,
            typer.Option("--db", help="Database for everything the demo stores (default: a fresh aimon_demo_*)."),
        ] = None,
        session_database: Annotated[
            str | None, typer.Option("--session-db", help="Database of the session stores (default: as --db).")
        ] = None,
        data: Annotated[
            Path | None,
            typer.Option(
                "--data",
                file_okay=False,
                help="Keep the stand-in's data in this directory (aimon-mongo standin serve --data serves it again).",
            ),
        ] = None,
        drop: Annotated[bool, typer.Option("--drop", help="Drop the demo's database at the end.")] = False,
        as_json: JsonFlag = False,
    ) -> None:
        """Two nodes share a conversation: inbox, lease and fencing, files, snapshot, signals."""
        from aimon_mongo.demo import run_demo

        cli = _context.of(ctx)
        explicit = uri or (cli.uri if cli.uri_source == URI_PRECEDENCE[0] else None)
        target = resolve_mongodb_uri(explicit)
        if target is not None:
            cli.uri = target  # a connection failure then names the host the demo tried
        summary = run_demo(
            explicit,
            as_json=as_json,
            drop=drop,
            console=cli.console,
            timeout_ms=cli.timeout_ms,
            database=session_database or database,
            vfs_database=database or session_database,
            data=data,
        )
        if as_json:
            cli.emit_json(summary)

    @app.command("drop-demo")
    def drop_demo(
        ctx: typer.Context,
        databases: Annotated[
            list[str], typer.Argument(help="The demo's databases (its closing words name them), on --uri.")
        ],
    ) -> None:
        """Drop the databases of a demo run (refused, nothing dropped, for a database that holds no demo run)."""
        from aimon_mongo.demo import drop_demo as drop

        cli = _context.of(ctx)
        drop(cli.client, list(dict.fromkeys(databases)))  # DemoError: one error line, nothing dropped
        for name in dict.fromkeys(databases):
            cli.console.print(cell(f"dropped {name}"), soft_wrap=True)
