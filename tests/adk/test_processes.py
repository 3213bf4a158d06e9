"""The multi-node cases with each node in its own process: concurrent artifact saves of one filename get
every version once; concurrent appenders of one session leave one history, each refusal ADK's
``StaleSessionError``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from aimon_mongo.adk import AimonArtifactService, AimonSessionService
from tests.adk.conftest import session_store_of, with_database
from tests.fixtures.redis import delete_namespace

ROOT = Path(__file__).resolve().parents[2]


def start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.adk.worker", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> list[str]:
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return out.splitlines()


@pytest.mark.parametrize("kind", ["mongo", "file"])
async def test_savers_in_three_processes_get_every_version_once(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    if kind == "mongo":
        url = with_database(request.getfixturevalue("mongo_uri"), request.getfixturevalue("mongo_db_name"))
    else:
        url = f"file://{tmp_path}/artifacts"
    workers = [start("save", url, "app", "ann", "s1", "shared.bin", "12", f"p{n}") for n in range(3)]
    versions = [int(v) for w in workers for v in finish(w)]
    assert sorted(versions) == list(range(36))
    service = AimonArtifactService.from_url(url)
    try:
        scope: dict[str, Any] = {"app_name": "app", "user_id": "ann", "session_id": "s1", "filename": "shared.bin"}
        assert await service.list_versions(**scope) == list(range(36))
        texts = {(await service.load_artifact(version=v, **scope)).text for v in range(36)}  # type: ignore[union-attr]
        assert texts == {f"p{n}-{i}" for n in range(3) for i in range(12)}
        assert await service.load_artifact(**scope) != types.Part()
    finally:
        await service.close()


@pytest.mark.parametrize("kind", ["mongo", "redis", "postgres"])  # a memory:// store lives in one process
async def test_appenders_in_three_processes_leave_one_history(kind: str, request: pytest.FixtureRequest) -> None:
    session_store = session_store_of(kind, request)
    options = session_store.options
    service = AimonSessionService.from_url(session_store.url, **session_store.options)
    if kind == "redis":
        request.addfinalizer(
            lambda: delete_namespace(session_store.url, f"adk:{request.getfixturevalue('redis_root')}")
        )
    try:
        await service.create_session(app_name="app", user_id="ann", session_id="s")
        workers = [
            start("append", session_store.url, json.dumps(options), "app", "ann", "s", "15", f"w{n}") for n in range(3)
        ]
        lines = [line.split() for w in workers for line in finish(w)]
        won = [text for outcome, text in lines if outcome == "ok"]
        assert {outcome for outcome, _ in lines} <= {"ok", "stale"} and len(lines) == 45
        stored = await service.get_session(app_name="app", user_id="ann", session_id="s")
        assert stored is not None
        history = [e.content.parts[0].text for e in stored.events]  # type: ignore[index,union-attr]
        assert sorted(history) == sorted(won)  # every acknowledged append is stored, nothing else
        for n in range(3):  # each writer's own events keep their order
            mine = [t for t in history if t.startswith(f"w{n}-")]
            assert mine == sorted(mine, key=lambda t: int(t.split("-")[1]))
    finally:
        await service.close()
