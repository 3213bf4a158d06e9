"""The end-to-end demo: ``aimon-mongo demo``, ``python -m aimon_mongo.demo``, ``./dev demo``.

Where it runs: ``--uri``, else ``AIMON_MONGODB_URI``, else ``MONGODB_URI`` (:mod:`aimon_mongo.connection`);
with none of them it starts the local MongoDB stand-in (the same :class:`~aimon_mongo.standin.StandinServer`
the tests use) and stops it at the end — in memory, or with ``--data DIR`` in a SQLite file in DIR, which
``aimon-mongo standin serve --data DIR`` serves again afterwards. Every run uses a fresh database
(``aimon_demo_<random>``) unless ``--db`` / ``--session-db`` name one, so runs against a real deployment
never collide; what it stored is kept for browsing unless ``--drop`` is given. ``--json`` prints a machine
summary instead of the narrated run (see :mod:`aimon_mongo.demo.scenario` for the steps).
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pymongo import MongoClient
from rich.console import Console
from rich.rule import Rule

from aimon_mongo.connection import resolve_mongodb_uri, uri_source
from aimon_mongo.demo.scenario import DemoError, Narrator, drop_demo, previous_run, run_scenario
from aimon_mongo.mongo.clients import mongo_client, uri_hosts
from aimon_mongo.snapshots import SessionSnapshot
from aimon_mongo.standin import mongodb_or_standin
from aimon_mongo.standin.cli import DATA_FILE
from aimon_mongo.vfs import GridFSFileSystem

__all__ = ["DemoError", "drop_demo", "main", "run_demo"]

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


def run_demo(
    uri: str | None = None,
    *,
    as_json: bool = False,
    drop: bool = False,
    console: Console | None = None,
    timeout_ms: int = 20000,
    database: str | None = None,
    vfs_database: str | None = None,
    data: Path | None = None,
) -> dict[str, Any]:
    """Run the demo; returns the summary and prints the narration (or, with ``as_json``, nothing: the
    caller prints the summary).

    ``uri`` and the environment follow :func:`~aimon_mongo.connection.resolve_mongodb_uri`; with nothing
    configured a stand-in runs for the demo (in ``data``'s SQLite file when given). ``database`` holds
    the session stores and ``vfs_database`` the files (default: both in one fresh ``aimon_demo_<random>``).
    ``timeout_ms`` bounds server selection.
    """
    out = console or Console()
    say: Narrator = SilentNarrator() if as_json else RichNarrator(out)
    session_db = database or f"{DATABASE_PREFIX}{uuid.uuid4().hex[:10]}"
    files_db = vfs_database or session_db
    databases = list(dict.fromkeys((session_db, files_db)))
    configured = resolve_mongodb_uri(uri)
    if configured is None and not as_json:
        out.print(
            "[dim]no MongoDB configured (--uri, AIMON_MONGODB_URI, MONGODB_URI): starting the local stand-in "
            "(mongoeco) for this run (the first run also creates its environment, which takes a minute)...[/dim]"
        )
    if data is not None:
        data.mkdir(parents=True, exist_ok=True)
    with mongodb_or_standin(configured, data_file=None if data is None else data / DATA_FILE) as (target, server):
        if server is not None:
            where = "local stand-in (mongoeco), started for this run"
        else:
            where = f"MongoDB deployment (from {'--uri' if uri else uri_source()})"
        if not as_json:
            out.rule("[bold]aimon-mongo demo[/bold]")
            out.print(f"MongoDB: {where} at {uri_hosts(target)}", highlight=False)
            layout = f"[bold]{session_db}[/bold]" + (
                f" (session stores) and [bold]{files_db}[/bold] (files)" if files_db != session_db else ""
            )
            fresh = "fresh for this run; repeated runs never collide" if database is None else "named by you"
            out.print(f"database: {layout} ({fresh})", highlight=False)
        client: MongoClient[dict[str, Any]] = mongo_client(target, timeout_ms=timeout_ms)
        try:
            if previous_run(client, session_db):
                raise DemoError(
                    f"database {session_db!r} already holds a demo run (the lease of c-1); name another with "
                    "--db, or drop it first"
                )
            summary = run_scenario(client, session_db, say, files_db)
            if drop:
                drop_demo(client, databases)
        finally:
            client.close()
    summary = {
        "database": session_db,
        "vfs_database": files_db,
        "mongodb": {"standin": server is not None, "hosts": uri_hosts(target)},
        "dropped": drop,
        **summary,
        "ok": True,
    }
    if not as_json:
        _closing_words(out, session_db, files_db, server is not None, drop, data)
    return summary


def _closing_words(out: Console, session_db: str, files_db: str, standin: bool, drop: bool, data: Path | None) -> None:
    out.print()
    out.print(Rule(style="green"))
    databases = list(dict.fromkeys((session_db, files_db)))
    browse = (
        f"  aimon-mongo --db {files_db} vfs tree\n"
        f"  aimon-mongo --db {files_db} snapshots show c-1-turn-1\n"
        f"  aimon-mongo --session-db {session_db} leases show c-1"
    )
    if drop:
        named = " and ".join(databases)
        out.print(f"[green]done[/green]; database{'s' if len(databases) > 1 else ''} {named} dropped.", highlight=False)
    elif standin and data is None:
        out.print(
            "[green]done[/green]; the stand-in was stopped (its data went with it: --data DIR keeps it).",
            highlight=False,
        )
    elif standin:
        out.print(
            f"[green]done[/green]; the stand-in was stopped, its data stays in {data}. Browse it:\n"
            f"  aimon-mongo standin serve --data {data}     # in another terminal; prints the URI to export\n"
            f"{browse}",
            highlight=False,
        )
    else:
        out.print(
            f"[green]done[/green]; browse what the nodes stored (same URI):\n{browse}\n"
            f"  (drop {'them' if len(databases) > 1 else 'it'} afterwards, same URI: "
            f"aimon-mongo drop-demo {' '.join(databases)})",
            highlight=False,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m aimon_mongo.demo [--uri URI] [--db NAME] [--data DIR] [--json] [--drop]``: the
    ``aimon-mongo demo`` command."""
    from aimon_mongo.cli import main as cli_main

    return cli_main(["demo", *(sys.argv[1:] if argv is None else argv)])
