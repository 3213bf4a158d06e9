"""An ADK ``Runner`` on our services, with a scripted model (no network): a tool saves an artifact, the agent
writes state, two runners (two nodes) continue one conversation in one history."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import Agent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from aimon_mongo.adk import AimonArtifactService, AimonSessionService


class ScriptedModel(BaseLlm):
    """Calls the ``write_note`` tool for a new user message, then answers with the tool's result."""

    model: str = "scripted"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1]
        answered = next((p.function_response for p in last.parts or [] if p.function_response), None)
        if answered is None:
            text = (last.parts or [types.Part(text="")])[0].text or ""
            call = types.FunctionCall(name="write_note", args={"text": text})
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))
        else:
            reply = f"noted as version {answered.response['version']}"  # type: ignore[index]
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=reply)]))


async def write_note(text: str, tool_context: ToolContext) -> dict[str, Any]:
    """Save ``text`` as the next version of notes.txt."""
    version = await tool_context.save_artifact("notes.txt", types.Part(text=text))
    tool_context.state["user:notes"] = version + 1
    return {"version": version}


def agent() -> Agent:
    return Agent(name="noter", model=ScriptedModel(), instruction="Take notes.", tools=[write_note])


async def ask(runner: Runner, session_id: str, text: str) -> str:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    replies = [
        part.text
        async for event in runner.run_async(user_id="ann", session_id=session_id, new_message=message)
        if event.content
        for part in event.content.parts or []
        if part.text and event.author == "noter"
    ]
    return replies[-1]


async def test_two_runners_continue_one_conversation_on_our_services(mongo_uri: str, mongo_db_name: str) -> None:
    from tests.adk.conftest import with_database

    url = with_database(mongo_uri, mongo_db_name)
    sessions = [AimonSessionService.from_url(url), AimonSessionService.from_url(url)]
    artifacts = [AimonArtifactService.from_url(url), AimonArtifactService.from_url(url)]
    runners = [
        Runner(app_name="notes", agent=agent(), session_service=s, artifact_service=a)
        for s, a in zip(sessions, artifacts, strict=True)
    ]
    try:
        await sessions[0].create_session(app_name="notes", user_id="ann", session_id="c1")
        assert await ask(runners[0], "c1", "buy milk") == "noted as version 0"
        assert await ask(runners[1], "c1", "call bob") == "noted as version 1"  # the other node goes on
        stored = await sessions[0].get_session(app_name="notes", user_id="ann", session_id="c1")
        assert stored is not None
        said = [p.text for e in stored.events if e.content for p in e.content.parts or [] if p.text]
        assert said == ["buy milk", "noted as version 0", "call bob", "noted as version 1"]
        assert stored.state["user:notes"] == 2
        scope = {"app_name": "notes", "user_id": "ann", "session_id": "c1", "filename": "notes.txt"}
        assert await artifacts[1].list_versions(**scope) == [0, 1]
        assert await artifacts[0].load_artifact(**scope) == types.Part(text="call bob")
    finally:
        for closing in (*sessions, *artifacts):
            await closing.close()
