"""``aimon-mongo langgraph threads|history|show|sweep`` against the stand-in (checkpoints written by the
saver itself); failures are one line with exit code 1, usage errors exit 2."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from langgraph.checkpoint.base import empty_checkpoint
from pymongo import MongoClient

from aimon_mongo.langgraph import AimonCheckpointSaver
from aimon_mongo.mongo import ensure_schema
from tests.cli.conftest import Cli


def _write(db: Any, thread: str, steps: int, **options: Any) -> list[str]:
    ensure_schema(db)
    saver = AimonCheckpointSaver(db, inline_limit=1024, **options)
    config: dict[str, Any] = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    ids, versions, big = [], {}, None
    for step in range(steps):
        changes: dict[str, Any] = {"counter": step}
        if step == 0:
            changes["document"] = big = "d" * 5000
        for channel in changes:
            versions[channel] = saver.get_next_version(versions.get(channel), None)
        cp: dict[str, Any] = dict(empty_checkpoint())
        cp.update(channel_values={"counter": step, "document": big}, channel_versions=dict(versions))
        config = saver.put(config, cp, {"source": "loop", "step": step}, {c: versions[c] for c in changes})
        ids.append(config["configurable"]["checkpoint_id"])
    saver.put_writes(config, [("messages", "secret text"), ("__interrupt__", "ask")], "task-1")
    return ids


def test_threads_history_show(cli: Cli, mongo_client: MongoClient[Any], mongo_db_name: str) -> None:
    db = mongo_client[mongo_db_name]
    ids = _write(db, "thread-a", 3)
    _write(db, "thread-b", 1)
    threads = cli("--session-db", mongo_db_name, "langgraph", "threads", "--json").json()
    assert [t["thread_id"] for t in threads] == ["thread-b", "thread-a"]
    assert threads[1]["checkpoints"] == 3 and threads[1]["namespaces"] == [""]
    assert threads[1]["latest_checkpoint_id"] == ids[-1] and threads[1]["state"] == "live"
    table = cli("--session-db", mongo_db_name, "langgraph", "threads").stdout
    assert "thread-a" in table and ids[-1] in table

    history = cli("--session-db", mongo_db_name, "langgraph", "history", "thread-a", "--json").json()
    assert [h["checkpoint_id"] for h in history] == list(reversed(ids))
    assert [h["metadata"]["step"] for h in history] == [2, 1, 0]
    assert [c["written_here"] for c in history[-1]["channels"]] == [True, True]
    assert (
        cli("--session-db", mongo_db_name, "langgraph", "history", "thread-a", "--limit", "1", "--json").json()[0][
            "checkpoint_id"
        ]
        == ids[-1]
    )
    assert "counter" in cli("--session-db", mongo_db_name, "langgraph", "history", "thread-a").stdout

    shown = cli("--session-db", mongo_db_name, "langgraph", "show", ids[-1], "--json").json()
    assert shown["parent_checkpoint_id"] == ids[-2]
    channels = {c["channel"]: c for c in shown["channels"]}
    assert channels["counter"]["written_here"] is True and channels["counter"]["stored"] == "inline"
    assert channels["document"] == {**channels["document"], "written_here": False, "stored": "earlier checkpoint"}
    first = cli("--session-db", mongo_db_name, "langgraph", "show", ids[0], "--thread", "thread-a", "--json").json()
    assert {c["channel"]: c["stored"] for c in first["channels"]} == {"counter": "inline", "document": "gridfs"}
    assert [(w["channel"], w["idx"]) for w in shown["pending_writes"]] == [("__interrupt__", -3), ("messages", 0)]
    text = cli("--session-db", mongo_db_name, "langgraph", "show", ids[-1]).stdout
    assert "earlier checkpoint" in text and "__interrupt__" in text
    assert "secret text" not in text  # values are never printed: sizes only


def test_failures_and_usage(cli: Cli, mongo_client: MongoClient[Any], mongo_db_name: str) -> None:
    ensure_schema(mongo_client[mongo_db_name])
    line = cli("--session-db", mongo_db_name, "langgraph", "show", "nope").failed_with_one_line()
    assert "no checkpoint 'nope'" in line
    line = cli("--session-db", mongo_db_name, "langgraph", "history", "ghost").failed_with_one_line()
    assert "thread 'ghost' has no checkpoints" in line
    assert cli("--session-db", mongo_db_name, "langgraph", "threads", "--limit", "0").code == 2
    assert cli("--session-db", mongo_db_name, "langgraph", "bogus").code == 2
    assert cli("--session-db", mongo_db_name, "langgraph", "threads", "--json").json() == []


def test_sweep_as_a_real_process(cli_process: Cli, mongo_client: MongoClient[Any], mongo_db_name: str) -> None:
    _write(mongo_client[mongo_db_name], "short-lived", 2, ttl=timedelta(seconds=1))
    time.sleep(1.5)
    swept = cli_process("--session-db", mongo_db_name, "langgraph", "sweep", "--json").json()
    assert swept == {"swept": ["short-lived"]}
    assert cli_process("--session-db", mongo_db_name, "langgraph", "threads", "--json").json() == []
