"""``aimon-mongo sweep``: batched retention on a PostgreSQL session schema (the one backend with sweeps).

It runs :meth:`aimon_mongo.postgres.PostgresSessionBackends.sweep` against ``--postgres`` (else
``AIMON_POSTGRES_DSN``) and ``--schema``, then prints how many rows it removed from each table. MongoDB
and Redis need no such command: their signals, idempotency entries and lapsed leases expire by
themselves (capped collection and TTL indexes; key expiry).
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Annotated, Any

import typer

from aimon_mongo import names
from aimon_mongo.cli import _context
from aimon_mongo.cli._errors import CommandFailed
from aimon_mongo.cli._output import JsonFlag, cell, table
from aimon_mongo.errors import BackendRefused, BackendUnavailable, InvalidArgumentError

DSN_ENV = "AIMON_POSTGRES_DSN"
"""Where ``sweep`` finds the PostgreSQL connection string when ``--postgres`` is not given."""

TABLES = (
    ("signals", "conversation_signal", "rows older than --signals-older-than"),
    ("idempotency", "idempotency_entry", "rows past expires_at"),
    ("lapsed_locks", "conversation_lock", "leases lapsed longer than --locks-lapsed-for"),
    ("lock_fences", "conversation_lock_fence", "token counters of sessions with nothing left"),
    ("session_fences", "session_fence", "record/segment fences of those sessions"),
)


def register(app: typer.Typer) -> None:
    @app.command("sweep")
    def sweep(
        ctx: typer.Context,
        postgres: Annotated[
            str | None,
            typer.Option("--postgres", help=f"PostgreSQL connection string [default: ${DSN_ENV}].", show_default=False),
        ] = None,
        schema: Annotated[str, typer.Option("--schema", help="Session schema.")] = names.PG_DEFAULT_SCHEMA,
        batch_size: Annotated[
            int | None,
            typer.Option(
                "--batch-size", min=1, help="Rows per DELETE (own transaction) [default: 1000].", show_default=False
            ),
        ] = None,
        signals_older_than: Annotated[
            int | None,
            typer.Option(
                "--signals-older-than",
                min=1,
                help="Keep signal rows this many seconds [default: 3600].",
                show_default=False,
            ),
        ] = None,
        locks_lapsed_for: Annotated[
            int | None,
            typer.Option(
                "--locks-lapsed-for",
                min=1,
                help="Keep lapsed lock rows this many seconds [default: 3600].",
                show_default=False,
            ),
        ] = None,
        fences: Annotated[
            bool,
            typer.Option("--fences/--no-fences", help="Also delete the fence rows of sessions with nothing left."),
        ] = True,
        replication_guard: Annotated[
            str | None,
            typer.Option(
                "--replication-guard",
                metavar="require|warn|off",
                help=(
                    "What a server without a connected synchronous standby gets: refused (require), one warning "
                    "(warn), or nothing (off, for a cron job on a single server) [default: warn]."
                ),
                show_default=False,
            ),
        ] = None,
        as_json: JsonFlag = False,
    ) -> None:
        """Delete what PostgreSQL keeps until swept, in batches: old signals, expired idempotency rows,
        long-lapsed locks and the fence rows of sessions with nothing left (tokens never go backwards)."""
        cli = _context.of(ctx)
        dsn = postgres or os.environ.get(DSN_ENV)
        if not dsn:
            raise CommandFailed(f"sweep needs a PostgreSQL connection string: pass --postgres DSN or set {DSN_ENV}")
        try:  # imported here: the other commands work without the postgres extra
            from aimon_mongo.postgres import PostgresSessionBackends
            from aimon_mongo.postgres.replication import require_guard
        except ModuleNotFoundError as exc:
            raise CommandFailed("sweep needs the postgres extra: pip install 'aimon-mongo[postgres]'") from exc
        if replication_guard is not None:
            try:
                require_guard(replication_guard)
            except InvalidArgumentError as exc:
                raise typer.BadParameter(str(exc), param_hint="--replication-guard") from None
        given = {
            "batch_size": batch_size,
            "signals_older_than": signals_older_than,
            "locks_lapsed_for": locks_lapsed_for,
        }
        options: dict[str, Any] = {  # what is not given keeps the library's default
            name: value if name == "batch_size" else timedelta(seconds=value)
            for name, value in given.items()
            if value is not None
        }
        try:
            timeout = cli.timeout_ms / 1000
            guard: dict[str, Any] = {} if replication_guard is None else {"replication_guard": replication_guard}
            with PostgresSessionBackends(dsn, "aimon-mongo-sweep", schema=schema, timeout=timeout, **guard) as node:
                report = node.sweep(fences=fences, **options)
        except BackendRefused as exc:  # reached, and refused: a missing database, a failed login
            raise CommandFailed(f"{exc} (--postgres / {DSN_ENV} names the database and the role)") from exc
        except BackendUnavailable as exc:
            raise CommandFailed(f"{exc} (start the server or pass --postgres / set {DSN_ENV})") from exc
        counts = {field: getattr(report, field) for field, _, _ in TABLES}
        if as_json:
            cli.emit_json({"schema": schema, "removed": counts, "total": report.total})
            return
        listing = table("table", "removed", "what", title=f"schema {schema}: swept", right=("removed",))
        for field, name, what in TABLES:
            listing.add_row(cell(name, "bold"), cell(f"{counts[field]:,}"), cell(what))
        cli.console.print(listing)
