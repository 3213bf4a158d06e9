#!/usr/bin/env python3
"""A deepagents agent whose files live in GridFS: every node of a deployment sees what it wrote.

    pip install 'aimon-mongo[deepagents,langgraph]'   # extras: deepagents, langgraph
    (the deepagents extra pins deepagents, which brings LangGraph and langchain-core)

    python examples/deepagents_files.py

Offline: the chat model is scripted (langchain-core's fake chat model replays prepared tool calls), so no
API key and no network are needed; pass ``model="anthropic:claude-sonnet-4-5"`` (or any chat model) to
``create_deep_agent`` to run a real one. The agent writes a plan, edits it and reads it back through its
file tools; the files land in the virtual filesystem under ``deepagents/<thread id>/``, where a second
client (another node, ``aimon-mongo vfs``, the console) reads them.

Runs against AIMON_MONGODB_URI, else MONGODB_URI, or starts the local MongoDB stand-in for the run; uses a
fresh database and drops it at the end.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from deepagents import create_deep_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo.connection import uri_source
from aimon_mongo.deepagents import AimonBackend
from aimon_mongo.standin import mongodb_or_standin
from aimon_mongo.vfs import AsyncGridFSFileSystem, GridFSFileSystem


class ScriptedModel(GenericFakeChatModel):
    """Replays the script; tools are "bound" by ignoring them (the script already names them)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def call(index: int, name: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call-{index}", "type": "tool_call"}])


SCRIPT = [
    call(1, "write_file", file_path="/notes/plan.md", content="# Plan\n- book flights TODO\n- pack\n"),
    call(2, "edit_file", file_path="/notes/plan.md", old_string="book flights TODO", new_string="flights booked"),
    call(3, "read_file", file_path="/notes/plan.md"),
    AIMessage(content="The plan is in /notes/plan.md."),
]


async def run_agent(uri: str, database: str, thread: str) -> None:
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(uri, tz_aware=True)
    try:
        fs = AsyncGridFSFileSystem(client, database)
        agent = create_deep_agent(model=ScriptedModel(messages=iter(SCRIPT)), backend=AimonBackend(fs))
        state = await agent.ainvoke(
            {"messages": [{"role": "user", "content": "Plan my trip and keep the plan in a file."}]},
            config={"configurable": {"thread_id": thread}},
        )
        await fs.close()
    finally:
        await client.close()
    for message in state["messages"]:
        if isinstance(message, ToolMessage):
            print(f"tool {message.name}: {' '.join(str(message.content).split())[:100]}")
    print(f"agent: {state['messages'][-1].content}")


def main() -> None:
    database = f"aimon_example_{uuid.uuid4().hex[:8]}"
    thread = "trip-1"
    with mongodb_or_standin() as (uri, server):
        print(f"MongoDB: {'local stand-in' if server else uri_source()}; database {database}")
        asyncio.run(run_agent(uri, database, thread))
        # another node: a plain client of the same database sees the agent's files
        client: MongoClient[dict[str, Any]] = MongoClient(uri, tz_aware=True)
        try:
            with GridFSFileSystem(client, database) as fs:
                for path in fs.ls_recursive("."):
                    print(f"in GridFS: {path}")
                print(fs.read_text(f"deepagents/{thread}/notes/plan.md"), end="")
            client.drop_database(database)
        finally:
            client.close()


if __name__ == "__main__":
    main()
