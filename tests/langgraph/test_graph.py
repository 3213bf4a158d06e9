"""End to end with LangGraph itself: a StateGraph interrupted in one process and resumed in another on
the MongoDB saver; and two workers on one thread where the superseded one is refused."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pymongo import MongoClient

from aimon_mongo.errors import StaleWriteOwnerError
from aimon_mongo.langgraph import AsyncAimonMemoryCheckpointSaver, CheckpointMemoryStore
from aimon_mongo.mongo import ensure_schema
from tests.fixtures.mongo import CLIENT_OPTIONS
from tests.langgraph.graph_worker import build

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.langgraph.graph_worker", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_interrupt_in_one_process_resume_in_another(mongo_uri: str) -> None:
    db = f"t_{uuid.uuid4().hex[:16]}"
    client: MongoClient[dict[str, Any]] = MongoClient(mongo_uri, **CLIENT_OPTIONS)
    ensure_schema(client[db])
    thread = str(uuid.uuid4())
    try:
        first = run("start", mongo_uri, db, thread)
        assert first["interrupt"] == [{"question": "approve the plan?", "steps": ["plan"]}]
        assert first["next"] == ["ask"] and first["steps"] == ["plan"]
        second = run("resume", mongo_uri, db, thread)
        assert second["next_before"] == ["ask"]
        assert second["steps"] == ["plan", "ask", "act"] and second["approved"] is True
        assert second["payload_len"] == 200_000
        assert second["history_steps"][0] == 3 and second["history_steps"][-1] == -1
        # The large channel was stored once, by the checkpoint after the step that changed it (GridFS);
        # the later checkpoints read it from there. The other large file is plan's own pending write.
        docs = list(client[db]["langgraph_checkpoints"].find({"thread_id": thread}))
        assert len(docs) >= 4
        assert [v["channel"] for d in docs for v in d["values"]].count("payload") == 1
        assert client[db]["langgraph_values.files"].count_documents({}) == 2
    finally:
        client.drop_database(db)
        client.close()


async def test_two_workers_one_thread_the_superseded_one_is_refused() -> None:
    store = CheckpointMemoryStore()
    worker_a = AsyncAimonMemoryCheckpointSaver(store, node_id="a", ownership_ttl=timedelta(milliseconds=200))
    worker_b = AsyncAimonMemoryCheckpointSaver(store, node_id="b", leases=worker_a._leases)
    thread = str(uuid.uuid4())
    config = {"configurable": {"thread_id": thread}}
    app_a = build().compile(checkpointer=await worker_a.aclaim_write_ownership(thread))
    await app_a.ainvoke({"steps": []}, config)  # A runs to the interrupt, then stalls
    await asyncio.sleep(0.4)  # A's lease lapses
    app_b = build().compile(checkpointer=await worker_b.aclaim_write_ownership(thread))
    from langgraph.types import Command

    done = await app_b.ainvoke(Command(resume=True), config)
    assert done["steps"] == ["plan", "ask", "act"]
    before = [s.config["configurable"]["checkpoint_id"] async for s in app_b.aget_state_history(config)]
    with pytest.raises(StaleWriteOwnerError):
        await app_a.ainvoke(Command(resume=False), config)  # A wakes up and tries to finish its way
    after = [s.config["configurable"]["checkpoint_id"] async for s in app_b.aget_state_history(config)]
    assert after == before  # nothing of A's landed: no fork, B's result is the tip
    assert (await app_b.aget_state(config)).values["steps"] == ["plan", "ask", "act"]
