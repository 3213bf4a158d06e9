"""End to end: ``create_deep_agent`` with a scripted fake chat model (no network) whose tool calls write,
edit, read, grep and glob files; the files end up in GridFS and a second process reads them back."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from deepagents import create_deep_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from pymongo import AsyncMongoClient

from aimon_mongo.deepagents import AimonBackend
from aimon_mongo.vfs import AsyncGridFSFileSystem
from tests.fixtures.mongo import CLIENT_OPTIONS


class ScriptedModel(GenericFakeChatModel):
    """langchain-core's fake chat model, answering with the scripted messages (tool calls included)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def _call(index: int, name: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call-{index}", "type": "tool_call"}])


SCRIPT = [
    _call(1, "write_file", file_path="/notes/plan.md", content="# Plan\nstep one TODO\n"),
    _call(2, "write_file", file_path="/src/app.py", content="print('hi')  # TODO tidy\n"),
    _call(3, "edit_file", file_path="/notes/plan.md", old_string="step one TODO", new_string="step one done"),
    _call(4, "read_file", file_path="/notes/plan.md"),
    _call(5, "grep", pattern="TODO"),
    _call(6, "glob", pattern="**/*.md"),
    AIMessage(content="finished"),
]

_READER = """
import json, sys
from pymongo import MongoClient
from aimon_mongo.vfs import GridFSFileSystem

with GridFSFileSystem(MongoClient(sys.argv[1], tz_aware=True), sys.argv[2]) as fs:
    print(json.dumps({path: fs.read_text(path) for path in fs.ls_recursive(".")}))
"""


async def test_a_deep_agent_keeps_its_files_in_gridfs(mongo_uri: str, mongo_db_name: str) -> None:
    client: AsyncMongoClient[Any] = AsyncMongoClient(mongo_uri, **CLIENT_OPTIONS)
    try:
        fs = AsyncGridFSFileSystem(client, mongo_db_name)
        agent = create_deep_agent(model=ScriptedModel(messages=iter(SCRIPT)), backend=AimonBackend(fs))
        state = await agent.ainvoke(
            {"messages": [{"role": "user", "content": "plan the work"}]},
            config={"configurable": {"thread_id": "t-e2e"}},
        )
        await fs.close()
    finally:
        await client.close()
    tools = {
        message.tool_call_id: str(message.content) for message in state["messages"] if isinstance(message, ToolMessage)
    }
    assert tools["call-3"] == "Successfully replaced 1 instance(s) of the string in '/notes/plan.md'"
    assert "step one done" in tools["call-4"] and "TODO" not in tools["call-4"]
    assert tools["call-5"] == "/src/app.py"  # grep's default output: the files with matches
    assert tools["call-6"] == "['/notes/plan.md']"
    assert state["messages"][-1].content == "finished"

    root = Path(__file__).resolve().parents[2]
    reader = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_READER), mongo_uri, mongo_db_name],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(reader.stdout) == {
        "deepagents/t-e2e/notes/plan.md": "# Plan\nstep one done\n",
        "deepagents/t-e2e/src/app.py": "print('hi')  # TODO tidy\n",
    }
