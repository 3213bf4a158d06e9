#!/usr/bin/env python3
"""An OpenAI Agents SDK agent served by two session-host processes, its history in the SDK's own MongoDBSession.

    pip install 'aimon-mongo[openai-agents]'  # extras: openai-agents
    python examples/openai_agents_on_host.py

Offline: the model is scripted (a ``Model`` of this file answering from the user's text), so no API key and
no network; tracing is disabled. The script starts two host processes (it runs itself again with
``--node node-a`` and ``--node node-b``), each an ``AsyncSessionHost`` on its own bundle, and submits messages
for two sessions from a pure client. Whoever holds a session runs each message as
``Runner.run(agent, input, session=MongoDBSession(...))``: the conversation history is the SDK's
``MongoDBSession`` (collections ``agent_sessions`` and ``agent_messages``), no adapter of aimon-mongo's. One
message makes the model hang; the script kills that process with SIGKILL in the middle of the turn, the other
process adopts the session once the lease (2 s) lapses, and the message is answered once, in one history.

The turn is idempotent by inbox message id. The SDK writes the user's input to the session before it calls
the model and the answer after it, so a holder killed in between leaves the input without its answer, and
the next holder gets the same message again (its batch was never acknowledged). The user item carries the
message id (key ``aimon_message_id``; ``RunConfig.call_model_input_filter`` drops it from what the model is
sent). Before running, the turn reads the history: the id followed by an answer means done (skip it); the id
without an answer means a holder died mid-turn (run on the stored history, with no new input, which answers
it); no id means a first run.

Fencing: ``MongoDBSession`` writes are not fenced. The host cancels a turn whose lease it loses, but a holder
that was paused (not killed: a long GC, a frozen VM) and resumes can still append to the history after
another node took over. The guard shown here checks that the turn's fencing token still holds the lease
(``leases.find_holder``) before the input is written and again when the model has answered, before the
answer is written; a turn that lost its lease raises instead of writing. It narrows the window to one round
trip, it does not close it: a pause between the check and the SDK's insert still writes, and
``MongoDBSession`` shields its writes from cancellation. docs/openai-agents.md says more.

Runs against AIMON_MONGODB_URI, else MONGODB_URI, or starts the local MongoDB stand-in for the run (offline);
uses a fresh database and drops it at the end. Exits non-zero if a message is lost or answered twice.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

from agents import (
    Agent,
    ModelResponse,
    RunConfig,
    RunContextWrapper,
    RunHooks,
    Runner,
    TResponseInputItem,
    Usage,
    set_tracing_disabled,
)
from agents.extensions.memory import MongoDBSession
from agents.models.interface import Model
from agents.run_config import CallModelData, ModelInputData
from agents.testing import assistant_message
from pymongo import AsyncMongoClient

from aimon_mongo.connection import uri_source
from aimon_mongo.host import AsyncSessionHost, Turn
from aimon_mongo.model import InboundMessage
from aimon_mongo.mongo import AsyncMongoSessionBackends, ensure_schema_async
from aimon_mongo.standin import mongodb_or_standin

SESSIONS = ["trip-1", "trip-2"]
NODES = ["node-a", "node-b"]
TAG = "aimon_message_id"
"""The key of the user item that carries the inbox message id (stripped from what the model is sent)."""
SLOW = "(the model hangs on this one)"
HOST_OPTIONS: dict[str, Any] = {"lease_ttl": timedelta(seconds=2), "scan_interval": timedelta(seconds=0.5)}


# --- the host processes --------------------------------------------------------------------------------


class CannedModel(Model):
    """A scripted model: answers the latest user text, numbering the user's questions it was sent (so the
    answer shows the whole history reached it, whichever node wrote it). With ``hang`` set it signals
    ``hang`` (a file) and waits for ever on a message containing ``SLOW``: the turn stays in the middle."""

    def __init__(self, node: str, hang: Path | None) -> None:
        self.node = node
        self.hang = hang

    async def get_response(
        self, system_instructions: str | None, input: str | list[Any], *args: Any, **kwargs: Any
    ) -> ModelResponse:
        items = [{"role": "user", "content": input}] if isinstance(input, str) else input
        if any(TAG in item for item in items if isinstance(item, dict)):
            raise AssertionError(f"{TAG} reached the model")  # call_model_input_filter drops it
        questions = [item["content"] for item in items if isinstance(item, dict) and item.get("role") == "user"]
        text = str(questions[-1])
        if self.hang is not None and SLOW in text:
            signal_file = self.hang.with_suffix(".tmp")
            signal_file.write_text(self.node, encoding="utf-8")
            signal_file.replace(self.hang)  # the parent polls for it, then kills this process
            await asyncio.Event().wait()
        reply = f"#{len(questions)} from {self.node}: noted {text.split(': ', 1)[-1]!r}"
        return ModelResponse(output=[assistant_message(reply, item_id=f"msg_{uuid.uuid4().hex}")], usage=Usage(),
                             response_id=None)  # fmt: skip

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("this example runs Runner.run, not Runner.run_streamed")


class LeaseLost(RuntimeError):
    """The turn's fencing token no longer holds the session's lease: another node may be writing."""


async def still_held(turn: Turn) -> None:
    """The guard before a write the store does not fence: the session's live lease is still this turn's."""
    assert turn.backends is not None
    holder = await turn.backends.leases.find_holder(turn.session_id)
    if holder is None or holder.fencing_token != turn.fencing_token:
        raise LeaseLost(f"session {turn.session_id}: token {turn.fencing_token} no longer holds the lease")


class LeaseGuard(RunHooks[Any]):
    """Checks the lease when the model has answered, before the Runner writes the answer to the session."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn

    async def on_llm_end(self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse) -> None:
        await still_held(self.turn)


