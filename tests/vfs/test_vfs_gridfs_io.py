"""GridFS reads and writes as the server sees them: bounded chunk batches (counted by a command listener),
peak memory independent of the file size, nothing created by read-only use, errors that name the
problem, and the conditional write's claim protocol."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path
from typing import Any

import bson
import pytest
from pymongo import AsyncMongoClient, MongoClient, monitoring
from pymongo.synchronous.database import Database

from aimon_mongo._sync.mongo.chunks import BATCH_BYTES
from aimon_mongo.errors import (
    BackendConnectionError,
    BackendUnavailable,
    InvalidArgumentError,
    RevisionMismatchError,
    VfsBackendUnavailable,
)
from aimon_mongo.schema_gate import assert_conforms
from aimon_mongo.vfs import AsyncGridFSFileSystem, GridFSFileSystem
from tests.fixtures.mongo import CLIENT_OPTIONS
from tests.fixtures.tcp_proxy import TcpProxy

MIB = 1024 * 1024


class _ChunkReads(monitoring.CommandListener):
    """Every ``find`` on a ``.chunks`` collection: its limit and the size of its reply."""

    def __init__(self) -> None:
        self.limits: list[int] = []
        self.reply_bytes: list[int] = []
        self._ids: set[int] = set()

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name == "find" and str(event.command.get("find", "")).endswith(".chunks"):
            self._ids.add(event.request_id)
            self.limits.append(int(event.command.get("limit", 0)))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        if event.request_id in self._ids:
            self.reply_bytes.append(len(bson.encode(event.reply)))

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        return None


def test_reads_fetch_bounded_batches_and_only_what_a_range_needs(mongo_uri: str, mongo_db_name: str) -> None:
    listener = _ChunkReads()
    data = os.urandom(12 * MIB)
    with MongoClient(mongo_uri, event_listeners=[listener], **CLIENT_OPTIONS) as client:
        with GridFSFileSystem(client, mongo_db_name, chunk_size=MIB) as fs:
            fs.write("big.bin", data)
            listener.limits.clear()
            listener.reply_bytes.clear()
            assert fs.read("big.bin") == data
            whole = list(listener.limits)
            assert sum(whole) == 12 and max(whole) <= BATCH_BYTES // MIB and len(whole) == 2
            assert max(listener.reply_bytes) < BATCH_BYTES + MIB
            listener.limits.clear()
            assert fs.read_range("big.bin", 5 * MIB + 3, 5 * MIB + 10) == data[5 * MIB + 3 : 5 * MIB + 10]
            assert listener.limits == [1]
            listener.limits.clear()
            fs.write("lines.txt", b"first line\n" + b"x" * (3 * MIB))
            listener.limits.clear()
            assert fs.read_lines("lines.txt", 0, 1).lines == ["first line\n"]
            assert listener.limits == [1]


_PEAK = """
import hashlib, json, resource, sys
from pymongo import MongoClient
from aimon_mongo.vfs import GridFSFileSystem

uri, db, megabytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
block = bytes(range(256)) * 4096  # 1 MiB
with GridFSFileSystem(MongoClient(uri, tz_aware=True), db) as fs:
    fs.write("big.bin", (block for _ in range(megabytes)))
    digest, total = hashlib.sha256(), 0
    with fs.open_input("big.bin") as reader:
        while chunk := reader.read(1024 * 1024):
            digest.update(chunk)
            total += len(chunk)
expected = hashlib.sha256()
for _ in range(megabytes):
    expected.update(block)
