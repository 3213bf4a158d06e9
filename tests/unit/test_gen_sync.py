"""The sync generator: its rules, its pragma, and the --check mode on the real tree."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("gen_sync", ROOT / "scripts" / "gen_sync.py")
assert _spec is not None and _spec.loader is not None
gen_sync = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_sync)


def test_rules_convert_driver_names_and_syntax() -> None:
    source = (
        "from pymongo import AsyncMongoClient\n"
        "from gridfs import AsyncGridFSBucket\n"
        "from redis.asyncio import Redis\n"
        "from psycopg_pool import AsyncConnectionPool\n"
        "from aimon_mongo._async_runtime import Lock, sleep\n"
        "from aimon_mongo._async.mongo.inbox import AsyncMongoSessionInbox\n"
        "class AsyncThing:\n"
        "    async def __aenter__(self) -> AsyncThing:\n"
        "        async with self._lock:\n"
        "            async for doc in await self._coll.find({}):\n"
        "                await sleep(0.1)\n"
        "        return self\n"
    )
    out = gen_sync.convert(source, "x/_async/m.py")
    assert out.splitlines()[1:] == [
        "from pymongo import MongoClient",
        "from gridfs import GridFSBucket",
        "from redis import Redis",
        "from psycopg_pool import ConnectionPool",
        "from aimon_mongo._sync_runtime import Lock, sleep",
        "from aimon_mongo._sync.mongo.inbox import MongoSessionInbox",
        "class Thing:",
        "    def __enter__(self) -> Thing:",
        "        with self._lock:",
        "            for doc in self._coll.find({}):",
        "                sleep(0.1)",
        "        return self",
    ]


def test_generated_files_carry_a_header_naming_the_source() -> None:
    out = gen_sync.convert("x = 1\n", "aimon_mongo/a/_async/b.py")
    assert out.startswith("# GENERATED from aimon_mongo/a/_async/b.py by scripts/gen_sync.py; do not edit.\n")


def test_pragma_replaces_or_drops_a_line() -> None:
    source = "    task = spawn_task(run)  # sync: task = spawn_thread(run)\n    await drain()  # sync: drop\n"
    assert gen_sync.convert(source, "s").splitlines()[1:] == ["    task = spawn_thread(run)"]


def test_identifiers_that_merely_contain_async_are_kept() -> None:
    assert gen_sync.convert_line("async_mongo_client = make()\n") == "async_mongo_client = make()\n"


def test_check_mode_passes_on_the_committed_tree() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_sync.py"), "--check"], capture_output=True)
    assert result.returncode == 0, result.stderr.decode()


NEEDED = (r"\basync def\b", r"\bawait ")
"""The only rules the tiny tree below needs: --check also fails on a rule that matches nothing."""


@pytest.fixture
def tiny_tree(tmp_path: Path) -> Iterator[Path]:
    """A tree with one source in the async tree, the generator pointed at it with only the rules it needs."""
    pkg = tmp_path / "aimon_mongo"
    (pkg / "_async" / "x").mkdir(parents=True)
    (pkg / "_async" / "x" / "m.py").write_text("async def f() -> None:\n    await g()\n")
    original = (gen_sync.ROOT, gen_sync.PACKAGE, gen_sync._COMPILED, gen_sync._PACKAGE_COMPILED)
    gen_sync.ROOT, gen_sync.PACKAGE = tmp_path, tmp_path / "aimon_mongo"
    gen_sync._COMPILED = [rule for rule in original[2] if rule[0].pattern in NEEDED]
    gen_sync._PACKAGE_COMPILED = {}
    try:
        yield pkg
    finally:
        gen_sync.ROOT, gen_sync.PACKAGE, gen_sync._COMPILED, gen_sync._PACKAGE_COMPILED = original


def test_check_mode_reports_a_stale_twin(tiny_tree: Path) -> None:
    twins = tiny_tree / "_sync" / "x"
    twins.mkdir(parents=True)
    (twins / "m.py").write_text("# stale\n")
    (twins / "orphan.py").write_text("# no source\n")
    assert gen_sync.main(["--check"]) == 1
    (twins / "orphan.py").unlink()
    assert gen_sync.main([]) == 0
    assert (twins / "m.py").read_text().endswith("def f() -> None:\n    g()\n")
    assert gen_sync.main(["--check"]) == 0


def test_check_mode_fails_on_a_rule_that_matches_nothing(tiny_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    needed = gen_sync._COMPILED
    gen_sync._COMPILED = [*needed, (re.compile(r"\bStopAsyncIteration\b"), "StopIteration")]
    gen_sync._PACKAGE_COMPILED = {"aimon_mongo/_async/x/": [(re.compile(r"\baput\b"), "put")]}
    assert gen_sync.main([]) == 0  # generating does not judge the rules
    capsys.readouterr()
    assert gen_sync.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "rule '\\\\bStopAsyncIteration\\\\b' matches nothing in any _async source (delete it)" in err
    assert "rule '\\\\baput\\\\b' matches nothing" in err
    assert gen_sync.unmatched_rules(Counter(dict.fromkeys(NEEDED, 1))) == [r"\bStopAsyncIteration\b", r"\baput\b"]
    gen_sync._COMPILED, gen_sync._PACKAGE_COMPILED = needed, {}
    assert gen_sync.main(["--check"]) == 0


def test_twin_docstrings_say_they_are_generated() -> None:
    assert gen_sync.convert_line('"""MongoDB lease store (async source; the sync twin is generated).\n') == (
        '"""MongoDB lease store (generated from the ``_async`` source).\n'
    )
    assert gen_sync.convert_line("Stores (async flavour; the sync twin is generated). Thin\n") == (
        "Stores (generated from the ``_async`` source). Thin\n"
    )
    line = "Saver (async source on ``AsyncMongoClient``; the sync twin is generated).\n"
    assert gen_sync.convert_line(line) == ("Saver (on ``MongoClient``, generated from the ``_async`` source).\n")
    assert gen_sync.convert_line("file operations on an async VFS\n") == "file operations on a sync VFS\n"


def test_no_twin_claims_to_be_the_source() -> None:
    twins = sorted((ROOT / "aimon_mongo").rglob("_sync/*.py"))
    assert twins
    claims = [p.relative_to(ROOT).as_posix() for p in twins if "sync source" in p.read_text(encoding="utf-8")]
    assert claims == []
