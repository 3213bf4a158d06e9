#!/usr/bin/env python3
"""A Google ADK agent served by two session-host processes: one is killed mid-turn, and every message is still
answered once, in one ADK history per session.

    pip install 'aimon-mongo[adk]'           # extras: adk
    python examples/adk_on_host.py

Offline: the model is scripted (an ADK ``BaseLlm`` that calls a tool and answers from the user's text), so no
API key and no network. The script starts node-a and node-b, each an ``AsyncSessionHost`` in a process of its
own (this file run again with ``--node``), and is itself the third node: a pure client (``max_sessions=0``)
that submits messages for two sessions. Each turn runs the ADK ``Runner`` for its session (the ADK session id
is the host session id) on ``AimonSessionService`` (the history) and ``AimonArtifactService`` (the tool saves
one note per message). The node that reaches the message marked ``#hold`` first stops inside that turn, after
ADK stored the user event and before the answer; the script kills that process with SIGKILL. The other host
adopts the session once the lease lapses (``lease_ttl`` 2 s, a scan every 0.25 s) and answers the message.

Why the turn looks before it runs: the host delivers at least once. A batch is removed only by the
acknowledgement that follows the handler's return, so a turn cut before it (a killed node, a lost lease, a
handler that raised) comes again, whole, to the next holder. The turn is made idempotent by message: the
ADK invocation id is the inbox entry id (``inbox-<id>``), so before running the agent the handler looks for
an answer of that invocation in the session's events and skips the message if there is one; when only the
user event is there, ADK 2.13's Runner resumes that invocation without storing the user event again; and
the tool saves its note only if the note is not there yet. A writer that is not the current one is refused
rather than trusted: the host claims and acknowledges under the lease's fencing token and cancels a turn
whose lease is lost, and ``AimonSessionService`` refuses an append from a session copy that is no longer the stored
revision, or made while another writer appends, with ADK's ``StaleSessionError``; the handler lets it raise,
and the batch comes again (after ``retry_backoff``) to a turn that reloads the session and finds the answer.

Runs against AIMON_MONGODB_URI, else MONGODB_URI, or starts the local MongoDB stand-in for the run (the
in-memory one: three processes share it); uses a fresh database and drops it at the end. Exits non-zero if a
message is lost or answered twice.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from google.adk.agents import Agent
from google.adk.events.event import Event
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.tools.tool_context import ToolContext
from google.genai import types
from pymongo import AsyncMongoClient

from aimon_mongo.adk import AimonArtifactService, AimonSessionService
from aimon_mongo.connection import resolve_mongodb_uri, uri_source
from aimon_mongo.host import AsyncSessionHost, Turn
from aimon_mongo.model import InboundMessage, Principal
from aimon_mongo.mongo import AsyncMongoSessionBackends, ensure_schema_async
from aimon_mongo.standin import mongodb_or_standin

APP, USER, AGENT = "trips", "ann", "planner"
NODES = ("node-a", "node-b")
HOLD = " #hold"
"""A message ending so stops the first node that reaches it inside its turn, until the script kills it."""
ROUNDS = [
    {"trip-1": "Find a flight to Lisbon", "trip-2": "Find a hotel in Porto"},
    {"trip-1": "Book the morning flight", "trip-2": "Book two nights" + HOLD},
    {"trip-1": "Add a window seat", "trip-2": "Add breakfast"},
]
HOST_OPTIONS: dict[str, Any] = {
    "lease_ttl": timedelta(seconds=2),  # a killed holder's sessions are adopted within lease_ttl + scan_interval
    "scan_interval": timedelta(seconds=0.25),
    "retry_backoff": timedelta(milliseconds=500),  # a turn refused with StaleSessionError comes again after this
    "max_attempts": 10,
}


# --- the agent (the same in every node) --------------------------------------------------------------------


def mid_turn_file(work: str) -> Path:
    return Path(work) / "mid-turn"


def claim_the_crash(work: str, node: str) -> bool:
    """True for the first node to reach the held message (an exclusive create; it writes its name)."""
    try:
        descriptor = os.open(mid_turn_file(work), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return False
    with os.fdopen(descriptor, "w") as out:
        out.write(node + "\n")
    return True


class ScriptedModel(BaseLlm):
    """Offline model: for a new user message it calls ``save_note`` with the text, then answers from the tool's
    result. The first node to reach a message ending in ``HOLD`` waits there to be killed (mid-turn: ADK
    has stored the user event, not the answer)."""

    model: str = "scripted"
    node: str = ""
    work: str = ""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1]
        done = next((part.function_response for part in last.parts or [] if part.function_response), None)
        usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=1, candidates_token_count=1)
        if done is None:
            text = "".join(part.text or "" for part in last.parts or [])
            if text.endswith(HOLD) and claim_the_crash(self.work, self.node):
                await asyncio.Event().wait()  # here until SIGKILL
            call = types.FunctionCall(name="save_note", args={"text": text.removesuffix(HOLD)})
            content = types.Content(role="model", parts=[types.Part(function_call=call)])
            yield LlmResponse(content=content, usage_metadata=usage)
        else:
            result = done.response or {}
            reply = f"Done: {str(result['text']).lower()} (noted in {result['file']})"
            content = types.Content(role="model", parts=[types.Part(text=reply)])
            yield LlmResponse(content=content, usage_metadata=usage, custom_metadata={"node": self.node})


async def save_note(text: str, tool_context: ToolContext) -> dict[str, str]:
    """Keep ``text`` as this message's note; a message run again (after a crash) keeps the note it has."""
    filename = f"note-{tool_context.invocation_id}.txt"
    if filename not in await tool_context.list_artifacts():
        await tool_context.save_artifact(filename, types.Part(text=text))
    return {"text": text, "file": filename}