print(json.dumps({"bytes": total, "same": digest.hexdigest() == expected.hexdigest(),
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def peak_memory(mongo_uri: str, database: str, megabytes: int) -> dict[str, Any]:
    """Write then stream back a file of ``megabytes`` MiB in a fresh process; its size check and peak RSS."""
    root = Path(__file__).resolve().parents[2]
    finished = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_PEAK), mongo_uri, database, str(megabytes)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=1800,
        check=True,
    )
    result: dict[str, Any] = json.loads(finished.stdout)
    return result


@pytest.mark.slow
def test_peak_memory_does_not_grow_with_the_file_size(mongo_uri: str, mongo_client: MongoClient[Any]) -> None:
    """Two sizes in CI (8 and 64 MiB); ``AIMON_VFS_BIG_MB=200`` runs the 200 MiB size of issue 14."""
    big = int(os.environ.get("AIMON_VFS_BIG_MB", "64"))
    runs = {}
    for megabytes in (8, big):
        database = f"t_peak_{megabytes}_{os.getpid()}"
        try:
            runs[megabytes] = peak_memory(mongo_uri, database, megabytes)
        finally:
            mongo_client.drop_database(database)
        assert runs[megabytes]["bytes"] == megabytes * MIB and runs[megabytes]["same"]
    growth = runs[big]["peak_rss_mib"] - runs[8]["peak_rss_mib"]
    print(f"peak RSS: {runs[8]['peak_rss_mib']:.0f} MiB for 8 MiB, {runs[big]['peak_rss_mib']:.0f} MiB for {big} MiB")
    assert growth < 24, runs


async def test_read_only_use_creates_no_database(mongo_uri: str, mongo_client: MongoClient[Any]) -> None:
    name = f"t_readonly_{os.getpid()}"
    before = set(mongo_client.list_database_names())
    assert name not in before
    with GridFSFileSystem(mongo_client, name) as fs:
        assert fs.ls(".") == [] and fs.ls_info(".") == [] and fs.ls_recursive(".") == []
        assert fs.info(".").is_dir and not fs.exists("a.txt")
        assert fs.find(".", "*.txt") == [] and fs.glob("*.txt") == [] and fs.grep("x").matches == []
        assert fs.usage().file_count == 0
        assert fs.fsck(repair=False).clean
        with pytest.raises(FileNotFoundError):
            fs.read("a.txt")
    client: AsyncMongoClient[Any] = AsyncMongoClient(mongo_uri, **CLIENT_OPTIONS)
    async with AsyncGridFSFileSystem(client, name) as afs:
        assert await afs.ls(".") == [] and (await afs.usage()).total_size == 0
    await client.close()
    assert set(mongo_client.list_database_names()) == before
    try:
        with GridFSFileSystem(mongo_client, name) as fs:
            fs.write("a.txt", b"x")
        assert name in mongo_client.list_database_names()
        index_names = {index["name"] for index in mongo_client[name]["fs.files"].list_indexes()}
        assert {"filename_1_uploadDate_1", "metadata.predecessor_1"} <= index_names
    finally:
        mongo_client.drop_database(name)


async def test_construction_errors_name_the_problem(mongo_uri: str, mongo_client: MongoClient[Any]) -> None:
    with pytest.raises(
        InvalidArgumentError, match=r"takes a MongoClient or Database, got the string 'mongodb://\*\*\*@h/'"
    ):
        GridFSFileSystem("mongodb://user:secret@h/")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="AsyncGridFSFileSystem takes an AsyncMongoClient or AsyncDatabase"):
        AsyncGridFSFileSystem("mongodb://h/")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="got MongoClient of the other flavour: use GridFSFileSystem"):
        AsyncGridFSFileSystem(mongo_client)  # type: ignore[arg-type]
    client: AsyncMongoClient[Any] = AsyncMongoClient(mongo_uri, **CLIENT_OPTIONS)
    with pytest.raises(
        InvalidArgumentError, match="got AsyncMongoClient of the other flavour: use AsyncGridFSFileSystem"
    ):
        GridFSFileSystem(client)  # type: ignore[arg-type]
    await client.close()
    fs = GridFSFileSystem(mongo_client["some_db"], bucket="b")  # a Database is accepted
    assert fs.working_directory == "gridfs://some_db/b"
    with pytest.raises(InvalidArgumentError, match="given with a Database object named 'some_db'"):
        GridFSFileSystem(mongo_client["some_db"], "other")


