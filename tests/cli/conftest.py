"""CLI fixtures: the ``aimon-mongo`` app run by Typer's runner, or as a real process, against the stand-in.

``cli`` runs ``aimon-mongo --db <fresh> --session-db <fresh> ARGS`` in-process (the database is dropped
after the test); ``cli_process`` runs the same as ``python -m aimon_mongo`` in a subprocess. Both return
the exit code, stdout and stderr separately.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pymongo import MongoClient
from typer.testing import CliRunner

from aimon_mongo.cli import get_app
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("golden")


@pytest.fixture
def terminal_sigint() -> Iterator[None]:
    """Children started by the test get Ctrl-C as from a terminal. A test run started in the background
    (``cmd &``) has SIGINT ignored, and a child inherits that and never sees one; a handler set here is
    reset to the default in the child by exec (a ``preexec_fn`` would do it in the forked child, which the
    test process's PyMongo threads make unsafe)."""
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if ignored:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        assert self.code == 0, f"exit {self.code}: {self.stderr}"
        return json.loads(self.stdout)

    def failed_with_one_line(self) -> str:
        """Exit code 1 and exactly one ``aimon-mongo: error:`` line on stderr, no traceback; returns it."""
        assert self.code == 1, f"exit {self.code}; stdout={self.stdout!r} stderr={self.stderr!r}"
        lines = self.stderr.splitlines()
        assert len(lines) == 1, self.stderr
        assert lines[0].startswith("aimon-mongo: error: "), lines[0]
        assert "Traceback" not in self.stdout
        return lines[0]


Cli = Callable[..., Run]


def _env(mongo_uri: str) -> dict[str, str | None]:
    return {"AIMON_MONGODB_URI": mongo_uri, "MONGODB_URI": None, "COLUMNS": None, "NO_COLOR": "1"}


@pytest.fixture
def cli(mongo_uri: str, mongo_db_name: str) -> Cli:
    runner = CliRunner()
    app = get_app()

    def run(*args: str, database: bool = True, env: dict[str, str | None] | None = None) -> Run:
        scope = ["--db", mongo_db_name, "--session-db", mongo_db_name] if database else []
        result = runner.invoke(app, [*scope, *args], env={**_env(mongo_uri), **(env or {})})
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return Run(result.exit_code, result.stdout, result.stderr)

    return run


@pytest.fixture
def node(mongo_client: MongoClient[Any], mongo_db_name: str) -> Iterator[MongoSessionBackends]:
    """MongoDB session stores on the test database (the one the ``cli`` fixtures point at)."""
    db = mongo_client[mongo_db_name]
    ensure_schema(db)
    bundle = MongoSessionBackends(db, "node-test")
    yield bundle
    bundle.close()


@pytest.fixture
def cli_process(mongo_uri: str, mongo_db_name: str) -> Cli:
    def run(*args: str, database: bool = True, timeout: float = 120) -> Run:
        scope = ["--db", mongo_db_name, "--session-db", mongo_db_name] if database else []
        env = {k: v for k, v in os.environ.items() if k not in ("MONGODB_URI", "COLUMNS")}
        env.update(AIMON_MONGODB_URI=mongo_uri, NO_COLOR="1")
        done = subprocess.run(
            [sys.executable, "-m", "aimon_mongo", *scope, *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=timeout,
        )
        return Run(done.returncode, done.stdout, done.stderr)

    return run
