"""Lean imports (docs/architecture.md, "Import contracts"): what importing a package or running the command loads.

Each check runs in a fresh interpreter and counts modules, never times: importing ``aimon_mongo.vfs`` loads
at most 60 of our modules and ``aimon_mongo.mongo`` at most 80 (and not the VFS); ``aimon-mongo --version``
imports neither PyMongo nor pydantic and ``--help`` not PyMongo; using a backend loads no front end and no
schema gate. The lazy names of every package resolve to what their ``TYPE_CHECKING`` block declares.
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import aimon_mongo

PACKAGE = Path(aimon_mongo.__file__).parent
LAZY_PACKAGES = ["mongo", "vfs", "redis", "postgres", "memory", "langgraph", "snapshots", "deepagents", "host", "adk"]
FRONT_ENDS = ("schema_gate", "cli", "console", "demo", "standin", "langgraph", "deepagents", "adk", "cli_entry")

_REPORT = """
import json, sys
{setup}
ours = sorted(k for k in sys.modules if k == "aimon_mongo" or k.startswith("aimon_mongo."))
print(json.dumps({{"ours": ours, "all": sorted(sys.modules)}}))
"""


def loaded(setup: str) -> dict[str, Any]:
    """``ours`` (our modules) and ``all`` (every module) loaded by ``setup`` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _REPORT.format(setup=setup)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def family(module: str) -> str:
    """The package family of one of our modules: ``aimon_mongo._async.vfs.gridfs`` and
    ``aimon_mongo.vfs.paths`` are both ``vfs`` (the one async tree and its twin serve the public packages)."""
    parts = module.split(".")[1:]
    if parts[:1] in (["_async"], ["_sync"]) and len(parts) > 1:
        parts = parts[1:]
    return parts[0] if parts else ""


def front_ends(ours: list[str]) -> list[str]:
    return [m for m in ours if family(m) in FRONT_ENDS]


def test_import_vfs_loads_at_most_60_of_our_modules() -> None:
    report = loaded("import aimon_mongo.vfs")
    assert len(report["ours"]) <= 60, report["ours"]
    assert "pymongo" not in report["all"] and "aimon_mongo.schema_gate" not in report["all"]


def test_import_mongo_loads_at_most_80_of_our_modules_and_not_the_vfs() -> None:
    report = loaded("import aimon_mongo.mongo")
    assert len(report["ours"]) <= 80, report["ours"]
    assert not [m for m in report["ours"] if family(m) == "vfs"], report["ours"]


def test_a_gridfs_filesystem_loads_no_session_bundle_front_end_or_gate() -> None:
    report = loaded("from aimon_mongo.vfs import AsyncGridFSFileSystem")
    assert len(report["ours"]) <= 60, report["ours"]
    assert not front_ends(report["ours"])
    assert not [m for m in report["ours"] if m.endswith(".backends")], report["ours"]


@pytest.mark.parametrize(
    ("setup", "flavour"),
    [
        ("from aimon_mongo.mongo import MongoSessionBackends", "_sync"),
        ("from aimon_mongo.mongo import AsyncMongoSessionBackends", "_async"),
        # memory/idempotency_table.py takes a constant from _async/services: no flavour check for it yet
        ("from aimon_mongo.memory import MemorySessionBackends", None),
    ],
)
def test_a_session_bundle_loads_one_flavour_no_vfs_no_front_end_and_no_gate(setup: str, flavour: str | None) -> None:
    ours = loaded(setup)["ours"]
    if flavour is not None:
        other = "_async" if flavour == "_sync" else "_sync"
        assert not [m for m in ours if other in m.split(".")], ours
    assert not [m for m in ours if family(m) == "vfs"], ours
    assert not front_ends(ours), ours


_COMMAND = """
from aimon_mongo.cli_entry import main
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    main({argv!r})
"""


def test_version_imports_neither_pymongo_nor_pydantic() -> None:
    modules = loaded(_COMMAND.format(argv=["--version"]))["all"]
    assert "pymongo" not in modules and "bson" not in modules
    assert "pydantic" not in modules


@pytest.mark.parametrize("argv", [["--help"], ["vfs", "--help"], ["inbox", "--help"]])
def test_help_does_not_import_pymongo(argv: list[str]) -> None:
    assert "pymongo" not in loaded(_COMMAND.format(argv=argv))["all"]


def _declared(package: str) -> dict[str, tuple[str, str]]:
    """Public name → (module, attribute) from the ``if TYPE_CHECKING:`` block and the eager imports of
    ``aimon_mongo/<package>/__init__.py``."""
    tree = ast.parse((PACKAGE / package / "__init__.py").read_text(encoding="utf-8"))
    nodes: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            nodes.extend(node.body)
        elif isinstance(node, ast.ImportFrom) and node.module not in (
            "typing",
            "aimon_mongo._lazy",
            "aimon_mongo._extras",
        ):
            nodes.append(node)
    return {
        alias.asname or alias.name: (node.module or "", alias.name)
        for node in nodes
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_lazy_names_are_what_the_type_checking_block_declares(package: str) -> None:
    module = importlib.import_module(f"aimon_mongo.{package}")
    declared = _declared(package)
    assert sorted(declared) == sorted(module.__all__)
    for name, (source, attribute) in declared.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), attribute), name
    assert set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError, match="no attribute 'nothing_by_this_name'"):
        module.nothing_by_this_name  # noqa: B018


def test_a_name_shared_with_a_submodule_stays_the_function() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import aimon_mongo.snapshots.render\nfrom aimon_mongo.snapshots import render\nprint(callable(render), "
            "type(render).__name__)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.split() == ["True", "function"], done.stderr