def test_a_server_going_away_is_backend_unavailable_with_the_cause(mongo_uri: str, mongo_db_name: str) -> None:
    host, port = mongo_uri.split("//", 1)[1].split("/", 1)[0].split(":")
    proxy = TcpProxy(host, int(port))
    try:
        client: MongoClient[Any] = MongoClient(
            f"mongodb://127.0.0.1:{proxy.port}/?directConnection=true",
            serverSelectionTimeoutMS=500,
            connectTimeoutMS=500,
            socketTimeoutMS=2000,
            tz_aware=True,
        )
        with GridFSFileSystem(client, mongo_db_name) as fs:
            fs.write("a.txt", b"x")
            proxy.cut()
            with pytest.raises(VfsBackendUnavailable) as caught:
                fs.read("a.txt")
        client.close()
    finally:
        proxy.restore()
    error = caught.value
    assert isinstance(error, BackendUnavailable) and isinstance(error, BackendConnectionError)
    assert str(error).startswith("Failed to read file: a.txt: MongoDB unreachable (")
    assert error.__cause__ is not None and type(error.__cause__).__name__ in str(error)
    unreachable = GridFSFileSystem(MongoClient("127.0.0.1", 9, serverSelectionTimeoutMS=300))
    with pytest.raises(VfsBackendUnavailable, match="Failed to initialize GridFS filesystem: MongoDB unreachable"):
        unreachable.initialize()
    unreachable.client.close()


def test_file_attributes_are_stored_as_declared(mongo_db: Database[Any]) -> None:
    with GridFSFileSystem(mongo_db.client, mongo_db.name) as fs:
        fs.write("d/a.json", b"{}", attributes={"snapshotSubagentName": "reviewer", "snapshotMessageCount": "3"})
    doc = mongo_db["fs.files"].find_one({"filename": "d/a.json"})
    assert doc["metadata"]["attributes"] == {"snapshotSubagentName": "reviewer", "snapshotMessageCount": "3"}
    assert_conforms("gridfs.file.document", doc)
    assert_conforms("gridfs.file.metadata", doc["metadata"])


def test_a_conditional_write_stores_its_predecessor_and_conforms(mongo_db: Database[Any]) -> None:
    with GridFSFileSystem(mongo_db.client, mongo_db.name) as fs:
        first = fs.write("c.txt", b"one", if_absent=True)
        fs.write("c.txt", b"two", if_revision=first.etag)
    created, replaced = mongo_db["fs.files"].find_one({"filename": "c.txt"}), None
    assert created is not None
    first_id = mongo_db["fs.files"].find_one({"filename": "c.txt"}, sort=[("uploadDate", -1)])
    assert first_id is not None and first_id["metadata"]["predecessor"] != "absent:c.txt"
    assert_conforms("gridfs.file.document", first_id)
    assert mongo_db["fs.files"].count_documents({"filename": "c.txt"}) == 1
    assert replaced is None


def test_a_claim_left_by_a_crashed_writer_is_cleared(mongo_db: Database[Any]) -> None:
    with GridFSFileSystem(mongo_db.client, mongo_db.name) as fs:
        base = fs.write("k.txt", b"base")
        stored = mongo_db["fs.files"].find_one({"filename": "k.txt"})
        assert stored is not None
        crashed = {
            "filename": "k.txt",
            "length": 0,
            "chunkSize": 64,
            "uploadDate": stored["uploadDate"] - timedelta(milliseconds=1),
            "metadata": {"path": "k.txt", "uploadDate": "2020-01-01T00:00:00Z", "predecessor": str(stored["_id"])},
        }
        mongo_db["fs.files"].insert_one(crashed)
        assert fs.read("k.txt") == b"base"  # an unpublished claim is invisible to readers
        fs.write("k.txt", b"after the crash", if_revision=base.etag)  # waits out the stale claim, then wins
        assert fs.read("k.txt") == b"after the crash"
        with pytest.raises(RevisionMismatchError):
            fs.write("k.txt", b"late", if_revision=base.etag)
    assert mongo_db["fs.files"].count_documents({"filename": "k.txt"}) == 1
