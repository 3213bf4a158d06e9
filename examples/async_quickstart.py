#!/usr/bin/env python3
"""The async API (native asyncio on PyMongo's AsyncMongoClient): inbox, lease, files, snapshot.

    pip install aimon-mongo                  # extras: none
    python examples/async_quickstart.py

Runs against AIMON_MONGODB_URI, else MONGODB_URI, or starts the local MongoDB stand-in for the run; uses a
fresh database and drops it at the end.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

from pymongo import AsyncMongoClient

from aimon_mongo.connection import uri_source
from aimon_mongo.model import InboundMessage, Principal, TextInput
from aimon_mongo.mongo import AsyncMongoSessionBackends, ensure_schema_async
from aimon_mongo.snapshots import AsyncVfsSessionSnapshotStore, Message, Role, SessionSnapshot, TextBlock
from aimon_mongo.standin import mongodb_or_standin
from aimon_mongo.vfs import AsyncGridFSFileSystem


async def run(uri: str, database: str) -> None:
    client: AsyncMongoClient[dict[str, object]] = AsyncMongoClient(uri, tz_aware=True)
    try:
        db = client[database]
        await ensure_schema_async(db)
        node = AsyncMongoSessionBackends(db, "node-1")
        try:
            request = InboundMessage(
                session_id="c-1",
                agent_ref="assistant",
                user_input=TextInput(text="hi"),
                initiator=Principal.user("carol"),
                delivered_at=datetime.now(UTC),
            )
            entry = await node.inbox.deliver(request)
            lease = await node.leases.try_acquire("c-1", "node-1", timedelta(seconds=30))
            assert lease is not None
            batch = await node.inbox.collect("c-1")
            print(f"delivered {entry}; lease token {lease.fencing_token}; collected {len(batch.messages)}")
            await node.records.merge_transcript("c-1", "[]", lease.fencing_token)  # a fenced write
            await node.leases.release(lease)
        finally:
            await node.close()

        async with AsyncGridFSFileSystem(client, database) as fs:
            await fs.write("workspace/c-1/answer.md", "hello back\n")
            print("files:", [info.path async for info in fs.walk(".")])
            store = AsyncVfsSessionSnapshotStore(fs)
            snapshot = SessionSnapshot.of_messages("c-1", [Message(role=Role.USER, content=(TextBlock(text="hi"),))])
            await store.save("task-1", "assistant", "agent:assistant:c-1", snapshot)
            loaded = await store.load("task-1")
            assert loaded is not None
            print(f"snapshot of task-1: {loaded.snapshot.message_count} message, context {loaded.agent_runtime_id}")
        await client.drop_database(database)
    finally:
        await client.close()


def main() -> None:
    database = f"aimon_example_{uuid.uuid4().hex[:8]}"
    with mongodb_or_standin() as (uri, server):
        print(f"MongoDB: {'local stand-in' if server else uri_source()}; database {database}")
        asyncio.run(run(uri, database))


if __name__ == "__main__":
    main()
