"""The ``python`` code block of ``docs/telemetry.md`` runs as written against the stand-in (in a fresh
interpreter, as an application would: it sets the global tracer provider) and prints the spans it recorded."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from pymongo import MongoClient

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "telemetry.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", PAGE.read_text(encoding="utf-8"), flags=re.S | re.M)
DATABASE = "aimon_telemetry"  # the name the block uses


def test_the_page_has_one_code_block() -> None:
    assert len(BLOCKS) == 1


def test_code_block_runs_and_records_spans_with_nothing_wrapped(mongo_uri: str, mongo_client: MongoClient[Any]) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AIMON_MONGODB_URI"}
    env["MONGODB_URI"] = mongo_uri
    mongo_client.drop_database(DATABASE)
    try:
        done = subprocess.run(
            [sys.executable, "-c", BLOCKS[0]], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
    finally:
        mongo_client.drop_database(DATABASE)
    assert done.returncode == 0, f"docs/telemetry.md's block failed:\n{done.stderr[-3000:]}"
    assert "Failed to save" not in done.stderr, done.stderr  # the snapshot store initialised the filesystem
    spans = [
        (name, ast.literal_eval(attributes))
        for name, attributes in (line.split(" ", 1) for line in done.stdout.splitlines())
    ]
    names = [name for name, _ in spans]
    assert names[:2] == ["aimon.inbox.deliver", "aimon.inbox.collect"], done.stdout
    assert "aimon.snapshots.save" in names and "aimon.vfs.initialize" in names and "aimon.vfs.write" in names
    collect = spans[1][1]
    assert (collect["aimon.session_id"], collect["aimon.priority"], collect["aimon.batch_size"]) == ("c-1", "NEXT", 1)
    assert all("hi" not in attributes.values() for _, attributes in spans)  # never the payload
