"""Registers every command group on the ``aimon-mongo`` app."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    from aimon_mongo.cli import schema

    schema.register(app)
