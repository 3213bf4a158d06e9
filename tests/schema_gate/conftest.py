"""Fixtures of the schema-gate tests: a throw-away project whose declarations are a COPY of the real ones.

Each test gets ``tmp/decls`` (a copy of ``aimon_mongo/stored``, edited freely) and ``tmp/project`` (its
``schema/`` and ``docs/``), baselined and finalized as v1 like the live project. The gate runs through
its real command line (``main([...])`` with ``--json``).
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import aimon_mongo.stored
from aimon_mongo.schema_gate import main

STORED = Path(aimon_mongo.stored.__file__).parent
REPO = Path(__file__).resolve().parents[2]
BASELINE = "2026-01-01-baseline"
PROSE = {
    "summary": "Test change.",
    "compatibility": "Older readers ignore the optional key and keep behaving as before.",
    "verification": "The gate tests ran.",
}


@dataclass
class Gate:
    """Runs the gate on one temporary project."""

    root: Path
    decls: Path
    prose: Path

    def run(self, *args: str) -> tuple[int, dict[str, Any]]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = main([*args, "--json", "--root", str(self.root), "--declarations", str(self.decls)])
        return status, json.loads(out.getvalue())

    def edit(self, module: str, old: str, new: str) -> None:
        """Replace ``old`` (which must occur exactly once) in a declaration module of the copy."""
        path = self.decls / module
        text = path.read_text("utf-8")
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {module}"
        path.write_text(text.replace(old, new), "utf-8")

    def record_path(self, record_id: str) -> Path:
        return self.root / "schema" / "changes" / f"{record_id}.md"

    def codes(self, outcome: dict[str, Any]) -> set[str]:
        return {p["code"] for p in outcome["problems"]}


def copy_declarations(target: Path) -> Path:
    shutil.copytree(STORED, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture
def fresh_gate(tmp_path: Path) -> Gate:
    """A project with a copy of the declarations and no history yet."""
    prose = tmp_path / "prose.json"
    prose.write_text(json.dumps(PROSE), "utf-8")
    (tmp_path / "project").mkdir()
    return Gate(tmp_path / "project", copy_declarations(tmp_path / "decls"), prose)


@pytest.fixture
def gate(fresh_gate: Gate) -> Gate:
    """A project with the copy baselined and finalized as v1."""
    status, outcome = fresh_gate.run("baseline", BASELINE, "--prose", str(fresh_gate.prose))
    assert status == 0, outcome
    status, outcome = fresh_gate.run("finalize")
    assert status == 0, outcome
    return fresh_gate


@pytest.fixture
def by_root() -> Callable[[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    def group(outcome: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for change in outcome["changes"]:
            out.setdefault(change["root"], []).append(change)
        return out

    return group
