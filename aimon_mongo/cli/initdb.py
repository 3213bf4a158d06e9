"""``aimon-mongo init-db``: create the session stores' collections and indexes (the Python bootstrap).

It runs :func:`aimon_mongo.mongo.ensure_schema` on ``--session-db`` — the same collections, capped sizes
and named indexes as ``db/mongodb/init.js`` (a test keeps the two equal) — then lists what the database
holds. ``--print-js`` prints the path of the operator script for ``mongosh``: the copy installed with the
package (``aimon_mongo/mongo/init.js``, kept byte-equal to ``db/mongodb/init.js`` by a test).

With ``--uri postgresql://…`` it applies the pending migrations to ``--pg-schema`` (creating the schema)
and lists the schema's tables; ``--print-sql`` prints the whole migration script for ``psql`` instead and
connects to nothing. Redis has nothing to create (it says so).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from aimon_mongo.cli import _context
from aimon_mongo.cli._errors import CommandFailed
from aimon_mongo.cli._output import JsonFlag, cell, table
from aimon_mongo.errors import InvalidArgumentError

INIT_JS = Path(__file__).resolve().parents[1] / "mongo" / "init.js"
"""The operator script as package data."""


def init_js_path() -> Path:
    """The installed ``init.js`` (the same bytes as the repository's ``db/mongodb/init.js``)."""
    if not INIT_JS.is_file():
        raise CommandFailed(f"{INIT_JS} is missing from this installation (reinstall aimon-mongo, or run init-db)")
    return INIT_JS


def schema_state(cli: _context.CliContext) -> list[dict[str, Any]]:
    """Each collection of the session schema with its named indexes, as the database reports them."""
    from aimon_mongo.mongo.schema import session_schema

    database = cli.session_database
    listed = {info["name"]: info.get("options", {}) for info in database.list_collections()}
    rows = []
    for spec in session_schema(cli.backends(existing=False).collection_names):  # type: ignore[attr-defined]
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
        print_sql: Annotated[
            bool,
            typer.Option("--print-sql", help="PostgreSQL: only print the schema's SQL script (for psql)."),
        ] = False,
        as_json: JsonFlag = False,
    ) -> None:
        """Create the session stores' collections and indexes on --session-db (idempotent); with a
        postgresql:// --uri, the tables in --pg-schema."""
        cli = _context.of(ctx)
        backend = cli.backend
        if print_sql and backend != "postgres":
            raise CommandFailed("--print-sql prints the PostgreSQL schema: pass --uri postgresql://…")
        if backend == "postgres":
            _init_postgres(cli, print_sql, as_json)
            return
        if backend == "redis":
            cli.backends(existing=False)  # the URL is checked
            if as_json:
                cli.emit_json({"backend": "redis", "created": []})
            else:
                cli.console.print(cell("Redis needs no schema: nothing to create"), soft_wrap=True)
            return
        if print_js:
            path = init_js_path()
            if as_json:
                cli.emit_json({"init_js": str(path)})
            else:
                print(path)
            return
        from aimon_mongo.mongo import MongoSessionBackends, ensure_schema

        bundle = cli.backends(existing=False)
        assert isinstance(bundle, MongoSessionBackends)
        ensure_schema(cli.session_database, bundle.collection_names)
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


def _init_postgres(cli: _context.CliContext, print_sql: bool, as_json: bool) -> None:
    """``init-db`` on PostgreSQL: apply the pending migrations to ``--pg-schema`` (or print the script)."""
    from aimon_mongo.postgres.migrations import migration_script, require_schema_name

    try:
        schema = require_schema_name(cli.pg_schema)
    except InvalidArgumentError as exc:
        raise CommandFailed(str(exc)) from None
    if print_sql:
        script = migration_script(schema)
        if as_json:
            cli.emit_json({"schema": schema, "sql": script})
        else:
            sys.stdout.write(script)
        return
    from aimon_mongo.inspect.postgres import schema_tables

    bundle = cli.backends(existing=False)
    applied = bundle.ensure_schema()  # type: ignore[attr-defined]
    tables = schema_tables(bundle)  # type: ignore[arg-type]
    if as_json:
        cli.emit_json({"schema": schema, "applied": applied, "tables": tables})
        return
    done = f"applied V{', V'.join(map(str, applied))}" if applied else "already current"
    listing = table("table", title=f"schema {schema}: {done}")
    for name in tables:
        listing.add_row(cell(name, "bold"))
    cli.console.print(listing)
