"""``aimon-mongo init-db``: create the session stores' collections and indexes (the Python bootstrap).

It runs :func:`aimon_mongo.mongo.ensure_schema` on ``--session-db`` — the same collections, capped sizes
and named indexes as ``db/mongodb/init.js`` (a test keeps the two equal) — then lists what the database
holds. ``--print-js`` prints the path of the operator script for ``mongosh``: the copy installed with the
package (``aimon_mongo/mongo/init.js``, kept byte-equal to ``db/mongodb/init.js`` by a test).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from aimon_mongo.cli import _context
from aimon_mongo.cli._errors import CommandFailed
from aimon_mongo.cli._output import JsonFlag, cell, table

INIT_JS = Path(__file__).resolve().parents[1] / "mongo" / "init.js"
"""The operator script as package data."""


def init_js_path() -> Path:
    """The installed ``init.js`` (the same bytes as the repository's ``db/mongodb/init.js``)."""
    if not INIT_JS.is_file():
        raise CommandFailed(f"{INIT_JS} is missing from this installation (reinstall aimon-mongo, or run init-db)")
    return INIT_JS


def schema_state(cli: _context.CliContext) -> list[dict[str, Any]]:
    """Each collection of the session schema with its named indexes, as the database reports them."""
    from aimon_mongo.mongo.schema import session_schema  # PyMongo: imported when a command runs

    database = cli.session_database
    listed = {info["name"]: info.get("options", {}) for info in database.list_collections()}
    rows = []
    for spec in session_schema(cli.backends(existing=False).collection_names):
        present = {index["name"] for index in database[spec.name].list_indexes()} if spec.name in listed else set()
        rows.append(
            {
                "collection": spec.name,
                "exists": spec.name in listed,
                "capped": bool(listed.get(spec.name, {}).get("capped")),
                "indexes": {index.name: index.name in present for index in spec.indexes},
            }
        )
    return rows


def register(app: typer.Typer) -> None:
    @app.command("init-db")
    def init_db(
        ctx: typer.Context,
        print_js: Annotated[
            bool, typer.Option("--print-js", help="Only print the path of the init.js operator script (for mongosh).")
        ] = False,
        as_json: JsonFlag = False,
    ) -> None:
        """Create the session stores' collections and indexes on --session-db (idempotent)."""
        cli = _context.of(ctx)
        if print_js:
            path = init_js_path()
            if as_json:
                cli.emit_json({"init_js": str(path)})
            else:
                print(path)
            return
        from aimon_mongo.mongo import ensure_schema

        ensure_schema(cli.session_database, cli.backends(existing=False).collection_names)
        rows = schema_state(cli)
        if as_json:
            cli.emit_json({"database": cli.session_db, "collections": rows})
            return
        listing = table("collection", "capped", "indexes", title=f"database {cli.session_db}: schema in place")
        for row in rows:
            listing.add_row(
                cell(row["collection"], "bold"),
                cell("yes" if row["capped"] else ""),
                cell(", ".join(row["indexes"]) or "-"),
            )
        cli.console.print(listing)
