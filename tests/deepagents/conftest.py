"""The deepagents backend under test, on memory, a local directory and the GridFS stand-in, sync and async.

``agent`` is an :class:`Agent` view: ``await agent.call("ls", "/")`` runs ``backend.ls`` (in a worker
thread) for the sync flavour and ``backend.als`` for the async one, inside a LangGraph-style run config
for thread ``t-1`` (``agent.thread = ...`` switches). ``agent.vfs`` is the filesystem underneath, with
the async API.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables.config import var_child_runnable_config
from pymongo import AsyncMongoClient

from aimon_mongo.deepagents import AimonBackend
from aimon_mongo.vfs import (
    AsyncGridFSFileSystem,
    AsyncLocalFileSystem,
    AsyncMemoryFileSystem,
    GridFSFileSystem,
    LocalFileSystem,
    MemoryFileSystem,
)
from tests.fixtures.mongo import CLIENT_OPTIONS
from tests.vfs.adapters import Threaded

FLAVOURS = ["memory-sync", "memory-async", "local-sync", "local-async", "gridfs-sync", "gridfs-async"]


class Agent:
    """Calls the backend the way deepagents' tools do, for one flavour, inside a run config."""

    def __init__(self, backend: AimonBackend, vfs: Any, flavour: str) -> None:
        self.backend = backend
        self.vfs = vfs
        self.flavour = flavour
        self.thread = "t-1"

    async def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        token = var_child_runnable_config.set({"configurable": {"thread_id": self.thread}})
        try:
            if self.flavour == "async":
                return await getattr(self.backend, "a" + name)(*args, **kwargs)
            context = contextvars.copy_context()
            return await asyncio.to_thread(context.run, getattr(self.backend, name), *args, **kwargs)
        finally:
            var_child_runnable_config.reset(token)


@pytest.fixture(params=FLAVOURS)
async def agent(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Agent]:
    kind, flavour = str(request.param).split("-")
    client: AsyncMongoClient[Any] | None = None
    raw: Any
    if kind == "memory":
        raw = AsyncMemoryFileSystem() if flavour == "async" else MemoryFileSystem()
    elif kind == "local":
        raw = (AsyncLocalFileSystem if flavour == "async" else LocalFileSystem)(tmp_path / "root")
    elif flavour == "async":
        client = AsyncMongoClient(request.getfixturevalue("mongo_uri"), **CLIENT_OPTIONS)
        raw = AsyncGridFSFileSystem(client, request.getfixturevalue("mongo_db_name"), chunk_size=64)
    else:
        raw = GridFSFileSystem(
            request.getfixturevalue("mongo_client"), request.getfixturevalue("mongo_db_name"), chunk_size=64
        )
    vfs = raw if flavour == "async" else Threaded(raw)
    await vfs.initialize()
    yield Agent(AimonBackend(raw), vfs, flavour)
    await vfs.close()
    if client is not None:
        await client.close()