def invocation_of(entry_id: str) -> str:
    """The ADK invocation id of an inbox entry: the message's identity in the ADK history."""
    return f"inbox-{entry_id}"


def is_answer(event: Event) -> bool:
    """The agent's reply: its text, no tool call left to make (an error event is no answer)."""
    parts = event.content.parts or [] if event.content else []
    return event.author == AGENT and not event.get_function_calls() and any(part.text for part in parts)


def is_question(event: Event) -> bool:
    parts = event.content.parts or [] if event.content else []
    return event.author == "user" and any(part.text for part in parts)


async def answer(runner: Runner, sessions: AimonSessionService, session_id: str, message: InboundMessage) -> None:
    """Answer one inbox message in its ADK session, unless an earlier turn already did (at-least-once)."""
    assert message.id is not None  # stamped by the inbox
    invocation = invocation_of(message.id)
    session = await sessions.get_session(app_name=APP, user_id=message.initiator.id, session_id=session_id)
    if session is None:
        raise LookupError(f"no ADK session {session_id!r}")
    if any(event.invocation_id == invocation and is_answer(event) for event in session.events):
        return  # answered by a turn that was cut before its acknowledgement: acknowledge, do not answer again
    said = types.Content(role="user", parts=[types.Part(text=message.user_input.as_text())])
    # the same invocation id again: a user event already stored for it is not stored twice, the run resumes
    async for _ in runner.run_async(
        user_id=message.initiator.id, session_id=session_id, invocation_id=invocation, new_message=said
    ):
        pass


async def serve(node: str, database: str, work: str) -> None:
    """One node: a session host whose turns run the ADK agent; SIGTERM drains it."""
    uri = resolve_mongodb_uri()
    assert uri is not None, "the script passes AIMON_MONGODB_URI to its nodes"
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    # a node killed inside an append keeps out the session's other writers for write_lease_ttl (the adopter's
    # append waits for it to lapse): 2 s keeps that wait short
    sessions = AimonSessionService.from_url(uri, database=database, node_id=node, write_lease_ttl=timedelta(seconds=2))
    artifacts = AimonArtifactService.from_url(uri, database=database)
    agent = Agent(name=AGENT, model=ScriptedModel(node=node, work=work), instruction="Plan trips.", tools=[save_note])
    runner = Runner(app_name=APP, agent=agent, session_service=sessions, artifact_service=artifacts)

    async def handle(turn: Turn) -> None:
        for message in turn.messages:  # priority, then arrival order; acknowledged when this returns
            await answer(runner, sessions, turn.session_id, message)

    try:
        async with (
            AsyncMongoSessionBackends.from_uri(uri, node_id=node, database=database) as backends,
            AsyncSessionHost(backends, handler=handle, **HOST_OPTIONS),
        ):
            print("ready", flush=True)
            await stop.wait()
    finally:
        await runner.close()
        await sessions.close()
        await artifacts.close()


