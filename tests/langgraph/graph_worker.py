"""A LangGraph StateGraph (plain Python nodes, one interrupt) run on the MongoDB saver, as a process.

    python -m tests.langgraph.graph_worker start URI DB THREAD    # async saver: runs until the interrupt
    python -m tests.langgraph.graph_worker resume URI DB THREAD   # sync saver: resumes and finishes

Prints one JSON line describing what it saw.
"""

from __future__ import annotations

import asyncio
import json
import operator
import sys
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo.langgraph import AimonCheckpointSaver, AsyncAimonCheckpointSaver


class State(TypedDict):
    steps: Annotated[list[str], operator.add]
    approved: bool
    payload: bytes


def plan(state: State) -> dict[str, Any]:
    return {"steps": ["plan"], "payload": b"p" * 200_000}  # a large channel (GridFS), written once


def ask(state: State) -> dict[str, Any]:
    answer = interrupt({"question": "approve the plan?", "steps": list(state["steps"])})
    return {"steps": ["ask"], "approved": bool(answer)}


def act(state: State) -> dict[str, Any]:
    return {"steps": ["act" if state["approved"] else "skip"]}


def in_line(graph: StateGraph[Any], *nodes: tuple[str, Callable[..., dict[str, Any]]]) -> StateGraph[Any]:
    """``graph`` with ``nodes`` added and run one after the other, START to END."""
    previous = START
    for name, node in nodes:
        graph.add_node(name, node)
        graph.add_edge(previous, name)
        previous = name
    graph.add_edge(previous, END)
    return graph


def build() -> StateGraph[State]:
    return in_line(StateGraph(State), ("plan", plan), ("ask", ask), ("act", act))


async def start(uri: str, db: str, thread: str) -> dict[str, Any]:
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(uri, tz_aware=True)
    try:
        app = build().compile(checkpointer=AsyncAimonCheckpointSaver(client[db], inline_limit=65536))
        config = {"configurable": {"thread_id": thread}}
        result = await app.ainvoke({"steps": []}, config)
        state = await app.aget_state(config)
        return {
            "interrupt": [i.value for i in result.get("__interrupt__", [])],
            "next": list(state.next),
            "steps": state.values["steps"],
        }
    finally:
        await client.close()


def resume(uri: str, db: str, thread: str) -> dict[str, Any]:
    client: MongoClient[dict[str, Any]] = MongoClient(uri, tz_aware=True)
    try:
        saver = AimonCheckpointSaver(client[db], inline_limit=65536)
        app = build().compile(checkpointer=saver)
        config = {"configurable": {"thread_id": thread}}
        before = app.get_state(config)
        result = app.invoke(Command(resume=True), config)
        history = [s.metadata.get("step") for s in app.get_state_history(config)]
        return {
            "next_before": list(before.next),
            "steps": result["steps"],
            "approved": result["approved"],
            "payload_len": len(result["payload"]),
            "history_steps": history,
        }
    finally:
        client.close()


def main(argv: list[str]) -> int:
    phase, uri, db, thread = argv
    out = asyncio.run(start(uri, db, thread)) if phase == "start" else resume(uri, db, thread)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
