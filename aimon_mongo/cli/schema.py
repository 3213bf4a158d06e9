"""``aimon-mongo schema ...``: the persisted-schema gate (same as ``python -m aimon_mongo.schema_gate``)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command(
        "schema",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []},
        add_help_option=False,
    )
    def schema(ctx: typer.Context) -> None:
        """Persisted-schema gate: check | baseline | record | update | review | generate | finalize."""
        from aimon_mongo.schema_gate.cli import main

        code = main(list(ctx.args))
        if code:
            raise typer.Exit(code)
