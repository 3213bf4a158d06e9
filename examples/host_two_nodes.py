#!/usr/bin/env python3
"""Two session hosts and a client: every session runs on one node, and a drained node hands its sessions on.

    pip install aimon-mongo                  # extras: none
    python examples/host_two_nodes.py

node-a and node-b each run an AsyncSessionHost (in one process here; one per machine in production); a
third node is a pure client (max_sessions=0) that submits messages for four sessions. Whoever is free adopts
a session; its turns get the messages in priority then arrival order and acknowledge them when the handler
returns. Halfway, node-a drains, as on a rolling restart: it finishes its turns, releases its leases and
signals YIELD, and node-b adopts its sessions at once. Runs against AIMON_MONGODB_URI, else MONGODB_URI,
or starts the local MongoDB stand-in for the run (offline); uses a fresh database and drops it at the end.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from datetime import timedelta
from typing import Any

from pymongo import AsyncMongoClient

from aimon_mongo.connection import uri_source
from aimon_mongo.host import AsyncSessionHost, Turn
from aimon_mongo.model import InboundMessage
from aimon_mongo.mongo import AsyncMongoSessionBackends, ensure_schema_async
from aimon_mongo.standin import mongodb_or_standin

SESSIONS = ["trip-1", "trip-2", "trip-3", "trip-4"]


async def until(done: Any, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up waiting: {what}")
        await asyncio.sleep(0.05)


async def run(database: Any) -> None:
    handled: Counter[str] = Counter()
    holders: dict[str, set[str]] = {}

    def handler_of(node: str) -> Any:
        async def handle(turn: Turn) -> None:
            for message in turn.messages:
                handled[message.user_input.as_text()] += 1
            holders.setdefault(turn.session_id, set()).add(node)

        return handle

    options: dict[str, Any] = {"lease_ttl": timedelta(seconds=5), "idle_release": timedelta(minutes=5)}
    node_a = AsyncMongoSessionBackends(database, "node-a")
    node_b = AsyncMongoSessionBackends(database, "node-b")
    front = AsyncMongoSessionBackends(database, "front")
    host_a = AsyncSessionHost(node_a, handler=handler_of("node-a"), **options)
    try:
        await host_a.start()
        async with (
            AsyncSessionHost(node_b, handler=handler_of("node-b"), **options) as host_b,
            AsyncSessionHost(front, handler=handler_of("front"), max_sessions=0) as client,
        ):
            sent = []
            for round_ in range(2):
                for session in SESSIONS:
                    text = f"{session} message {round_}"
                    await client.submit(InboundMessage.text(session, text, agent_ref="planner"))
                    sent.append(text)
            await until(lambda: len(handled) == len(sent), "the first messages handled")
            print(f"before the drain: node-a holds {host_a.sessions}, node-b holds {host_b.sessions}")

            await host_a.drain()  # a rolling restart: finish, acknowledge, release, YIELD
            print(f"node-a drained; node-b holds {len(host_b.sessions)} of {len(SESSIONS)} sessions")
            for session in SESSIONS:
                text = f"{session} message 2"
                await client.submit(InboundMessage.text(session, text, agent_ref="planner"))
                sent.append(text)
            await until(lambda: len(handled) == len(sent), "every message handled")
            twice = [text for text, count in handled.items() if count > 1]
            print(f"{len(sent)} messages sent, {len(handled)} handled, {len(twice)} twice")
            print(f"after the drain every session runs on node-b: {sorted(host_b.sessions) == SESSIONS}")
    finally:
        await host_a.drain()
        for node in (node_a, node_b, front):
            await node.close()


async def amain() -> None:
    database = f"aimon_example_{uuid.uuid4().hex[:8]}"
    with mongodb_or_standin() as (uri, server):
        print(f"MongoDB: {'local stand-in' if server else uri_source()}; database {database}")
        client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(uri, tz_aware=True)
        try:
            await ensure_schema_async(client[database])  # once per deployment (or apply db/mongodb/init.js)
            await run(client[database])
        finally:
            await client.drop_database(database)
            await client.close()


if __name__ == "__main__":
    asyncio.run(amain())
