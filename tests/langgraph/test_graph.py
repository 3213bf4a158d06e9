"""End to end with LangGraph itself: a StateGraph interrupted in one process and resumed in another on
the MongoDB saver; two workers on one thread where the superseded one is refused; and the frozen worker
of langgraph #8796 across two processes."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pymongo import MongoClient

from aimon_mongo.errors import StaleWriteOwnerError, WriteOwnershipError
from aimon_mongo.langgraph import AimonCheckpointSaver, AsyncAimonMemoryCheckpointSaver, CheckpointMemoryStore
from aimon_mongo.mongo import ensure_schema
from tests.fixtures.mongo import CLIENT_OPTIONS
from tests.langgraph import frozen_worker as frozen
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
    worker_a = AsyncAimonMemoryCheckpointSaver(store, node_id="a", ownership_ttl=timedelta(minutes=5))
    worker_b = AsyncAimonMemoryCheckpointSaver(store, node_id="b")
    thread = str(uuid.uuid4())
    config = {"configurable": {"thread_id": thread}}
    app_a = build().compile(checkpointer=await worker_a.aclaim_write_ownership(thread))
    await app_a.ainvoke({"steps": []}, config)  # A runs to the interrupt, then stalls (its lease stays live)
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


def test_frozen_worker_across_two_processes(mongo_uri: str) -> None:
    """langgraph #8796 across two processes: worker A (a process) owns the thread and is frozen (SIGSTOP)
    inside its model call, holding a live lease; worker B (this process) claims the thread, which
    supersedes A at once, and finishes the run; A is thawed and its write is refused with
    StaleWriteOwnerError before anything is stored, its check raises, and the stored chain is B's alone:
    one line of checkpoints, no fork, B's answer at the tip, nothing of A's anywhere."""
    db = f"t_{uuid.uuid4().hex[:16]}"
    client: MongoClient[dict[str, Any]] = MongoClient(mongo_uri, **CLIENT_OPTIONS)
    ensure_schema(client[db])
    thread = str(uuid.uuid4())
    config: Any = {"configurable": {"thread_id": thread}}
    worker_a = subprocess.Popen(
        [sys.executable, "-m", "tests.langgraph.frozen_worker", mongo_uri, db, thread],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert worker_a.stdout is not None and worker_a.stdin is not None
        ready, _, _ = select.select([worker_a.stdout], [], [], 120)  # a bounded wait for A's model call
        assert ready, "worker A did not reach its model call within 120 s"
        line = worker_a.stdout.readline()
        assert line.strip() == "in-model", (line, worker_a.stderr.read() if worker_a.poll() is not None else "")
        os.kill(worker_a.pid, signal.SIGSTOP)  # A is frozen inside its model call, its lease live

        saver_b = AimonCheckpointSaver(client[db], node_id="worker-b")
        with pytest.raises(WriteOwnershipError, match="owned by holder 'worker-a'"):
            saver_b.claim_write_ownership(thread, supersede=False)  # waiting would never end: A is alive
        writer_b = saver_b.claim_write_ownership(thread)  # supersedes A at once
        app_b = frozen.build("worker-b").compile(checkpointer=writer_b)
        assert app_b.get_state(config).next == ("model",)  # where A stopped: after plan
        result = app_b.invoke(None, config, durability="sync")
        assert result["steps"] == ["plan", "model", "finish:worker-b"]
        before = chain(saver_b, thread)

        os.kill(worker_a.pid, signal.SIGCONT)
        out, err = worker_a.communicate("go\n", timeout=120)
        assert worker_a.returncode == 0, err[-3000:]
        report = json.loads(out.strip().splitlines()[-1])
        assert report["token"] < writer_b.write_ownership.fencing_token
        assert report["write"] == "StaleWriteOwnerError" and report["marker"] is True, report
        assert report["check"] == "StaleWriteOwnerError" and report["extend"] is False, report

        after = chain(saver_b, thread)
        assert after == before  # A's refused write stored nothing
        parents = [parent for _, parent in after]
        assert len(set(parents)) == len(parents)  # no checkpoint has two children: no fork
        tip = saver_b.get_tuple(config)
        assert tip is not None and tip.checkpoint["id"] == after[0][0]
        walked, node = [], tip
        while node is not None:  # the tip's parent chain reaches every stored checkpoint
            walked.append(node.checkpoint["id"])
            node = saver_b.get_tuple(node.parent_config) if node.parent_config else None
        assert walked == [checkpoint_id for checkpoint_id, _ in after]
        assert app_b.get_state(config).values == {"steps": ["plan", "model", "finish:worker-b"], "answer": "worker-b"}
        stored = [t for t in saver_b.list(config)]
        assert not any(w[2] == "worker-a" for t in stored for w in t.pending_writes or [])
        assert not any(t.checkpoint["channel_values"].get("answer") == "worker-a" for t in stored)
    finally:
        if worker_a.poll() is None:
            os.kill(worker_a.pid, signal.SIGCONT)
            worker_a.kill()
            worker_a.wait(timeout=30)
        client.drop_database(db)
        client.close()


def chain(saver: AimonCheckpointSaver, thread: str) -> list[tuple[str, str | None]]:
    """``(checkpoint_id, parent_checkpoint_id)`` of every stored checkpoint of the thread, newest first."""
    return [
        (t.checkpoint["id"], t.parent_config["configurable"]["checkpoint_id"] if t.parent_config else None)
        for t in saver.list({"configurable": {"thread_id": thread}})
    ]