def untagged(data: CallModelData[Any]) -> ModelInputData:
    """``RunConfig.call_model_input_filter``: the model is sent the items without our key."""
    items = [cast(TResponseInputItem, {k: v for k, v in item.items() if k != TAG}) for item in data.model_data.input]
    return ModelInputData(input=items, instructions=data.model_data.instructions)


def is_answer(item: Any) -> bool:
    return isinstance(item, dict) and item.get("role") == "assistant" and item.get("type") == "message"


async def answer(turn: Turn, message: InboundMessage, session: MongoDBSession, model: Model) -> str:
    """Answer one inbox message exactly once into the session's history; what was done."""
    history = await session.get_items()
    at = next((i for i, item in enumerate(history) if item.get(TAG) == message.id), None)
    if at is not None and any(is_answer(item) for item in history[at + 1 :]):
        return "skipped"  # answered by a turn that died before its acknowledgement
    await still_held(turn)  # before the Runner writes the input
    agent: Agent[Any] = Agent(name="travel-assistant", instructions="Note the traveller's wishes.", model=model)
    config = RunConfig(call_model_input_filter=untagged, tracing_disabled=True)
    if at is not None:  # the input is stored, its answer is not: a holder died mid-turn; answer the history
        await Runner.run(agent, [], session=session, hooks=LeaseGuard(turn), run_config=config)
        return "resumed"
    item = cast(TResponseInputItem, {"role": "user", "content": message.user_input.as_text(), TAG: message.id})
    await Runner.run(agent, [item], session=session, hooks=LeaseGuard(turn), run_config=config)
    return "answered"


async def serve(node: str, database: str, scratch: Path) -> None:
    """One host process: serve sessions until SIGTERM (then drain), logging each message's outcome."""
    set_tracing_disabled(True)
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(os.environ["AIMON_MONGODB_URI"], tz_aware=True)
    backends = AsyncMongoSessionBackends(client[database], node)
    log = (scratch / f"{node}.jsonl").open("a", encoding="utf-8")

    async def handle(turn: Turn) -> None:
        session = MongoDBSession(turn.session_id, client=client, database=database)
        for message in turn.messages:
            assert message.id is not None
            first = turn.attempts.get(message.id, 1) == 1
            model = CannedModel(node, hang=scratch / "hung" if first else None)
            outcome = await answer(turn, message, session, model)
            event = {"node": node, "session": turn.session_id, "id": message.id, "outcome": outcome,
                     "attempt": turn.attempts.get(message.id, 1), "token": turn.fencing_token}  # fmt: skip
            log.write(json.dumps(event) + "\n")
            log.flush()

    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    try:
        async with AsyncSessionHost(backends, handler=handle, **HOST_OPTIONS):
            print("ready", flush=True)
            await stop.wait()  # leaving the block drains: finish, acknowledge, release, YIELD
    finally:
        await backends.close()
        await client.close()
        log.close()


# --- the client, and the checks ------------------------------------------------------------------------


async def until(done: Callable[[], Awaitable[bool]], what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not await done():
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up waiting: {what}")
        await asyncio.sleep(0.05)


async def start_node(name: str, database: str, scratch: Path, uri: str) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        sys.executable, os.path.abspath(__file__), "--node", name, "--database", database, "--scratch", str(scratch),
        env={**os.environ, "AIMON_MONGODB_URI": uri, "OPENAI_AGENTS_DISABLE_TRACING": "1"},
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), 120)
    if line.strip() != b"ready":
        raise SystemExit(f"{name} did not start (exit code {await process.wait()})")
    return process


