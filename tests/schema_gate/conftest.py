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


def _fresh(directory: Path) -> Gate:
    prose = directory / "prose.json"
    prose.write_text(json.dumps(PROSE), "utf-8")
    (directory / "project").mkdir()
    return Gate(directory / "project", copy_declarations(directory / "decls"), prose)


@pytest.fixture
def fresh_gate(tmp_path: Path) -> Gate:
    """A project with a copy of the declarations and no history yet."""
    return _fresh(tmp_path)


@pytest.fixture(scope="session")
def _baselined(tmp_path_factory: pytest.TempPathFactory) -> Gate:
    template = _fresh(tmp_path_factory.mktemp("gate-template"))
    status, outcome = template.run("baseline", BASELINE, "--prose", str(template.prose))
    assert status == 0, outcome
    status, outcome = template.run("finalize")
    assert status == 0, outcome
    return template


@pytest.fixture
def gate(_baselined: Gate, tmp_path: Path) -> Gate:
    """A project with the copy baselined and finalized as v1 (a fresh copy of one template per test)."""
    for name in ("project", "decls", "prose.json"):
        source = _baselined.root.parent / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, tmp_path / name)
    return Gate(tmp_path / "project", tmp_path / "decls", tmp_path / "prose.json")


@pytest.fixture
def by_root() -> Callable[[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    def group(outcome: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for change in outcome["changes"]:
            out.setdefault(change["root"], []).append(change)
        return out

    return group
