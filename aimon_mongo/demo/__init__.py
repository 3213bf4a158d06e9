"""The end-to-end demo: ``aimon-mongo demo``, ``python -m aimon_mongo.demo``, ``./dev demo``.

Where it runs: ``--uri``, else ``AIMON_MONGODB_URI``, else ``MONGODB_URI``; with none of them it starts the
local MongoDB stand-in (the same :class:`~aimon_mongo.standin.StandinServer` the tests use) and stops it at
the end. Every run uses a fresh database (``aimon_demo_<random>``), so runs against a real deployment never
collide; that database is kept for browsing unless ``--drop`` is given. ``--json`` prints a machine
summary instead of the narrated run (see :mod:`aimon_mongo.demo.scenario` for the steps).
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Sequence
from typing import Any

from pymongo import MongoClient
from rich.console import Console
from rich.rule import Rule

from aimon_mongo.demo.scenario import DemoError, Narrator, run_scenario
from aimon_mongo.snapshots import SessionSnapshot
from aimon_mongo.standin import mongodb_or_standin
from aimon_mongo.vfs import GridFSFileSystem

__all__ = ["DemoError", "main", "run_demo"]

DATABASE_PREFIX = "aimon_demo_"


class RichNarrator:
    """Tells each step on a Rich console."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._count = 0

    def step(self, title: str) -> None:
        from aimon_mongo.cli._output import cell

        self._count += 1
        self.console.print()
        self.console.print(cell(f"{self._count}. {title}", "bold cyan"), soft_wrap=True)

    def detail(self, text: str, style: str = "") -> None:
        from aimon_mongo.cli._output import cell

        self.console.print(cell(f"   {text}", style), soft_wrap=True, highlight=False)

    def tree(self, fs: GridFSFileSystem, root: str) -> None:
        from aimon_mongo.cli._views import file_tree

        self.console.print(file_tree(fs, root))

    def transcript(self, task_id: str, subagent: str, context_id: str | None, snapshot: SessionSnapshot) -> None:
        from aimon_mongo.cli._views import print_transcript

        print_transcript(self.console, task_id, subagent, context_id, snapshot)


class SilentNarrator:
    """Tells nothing (``--json``: the summary is the output)."""

    def step(self, title: str) -> None:
        pass

    def detail(self, text: str, style: str = "") -> None:
        pass

    def tree(self, fs: GridFSFileSystem, root: str) -> None:
        pass

    def transcript(self, task_id: str, subagent: str, context_id: str | None, snapshot: SessionSnapshot) -> None:
        pass


def _hosts(uri: str) -> str:
    from pymongo.uri_parser import parse_uri

    return ", ".join(f"{host}:{port}" for host, port in parse_uri(uri)["nodelist"])


def run_demo(
    uri: str | None = None,
    *,
    as_json: bool = False,
    drop: bool = False,
    console: Console | None = None,
    timeout_ms: int = 20000,
) -> dict[str, Any]:
    """Run the demo (starting the stand-in when ``uri`` is ``None`` and ``MONGODB_URI`` is unset).

    ``timeout_ms`` bounds server selection. Returns the summary; prints the narration (or, with
    ``as_json``, nothing: the caller prints the summary).
    """
    out = console or Console()
    say: Narrator = SilentNarrator() if as_json else RichNarrator(out)
    database = f"{DATABASE_PREFIX}{uuid.uuid4().hex[:10]}"
    if uri is None and not as_json:
        out.print(
            "[dim]no MongoDB configured: starting the local stand-in (mongoeco) for this run "
            "(the first run also creates its environment, which takes a minute)...[/dim]"
        )
    with mongodb_or_standin(uri) as (target, server):
        where = "local stand-in (mongoeco), started for this run" if server is not None else "MongoDB deployment"
        if not as_json:
            out.rule("[bold]aimon-mongo demo[/bold]")
            out.print(f"MongoDB: {where} at {_hosts(target)}", highlight=False)
            out.print(
                f"database: [bold]{database}[/bold] (fresh for this run: session stores and the GridFS bucket "
                "'fs'; repeated runs never collide)",
                highlight=False,
            )
        client: MongoClient[dict[str, Any]] = MongoClient(target, tz_aware=True, serverSelectionTimeoutMS=timeout_ms)
        try:
            summary = run_scenario(client, database, say)
            if drop:
                client.drop_database(database)
        finally:
            client.close()
    summary = {
        "database": database,
        "mongodb": {"standin": server is not None, "hosts": _hosts(target)},
        "dropped": drop,
        **summary,
        "ok": True,
    }
    if not as_json:
        out.print()
        out.print(Rule(style="green"))
        if server is not None:
            out.print("[green]done[/green]; the stand-in was stopped (its data went with it).")
        elif drop:
            out.print(f"[green]done[/green]; database {database} was dropped.")
        else:
            out.print(
                f"[green]done[/green]; browse what the nodes stored:\n"
                f"  aimon-mongo --uri <your URI> --db {database} --session-db {database} vfs tree\n"
                f"  aimon-mongo --uri <your URI> --db {database} snapshots show c-1-turn-1\n"
                f"  (drop it afterwards: db.getSiblingDB('{database}').dropDatabase() in mongosh)",
                highlight=False,
            )
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m aimon_mongo.demo [--uri URI] [--json] [--drop]``: the ``aimon-mongo demo`` command."""
    from aimon_mongo.cli import main as cli_main

    return cli_main(["demo", *(sys.argv[1:] if argv is None else argv)])