# --- the script: a pure client, two node processes, one kill -----------------------------------------------


def start_node(node: str, uri: str, database: str, work: str) -> subprocess.Popen[str]:
    env = {**os.environ, "AIMON_MONGODB_URI": uri}  # the URI goes by environment, never on a command line
    process = subprocess.Popen(
        [sys.executable, __file__, "--node", node, database, work], env=env, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    if process.stdout.readline().strip() != "ready":
        raise SystemExit(f"{node} did not start (exit code {process.wait(30)})")
    return process


async def until(done: Callable[[], Awaitable[bool]], what: str, nodes: dict[str, Any], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not await done():
        for name, process in nodes.items():
            if process.poll() is not None:
                raise SystemExit(f"{name} exited ({process.returncode}) while waiting for {what}")
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up waiting: {what}")
        await asyncio.sleep(0.05)


async def never(turn: Turn) -> None:
    raise AssertionError("a pure client runs no turn")


def text_of(event: Event) -> str:
    return "".join(part.text or "" for part in (event.content.parts or [] if event.content else []))


@dataclass
class Demo:
    """What the script sent and did, and the stores it reads them back from."""

    sessions: AimonSessionService
    artifacts: AimonArtifactService
    front: AsyncMongoSessionBackends
    work: str
    sent: dict[str, tuple[str, str]] = field(default_factory=dict)
    """inbox entry id -> (session, text), in the order sent"""

    async def histories(self) -> dict[str, list[Event]]:
        found = {}
        for session_id in ROUNDS[0]:
            session = await self.sessions.get_session(app_name=APP, user_id=USER, session_id=session_id)
            assert session is not None
            found[session_id] = session.events
        return found

    async def answers(self) -> dict[str, list[Event]]:
        """Per entry sent, the answers its ADK session holds for it."""
        found: dict[str, list[Event]] = {entry: [] for entry in self.sent}
        for session_id, events in (await self.histories()).items():
            for event in events:
                entry = event.invocation_id.removeprefix("inbox-")
                if is_answer(event) and entry in found and self.sent[entry][0] == session_id:
                    found[entry].append(event)
        return found

    async def all_answered(self) -> bool:
        return all((await self.answers()).values())

    async def at_the_hold(self) -> bool:
        crash = mid_turn_file(self.work)
        return crash.exists() and crash.read_text().endswith("\n")  # the node's name is written whole

    def held(self) -> tuple[str, str]:
        """(entry id, session) of the held message."""
        return next((entry, session) for entry, (session, text) in self.sent.items() if text.endswith(HOLD))


async def drive(demo: Demo, uri: str, database: str) -> list[str]:
    """Start the nodes, send the rounds, kill the node at the hold; the facts to print and check."""
    nodes = {node: start_node(node, uri, database, demo.work) for node in NODES}
    try:
        async with AsyncSessionHost(demo.front, handler=never, max_sessions=0) as client:

            async def send(round_: int) -> None:
                for session_id, text in ROUNDS[round_].items():
                    message = InboundMessage.text(session_id, text, agent_ref=AGENT, initiator=Principal.user(USER))
                    entry = await client.submit(message)
                    assert entry is not None
                    demo.sent[entry] = (session_id, text)

            await send(0)
            await until(demo.all_answered, "the first answers", nodes)
            await send(1)
            await until(demo.at_the_hold, "a node at the held message", nodes)
            victim = mid_turn_file(demo.work).read_text().strip()
            nodes.pop(victim).send_signal(signal.SIGKILL)
            killed_at = time.time()
            entry, held = demo.held()
            stored = (await demo.histories())[held]
            mid_turn = [e.author for e in stored if e.invocation_id == invocation_of(entry) and text_of(e)]
            await send(2)
            await until(demo.all_answered, "every answer", nodes)
            (survivor,) = nodes
            holder = await demo.front.leases.find_holder(held)
            nodes[survivor].send_signal(signal.SIGTERM)  # drain: finish, acknowledge, release
            if nodes[survivor].wait(60) != 0:
                raise SystemExit(f"{survivor} did not drain cleanly")
    finally:
        for process in nodes.values():
            if process.poll() is None:
                process.kill()
                process.wait(30)
    found = (await demo.answers())[entry]
    by = [(event.custom_metadata or {}).get("node") for event in found]
    after = f"{found[0].timestamp - killed_at:.1f} s after the kill" if found else "never"
    print(f"killed {victim} mid-turn (the held message's stored events then: {mid_turn}); {survivor} adopted {held}")
    print(f"the held message was answered {len(found)} time(s), by {by}, {after} (lease_ttl 2 s)")
    problems = []
    if mid_turn != ["user"]:
        problems.append(f"the kill did not land mid-turn: {mid_turn}")
    if victim == survivor or by != [survivor] or holder is None or holder.holder_id != survivor:
        problems.append(f"{held} was not adopted and answered by {survivor}")
    return problems


async def check(demo: Demo) -> list[str]:
    """Print what the stores hold; the problems found (none when every message was answered once)."""
    problems = []
    answers = await demo.answers()
    print(f"{len(demo.sent)} messages sent, {sum(1 for found in answers.values() if found)} answered")
    twice = sum(1 for found in answers.values() if len(found) > 1)
    print(f"answered more than once: {twice}")
    histories = await demo.histories()
    asked = [event.invocation_id for events in histories.values() for event in events if is_question(event)]
    print(f"user messages stored more than once: {len(asked) - len(set(asked))}")
    if not all(answers.values()) or twice or sorted(asked) != sorted(invocation_of(entry) for entry in demo.sent):
        problems.append("a message is lost or duplicated")
    for session_id, events in histories.items():
        said = [event for event in events if is_question(event) or is_answer(event)]
        print(f"history of {session_id}: {' > '.join('user' if is_question(event) else 'agent' for event in said)}")
        for event in said:
            who = "user" if is_question(event) else f"agent@{(event.custom_metadata or {}).get('node')}"
            print(f"  {who}: {text_of(event)}")
        expected = [invocation_of(e) for e, (session, _) in demo.sent.items() if session == session_id for _ in "qa"]
        if [event.invocation_id for event in said] != expected:
            problems.append(f"the history of {session_id} is not each message followed by its answer")
    notes = []
    for session_id in ROUNDS[0]:
        scope = {"app_name": APP, "user_id": USER, "session_id": session_id}
        for filename in await demo.artifacts.list_artifact_keys(**scope):
            notes.append(await demo.artifacts.list_versions(**scope, filename=filename))
    print(f"notes saved as artifacts: {len(notes)}, each saved once: {all(v == [0] for v in notes)}")
    if len(notes) != len(demo.sent) or any(versions != [0] for versions in notes):
        problems.append("the notes are not one per message")
    for session_id in ROUNDS[0]:
        if not await demo.front.inbox.is_empty(session_id):
            problems.append(f"the inbox of {session_id} still has entries")
    return problems


async def amain() -> None:
    database = f"aimon_example_{uuid.uuid4().hex[:8]}"
    with mongodb_or_standin() as (uri, server), tempfile.TemporaryDirectory(prefix="adk-on-host-") as work:
        print(f"MongoDB: {'local stand-in' if server else uri_source()}; database {database}")
        client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(uri, tz_aware=True)
        demo = Demo(
            AimonSessionService.from_url(uri, database=database, node_id="front"),
            AimonArtifactService.from_url(uri, database=database),
            AsyncMongoSessionBackends(client[database], "front"),
            work,
        )
        try:
            await ensure_schema_async(client[database])  # once per deployment (or apply db/mongodb/init.js)
            for session_id in ROUNDS[0]:  # the front end opens the conversations
                await demo.sessions.create_session(app_name=APP, user_id=USER, session_id=session_id)
            problems = await drive(demo, uri, database)
            problems += await check(demo)
        finally:
            await demo.sessions.close()
            await demo.artifacts.close()
            await demo.front.close()
            await client.drop_database(database)
            await client.close()
    if problems:
        raise SystemExit("; ".join(problems))
    print("every message answered exactly once")


if __name__ == "__main__":
    logging.getLogger("google_adk").setLevel(logging.ERROR)
    if sys.argv[1:2] == ["--node"]:
        asyncio.run(serve(*sys.argv[2:5]))
    else:
        asyncio.run(amain())
