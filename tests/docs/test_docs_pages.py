"""The documentation set: required pages exist, relative links resolve, frozen-names.md is current,
README keeps its first two commands."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
REQUIRED = [
    "index.md",
    "quickstart.md",
    "architecture.md",
    "backends.md",
    "vfs.md",
    "snapshots.md",
    "guarantees.md",
    "frozen-names.md",
    "operations.md",
    "benchmarks.md",
    "testing.md",
]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def test_required_pages_exist_and_are_linked_from_the_index() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for name in REQUIRED:
        assert (DOCS / name).is_file(), name
        assert f"({name})" in index or name == "index.md", f"index.md does not link {name}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page: Path) -> None:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans are not links
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#", 1)[0]).resolve()
        assert path.exists(), f"{page.name} links {target}, which does not exist"


def test_frozen_names_page_is_generated_from_names_py() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/gen_frozen_names.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_frozen_names_page_lists_every_constant() -> None:
    import aimon_mongo.names as names

    page = (DOCS / "frozen-names.md").read_text(encoding="utf-8")
    for constant in (name for name in dir(names) if name.isupper()):
        assert f"| `{constant}` |" in page, constant


def test_readme_links_are_absolute_and_point_into_this_repository() -> None:
    """A package index shows README.md as the project page: relative links would break there."""
    import tomllib

    source = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Source"]
    text = re.sub(r"^```.*?^```", "", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.S | re.M)
    targets = LINK.findall(re.sub(r"`[^`\n]*`", "", text))
    assert len(targets) > 10
    for target in targets:
        prefix = next((p for p in (f"{source}/blob/main/", f"{source}/tree/main/") if target.startswith(p)), None)
        assert prefix is not None, f"README.md links {target}: not an absolute link into {source}"
        assert (ROOT / target.removeprefix(prefix).split("#", 1)[0]).exists(), target


def test_readme_keeps_its_first_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_block = readme.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert first_block[0].startswith("./dev demo ")
    assert first_block[1].startswith("./dev test ")