def events(scratch: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for node in NODES if (scratch / f"{node}.jsonl").exists()
            for line in (scratch / f"{node}.jsonl").read_text(encoding="utf-8").splitlines()]  # fmt: skip


async def histories(client: AsyncMongoClient[dict[str, Any]], database: str) -> dict[str, list[Any]]:
    """Every session's history, read back through the SDK's own MongoDBSession."""
    return {s: await MongoDBSession(s, client=client, database=database).get_items() for s in SESSIONS}


async def run(client: AsyncMongoClient[dict[str, Any]], uri: str, database: str, scratch: Path) -> bool:
    front = AsyncMongoSessionBackends(client[database], "front")
    started = await asyncio.gather(*(start_node(name, database, scratch, uri) for name in NODES))
    processes = dict(zip(NODES, started, strict=True))
    sent: dict[str, str] = {}  # inbox entry id -> session

    async def no_turns(turn: Turn) -> None:
        raise AssertionError("a pure client runs no turn")

    async def all_acknowledged() -> bool:
        return all([await front.inbox.is_empty(session) for session in SESSIONS])

    try:
        async with AsyncSessionHost(front, handler=no_turns, max_sessions=0) as submitter:

            async def send(session: str, text: str) -> None:
                entry_id = await submitter.submit(InboundMessage.text(session, text, agent_ref="travel-assistant"))
                assert entry_id is not None
                sent[entry_id] = session

            for session in SESSIONS:
                await send(session, f"{session}: I want to see Lisbon")
            await until(all_acknowledged, "the first messages answered")
            await send(SESSIONS[0], f"{SESSIONS[0]}: a window seat, please {SLOW}")
            hung = scratch / "hung"

            async def hanging() -> bool:
                return hung.exists()

            await until(hanging, "the model to hang on the marked message")
            victim = hung.read_text(encoding="utf-8")
            processes[victim].send_signal(signal.SIGKILL)
            await processes[victim].wait()
            print(f"{victim} held {SESSIONS[0]} and hung in the model mid-turn: killed it with SIGKILL")
            for session in SESSIONS:
                await send(session, f"{session}: and back on Sunday")
            await until(all_acknowledged, "every message answered", 90)
        survivor = next(name for name in NODES if name != victim)
        processes[survivor].send_signal(signal.SIGTERM)
        drained = await asyncio.wait_for(processes[survivor].wait(), 60)
    finally:
        for process in processes.values():
            if process.returncode is None:
                process.kill()
                await process.wait()
        await front.close()

    answers: Counter[str] = Counter()
    inputs: Counter[str] = Counter()
    for session, items in (await histories(client, database)).items():
        print(f"history of {session}: {len(items)} items")
        current = None
        for item in items:
            if TAG in item:
                current = item[TAG]
                inputs[current] += 1
                print(f"  user:      {item['content']}")
            elif is_answer(item) and current is not None:
                answers[current] += 1
                print(f"  assistant: {item['content'][0]['text']}")
    resumed = [e for e in events(scratch) if e["outcome"] == "resumed"]  # the stored question, answered
    for e in resumed:
        print(f"killed {victim} mid-turn; {e['node']} adopted {e['session']} "
              f"(attempt {e['attempt']}, fencing token {e['token']}): the stored question answered once")  # fmt: skip
    lost = [entry for entry in sent if answers[entry] == 0]
    twice = [entry for entry in sent if answers[entry] > 1 or inputs[entry] > 1]
    print(f"{len(sent)} messages sent, {len(sent) - len(lost)} answered")
    print(f"answered more than once: {len(twice)}")
    print(f"{survivor} drained on SIGTERM with exit code {drained}")
    adopted = [e["node"] for e in resumed] == [survivor]
    return not lost and not twice and set(answers) == set(sent) and drained == 0 and adopted


async def amain() -> None:
    database = f"aimon_example_{uuid.uuid4().hex[:8]}"
    with mongodb_or_standin() as (uri, server), tempfile.TemporaryDirectory() as scratch:
        print(f"MongoDB: {'local stand-in' if server else uri_source()}; database {database}")
        client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(uri, tz_aware=True)
        try:
            await ensure_schema_async(client[database])  # once per deployment (or apply db/mongodb/init.js)
            ok = await run(client, uri, database, Path(scratch))
        finally:
            await client.drop_database(database)
            await client.close()
    if not ok:
        raise SystemExit("a message was lost or answered more than once")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--node", help="run as this host process (the script starts them itself)")
    parser.add_argument("--database")
    parser.add_argument("--scratch", type=Path)
    args = parser.parse_args()
    if args.node:
        asyncio.run(serve(args.node, args.database, args.scratch))
    else:
        asyncio.run(amain())
