"""``aimon-mongo demo``: the end-to-end scenario of :mod:`aimon_mongo.demo` on a stand-in or a deployment."""

from __future__ import annotations

from typing import Annotated

import typer

from aimon_mongo.cli import _context
from aimon_mongo.cli._output import JsonFlag


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo(
        ctx: typer.Context,
        uri: Annotated[
            str | None,
            typer.Option(
                "--uri", help="Run against this deployment (else AIMON_MONGODB_URI, MONGODB_URI, or a stand-in)."
            ),
        ] = None,
        drop: Annotated[bool, typer.Option("--drop", help="Drop the demo's database at the end.")] = False,
        as_json: JsonFlag = False,
    ) -> None:
        """Two nodes share a conversation: inbox, lease and fencing, files, snapshot, signals."""
        from aimon_mongo.demo import run_demo

        cli = _context.of(ctx)
        target = uri or (cli.uri if cli.uri_configured else None)
        if target is not None:
            cli.uri = target  # a connection failure then names the host the demo tried
        summary = run_demo(target, as_json=as_json, drop=drop, console=cli.console, timeout_ms=cli.timeout_ms)
        if as_json:
            cli.emit_json(summary)
