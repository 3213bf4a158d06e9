"""Every ``python`` code block of ``docs/quickstart.md`` runs, as written, against the stand-in, and passes
``mypy --strict``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pymongo import MongoClient

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "docs" / "quickstart.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", QUICKSTART.read_text(encoding="utf-8"), flags=re.S | re.M)
DATABASE = "aimon_quickstart"  # the name the blocks use


def test_quickstart_has_a_sync_and_an_async_block() -> None:
    assert len(BLOCKS) >= 2
    assert any("asyncio.run(" in block for block in BLOCKS)
    assert any("MongoSessionBackends.from_uri(" in block and "asyncio" not in block for block in BLOCKS)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_code_block_runs(index: int, mongo_uri: str, mongo_client: MongoClient[Any]) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AIMON_MONGODB_URI"}
    env["MONGODB_URI"] = mongo_uri
    mongo_client.drop_database(DATABASE)
    try:
        done = subprocess.run(
            [sys.executable, "-c", BLOCKS[index]], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
    finally:
        mongo_client.drop_database(DATABASE)
    assert done.returncode == 0, f"block {index} of docs/quickstart.md failed:\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), "every block prints what it did"


@pytest.mark.slow
def test_code_blocks_pass_mypy_strict(tmp_path: Path) -> None:
    files = []
    for index, block in enumerate(BLOCKS):
        path = tmp_path / f"quickstart_block_{index}.py"
        path.write_text(block, encoding="utf-8")
        files.append(str(path))
    # from the checkout, so mypy finds the package (an editable install is invisible to it); a cache of its
    # own (the blocks' names are new every run, the package's analysis is reused on a warm machine)
    cache = ROOT / ".mypy_cache" / "quickstart-blocks"
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:]
