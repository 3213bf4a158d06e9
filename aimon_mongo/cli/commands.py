"""Registers every command group on the ``aimon-mongo`` app (one module per group).

``schema`` and ``standin`` hand their arguments to command lines of their own (the schema gate's and the
stand-in's, also ``python -m aimon_mongo.schema_gate`` / ``python -m aimon_mongo.standin``).
"""

from __future__ import annotations

import importlib

import typer


def register(app: typer.Typer) -> None:
    from aimon_mongo.cli import console, demo, inbox, initdb, langgraph, sessions, shard, snapshots, sweep, vfs

    demo.register(app)
    vfs.register(app)
    snapshots.register(app)
    inbox.register(app)
    sessions.register(app)
    initdb.register(app)
    shard.register(app)
    sweep.register(app)
    _delegate(
        app,
        "schema",
        "aimon_mongo.schema_gate.cli",
        "Persisted-schema gate: check | baseline | record | update | review | generate | finalize.",
    )
    langgraph.register(app)
    console.register(app)
    _delegate(
        app, "standin", "aimon_mongo.standin.cli", "Local MongoDB stand-in: serve [--port P] [--data DIR] | setup."
    )


def _delegate(app: typer.Typer, name: str, module: str, summary: str) -> None:
    """``aimon-mongo NAME ARGS...`` runs ``module.main(ARGS, prog="aimon-mongo NAME")`` (its own parser,
    help and exit status; its usage names the command as typed)."""

    def run(ctx: typer.Context) -> None:
        code = importlib.import_module(module).main(list(ctx.args), prog=f"aimon-mongo {name}")
        if code:
            raise typer.Exit(code)

    run.__doc__ = summary
    app.command(
        name,
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []},
        add_help_option=False,
    )(run)
