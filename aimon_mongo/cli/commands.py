"""Registers every command group on the ``aimon-mongo`` app (one module per group)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    from aimon_mongo.cli import demo, inbox, initdb, langgraph, schema, sessions, snapshots, vfs

    demo.register(app)
    vfs.register(app)
    snapshots.register(app)
    inbox.register(app)
    sessions.register(app)
    initdb.register(app)
    schema.register(app)
    langgraph.register(app)
