"""Filesystem fixtures: every contract test runs once per backend flavour.

``make_fs(max_file_size=None, chunk_size=None)`` returns an initialised filesystem with the async API
(sync flavours through :class:`tests.vfs.adapters.Threaded`); everything it made is closed afterwards.
GridFS flavours use the test's own database on the MongoDB stand-in.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pymongo import AsyncMongoClient, MongoClient

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

BACKENDS = ["memory-async", "memory-sync", "local-async", "local-sync", "gridfs-async", "gridfs-sync"]
SMALL_CHUNK = 256


def _bucket(counter: int) -> str:
    return "fs" if counter == 1 else f"fs{counter}"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def make_fs(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    made: list[Any] = []
    clients: list[AsyncMongoClient[Any]] = []
    counter = 0

    async def make(max_file_size: int | None = None, chunk_size: int | None = None) -> Any:
        nonlocal counter
        counter += 1
        kind, flavour = backend.split("-")
        if kind == "memory":
            raw: Any = (AsyncMemoryFileSystem if flavour == "async" else MemoryFileSystem)(max_file_size)
        elif kind == "local":
            base = tmp_path / f"root{counter}"
            raw = (AsyncLocalFileSystem if flavour == "async" else LocalFileSystem)(base, max_file_size)
        elif flavour == "async":
            if not clients:
                clients.append(AsyncMongoClient(request.getfixturevalue("mongo_uri"), **CLIENT_OPTIONS))
            client: AsyncMongoClient[Any] = clients[0]
            raw = AsyncGridFSFileSystem(
                client,
                request.getfixturevalue("mongo_db_name"),
                _bucket(counter),
                chunk_size or SMALL_CHUNK,
                max_file_size,
            )
        else:
            sync_client: MongoClient[Any] = request.getfixturevalue("mongo_client")
            raw = GridFSFileSystem(
                sync_client,
                request.getfixturevalue("mongo_db_name"),
                _bucket(counter),
                chunk_size or SMALL_CHUNK,
                max_file_size,
            )
        fs = raw if flavour == "async" else Threaded(raw)
        await fs.initialize()
        made.append(fs)
        return fs

    yield make
    for fs in made:
        await fs.close()
    for client in clients:
        await client.close()


@pytest.fixture
async def fs(make_fs: Any) -> Any:
    return await make_fs()
