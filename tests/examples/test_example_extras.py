"""Every example says at its top which extras it needs (``# extras: ...``), and they are the ones it imports."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]

# The first module name of an import → the extra that installs it (our own packages that need one included).
NEEDS = {
    "redis": "redis",
    "aimon_mongo.redis": "redis",
    "psycopg": "postgres",
    "psycopg_pool": "postgres",
    "aimon_mongo.postgres": "postgres",
    "fsspec": "fsspec",
    "aimon_mongo.vfs.fsspec": "fsspec",
    "typer": "cli",
    "rich": "cli",
    "aimon_mongo.cli": "cli",
    "langgraph": "langgraph",
    "langchain_core": "langgraph",
    "aimon_mongo.langgraph": "langgraph",
    "deepagents": "deepagents",
    "aimon_mongo.deepagents": "deepagents",
    "google.adk": "adk",
    "google.genai": "adk",
    "aimon_mongo.adk": "adk",
    "agents": "openai-agents",
    "fastapi": "console",
    "aimon_mongo.console": "console",
    "opentelemetry": "otel",
    "aimon_mongo.telemetry": "otel",
}


def imported_extras(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        names = (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module]
            if isinstance(node, ast.ImportFrom) and node.module
            else []
        )
        for name in names:
            for prefix, extra in NEEDS.items():
                if name == prefix or name.startswith(prefix + "."):
                    found.add(extra)
    return found


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_the_example_names_its_extras_at_the_top(script: Path) -> None:
    tree = ast.parse(script.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree) or ""
    said = re.search(r"^\s*pip install (\S+)\s+# extras: (.+)$", doc, flags=re.M)
    assert said is not None, f"{script.name}: no 'pip install ...  # extras: ...' line in its docstring"
    listed = set() if said.group(2).strip() == "none" else {e.strip() for e in said.group(2).split(",")}
    assert listed <= set(EXTRAS), listed
    assert listed == imported_extras(tree), f"{script.name} imports what the extras {imported_extras(tree)} install"
    target = "aimon-mongo" if not listed else f"'aimon-mongo[{','.join(sorted(listed))}]'"
    assert said.group(1) == target


def test_all_is_every_extra_and_the_readme_line_names_each() -> None:
    others = sorted(name for name in EXTRAS if name != "all")
    assert EXTRAS["all"] == [f"aimon-mongo[{','.join(sorted(others, key=list(EXTRAS).index))}]"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = re.search(r"^pip install 'aimon-mongo\[all\]'\s+# every extra: (.+)$", readme, flags=re.M)
    assert line is not None
    assert sorted(e.strip() for e in line.group(1).split(",")) == others
