#!/usr/bin/env python3
"""A LangGraph chat whose conversation survives a restart: the checkpointer is aimon-mongo's, on MongoDB.

    pip install 'aimon-mongo[langgraph]'          # extras: langgraph
    pip install langgraph                         (the extra pins langgraph-checkpoint; LangGraph itself,
                                                  which brings langchain-core, is yours to choose)

    python examples/langgraph_chat.py

Offline: the chat model is scripted (langchain-core's fake chat model answers with prepared replies), so no
API key and no network are needed; swap in any chat model (``init_chat_model("anthropic:...")``) to talk
to a real one. Two "processes" share one thread: the first answers a turn and goes away, the second
opens its own saver on the same database and continues the conversation where the first left it.

Runs against AIMON_MONGODB_URI, else MONGODB_URI, or starts the local MongoDB stand-in for the run; uses a
fresh database and drops it at the end.
"""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph
from pymongo import MongoClient

from aimon_mongo.connection import uri_source
from aimon_mongo.langgraph import AimonCheckpointSaver
from aimon_mongo.mongo import ensure_schema
from aimon_mongo.standin import mongodb_or_standin

SCRIPT = [
    AIMessage(content="Hello Ada! What shall we plan?"),
    AIMessage(content="Noted: a trip to Lisbon. You told me your name is Ada, so the booking is in that name."),
]


def build(model: GenericFakeChatModel) -> StateGraph[MessagesState]:
    """One node: the chat model answers the conversation so far (LangGraph keeps it in the checkpoints)."""

    def chat(state: MessagesState) -> dict[str, list[AnyMessage]]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("chat", chat)
    graph.add_edge(START, "chat")
    return graph


def turn(client: MongoClient[dict[str, Any]], database: str, thread: str, text: str, reply: AIMessage) -> list[Any]:
    """One "process": a saver of its own on the shared database, one user turn, the thread's messages."""
    saver = AimonCheckpointSaver(client[database], node_id=f"worker-{uuid.uuid4().hex[:4]}")
    app = build(GenericFakeChatModel(messages=iter([reply]))).compile(checkpointer=saver)
    config = {"configurable": {"thread_id": thread}}
    result = app.invoke({"messages": [HumanMessage(content=text)]}, config)
    return list(result["messages"])


def main() -> None:
    database = f"aimon_example_{uuid.uuid4().hex[:8]}"
    thread = "chat-1"
    with mongodb_or_standin() as (uri, server):
        print(f"MongoDB: {'local stand-in' if server else uri_source()}; database {database}")
        client: MongoClient[dict[str, Any]] = MongoClient(uri, tz_aware=True)
        try:
            ensure_schema(client[database])
            first = turn(client, database, thread, "Hi, I am Ada.", SCRIPT[0])
            print(f"first process: {len(first)} messages; assistant: {first[-1].content}")
            second = turn(client, database, thread, "Plan a trip to Lisbon.", SCRIPT[1])
            print(f"second process resumed thread {thread}: {len(second)} messages")
            for message in second:
                print(f"  {message.type}: {message.content}")
            stored = client[database]["langgraph_checkpoints"].count_documents({"thread_id": thread})
            print(f"checkpoints stored for {thread}: {stored}")
            client.drop_database(database)
        finally:
            client.close()


if __name__ == "__main__":
    main()
