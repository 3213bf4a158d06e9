"""Worker A of LangGraph's frozen-worker scenario (langgraph #8796), as a process.

    python -m tests.langgraph.frozen_worker URI DB THREAD

It claims write ownership of THREAD (a live lease for minutes), runs a three-node graph on the MongoDB saver
(sync, ``durability="sync"``) and, inside the "model" node, prints ``in-model`` and waits for a line on
stdin: the test freezes the process there (SIGSTOP), lets worker B take the thread over and finish it,
then thaws it and sends the line. The process then tries to write its result, and prints one JSON line:
what its write raised, what its ownership check said, and whether its lease could still be extended.
"""

from __future__ import annotations

import json
import operator
import sys
from collections.abc import Callable
from datetime import timedelta
from typing import Annotated, Any, TypedDict

from langgraph.graph import StateGraph
from pymongo import MongoClient

from aimon_mongo.langgraph import AimonCheckpointSaver
from tests.langgraph.graph_worker import in_line


class State(TypedDict):
    steps: Annotated[list[str], operator.add]
    answer: str


def build(worker: str, pause: Callable[[], None] | None = None) -> StateGraph[State]:
    """plan -> model -> finish; ``model`` answers with the worker's name (after ``pause``, if given)."""

    def plan(state: State) -> dict[str, Any]:
        return {"steps": ["plan"]}

    def model(state: State) -> dict[str, Any]:
        if pause is not None:
            pause()
        return {"steps": ["model"], "answer": worker}

    def finish(state: State) -> dict[str, Any]:
        return {"steps": ["finish:" + state["answer"]]}

    return in_line(StateGraph(State), ("plan", plan), ("model", model), ("finish", finish))


def wait_for_thaw() -> None:
    print("in-model", flush=True)
    sys.stdin.readline()


def main(argv: list[str]) -> int:
    uri, db, thread = argv
    client: MongoClient[dict[str, Any]] = MongoClient(uri, tz_aware=True)
    try:
        saver = AimonCheckpointSaver(client[db], node_id="worker-a", ownership_ttl=timedelta(minutes=5))
        writer = saver.claim_write_ownership(thread)
        app = build("worker-a", wait_for_thaw).compile(checkpointer=writer)
        out: dict[str, Any] = {"token": writer.write_ownership.fencing_token if writer.write_ownership else None}
        try:
            app.invoke({"steps": []}, {"configurable": {"thread_id": thread}}, durability="sync")
            out["write"] = "accepted"
        except Exception as exc:
            out["write"] = type(exc).__name__
            out["marker"] = getattr(exc, "is_stale_write_owner_error", False)
        try:
            writer.check_write_ownership()
            out["check"] = "owner"
        except Exception as exc:
            out["check"] = type(exc).__name__
        out["extend"] = writer.extend_write_ownership()
    finally:
        client.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
