"""``aimon-mongo leases ...`` and ``aimon-mongo tasks ...``: who holds a session, background tasks.

A lease's state is decided on the server's clock, like the lease store decides it: ``held`` (a holder
and an expiry in the future), ``expired`` (a holder whose lease ran out), ``released`` (no holder). The
fencing token is shown in every state: it only ever grows.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from aimon_mongo.cli import _context
from aimon_mongo.cli._output import JsonFlag, cell, print_table, table, when
from aimon_mongo.inspect import LeaseState
from aimon_mongo.model import BackgroundTask, TaskQuery, TaskState

leases_app = typer.Typer(help="Session leases: holder, fencing token, expiry (server time).")
tasks_app = typer.Typer(help="Background sub-agent task records.")

STATE_STYLES = {"held": "bold green", "expired": "yellow", "released": "dim", "none": "dim"}


def lease_rows(ctx: typer.Context, session_id: str | None) -> list[LeaseState]:
    """The lease records (one session's, or all), each with its state on the server's clock."""
    return _context.of(ctx).inspector().lease_states(None if session_id is None else [session_id])


def _print_leases(cli: _context.CliContext, rows: list[LeaseState]) -> None:
    listing = table("session", "state", "holder", "token", "acquired", "expires", right=("token",))
    for row in rows:
        listing.add_row(
            cell(row["session_id"], "bold"),
            cell(row["state"], STATE_STYLES[row["state"]]),
            cell(row["holder_id"]),
            cell(row["fencing_token"]),
            cell(when(row["acquired_at"])),
            cell(when(row["expires_at"])),
        )
    print_table(cli.console, listing, "no lease records")


@leases_app.command("show")
def show(
    ctx: typer.Context,
    session_id: Annotated[str, typer.Argument(help="Session (conversation) id.")],
    as_json: JsonFlag = False,
) -> None:
    """The lease of one session: state, holder, fencing token, expiry."""
    cli = _context.of(ctx)
    rows = lease_rows(ctx, session_id)
    row: LeaseState | dict[str, Any] = (
        rows[0]
        if rows
        else {
            "session_id": session_id,
            "state": "none",
            "holder_id": None,
            "fencing_token": None,
            "acquired_at": None,
            "expires_at": None,
        }
    )
    if as_json:
        cli.emit_json(row)
    elif not rows:
        cli.console.print(cell(f"session {session_id} has never been leased", "dim"), soft_wrap=True)
    else:
        _print_leases(cli, rows)


@leases_app.command("list")
def list_leases(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Every session that has a lease record."""
    cli = _context.of(ctx)
    rows = lease_rows(ctx, None)
    if as_json:
        cli.emit_json(rows)
    else:
        _print_leases(cli, rows)


def _task_json(task: BackgroundTask) -> dict[str, Any]:
    return task.model_dump(mode="json")


@tasks_app.command("list")
def list_tasks(
    ctx: typer.Context,
    state: Annotated[TaskState | None, typer.Option("--state", case_sensitive=False, help="Only this state.")] = None,
    context: Annotated[
        str | None, typer.Option("--context", help="Only tasks of this agent runtime id (stored as contextId).")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Background tasks, filtered by state and/or context."""
    cli = _context.of(ctx)
    tasks = cli.backends().tasks.list(TaskQuery(state=state, agent_runtime_id=context))
    if as_json:
        cli.emit_json([_task_json(task) for task in tasks])
        return
    listing = table("task id", "subagent", "state", "context", "owner", "started", "ended")
    for task in tasks:
        owner = f"{task.owner.type.value}:{task.owner.id}" if task.owner is not None else ""
        listing.add_row(
            cell(task.task_id, "bold"),
            cell(task.subagent_name),
            cell(task.state.value, "green" if task.state is TaskState.COMPLETED else None),
            cell(task.agent_runtime_id),
            cell(owner),
            cell(when(task.start_time)),
            cell(when(task.end_time)),
        )
    print_table(cli.console, listing, "no matching tasks")


def register(app: typer.Typer) -> None:
    app.add_typer(leases_app, name="leases")
    app.add_typer(tasks_app, name="tasks")
