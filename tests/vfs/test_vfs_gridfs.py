"""GridFS specifics, both flavours, checked against the raw bucket: buckets written without markers,
upload-then-retire, clock skew, fsck, the O(children) listing, client ownership."""

from __future__ import annotations

import inspect
import io
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from bson import ObjectId
from gridfs import GridFSBucket
from pymongo import AsyncMongoClient, MongoClient
from pymongo.errors import InvalidOperation
from pymongo.synchronous.database import Database

from aimon_mongo.errors import BackendConnectionError, FileReplacedError, RevisionMismatchError
from aimon_mongo.mongo.command_log import CommandLog
from aimon_mongo.vfs import AsyncGridFSFileSystem, GridFSFileSystem
from tests.fixtures.mongo import CLIENT_OPTIONS
from tests.vfs.adapters import Threaded


@pytest.fixture(params=["gridfs-async", "gridfs-sync"])
async def gfs(
    request: pytest.FixtureRequest, mongo_uri: str, mongo_client: MongoClient[Any], mongo_db_name: str
) -> AsyncIterator[Any]:
    if request.param == "gridfs-async":
        client: AsyncMongoClient[Any] = AsyncMongoClient(mongo_uri, **CLIENT_OPTIONS)
        fs: Any = AsyncGridFSFileSystem(client, mongo_db_name, chunk_size=64)
    else:
        fs = Threaded(GridFSFileSystem(mongo_client, mongo_db_name, chunk_size=64))
    await fs.initialize()
    yield fs
    await fs.close()
    if request.param == "gridfs-async":
        await client.close()


def _raw(fs: Any) -> Any:
    return getattr(fs, "wrapped", fs)


async def test_a_bucket_written_by_plain_gridfs_is_browsable(gfs: Any, mongo_db: Database[Any]) -> None:
    bucket = GridFSBucket(mongo_db)
    bucket.upload_from_stream("docs/a.txt", io.BytesIO(b"alpha"))
    bucket.upload_from_stream("docs/sub/b.txt", io.BytesIO(b"beta"))
    older = bucket.upload_from_stream("top.txt", io.BytesIO(b"old top"))
    newer = bucket.upload_from_stream("top.txt", io.BytesIO(b"new top"))
    mongo_db["fs.files"].update_one({"_id": older}, {"$set": {"uploadDate": datetime.now(UTC) - timedelta(days=1)}})

    assert await gfs.ls(".") == ["docs", "top.txt"]
    assert await gfs.ls("docs") == ["docs/a.txt", "docs/sub"]
    assert await gfs.is_dir("docs/sub") and await gfs.exists("docs/sub/b.txt")
    assert await gfs.read("docs/sub/b.txt") == b"beta"
    assert await gfs.read("top.txt") == b"new top"
    info = await gfs.info("top.txt")
    assert info.etag == str(newer) and info.size == 7  # no recorded hash: the id is the etag
    assert await gfs.ls_recursive(".") == ["docs/a.txt", "docs/sub/b.txt", "top.txt"]  # one entry per name
    assert await gfs.find(".", "*.txt") == ["docs/a.txt", "docs/sub/b.txt", "top.txt"]
    assert (await gfs.info("docs")).is_dir
    usage = await gfs.usage()
    assert (usage.file_count, usage.directory_count) == (4, 2)  # an unretired revision counts, as in the reference
    await gfs.write("top.txt", b"ours")  # our overwrite retires both legacy revisions
    assert mongo_db["fs.files"].count_documents({"filename": "top.txt"}) == 1
    await gfs.delete_recursive("docs")
    assert await gfs.ls(".") == ["top.txt"]


async def test_names_a_path_cannot_spell_stay_visible_to_walks(gfs: Any, mongo_db: Database[Any]) -> None:
    bucket = GridFSBucket(mongo_db)
    for name in ("/abs.txt", "a//b.txt", "plain.txt"):
        bucket.upload_from_stream(name, io.BytesIO(b"x"))
    assert await gfs.ls(".") == ["a", "plain.txt"]
    assert await gfs.ls("a") == []  # "a//b.txt" has an empty segment: no addressable child
    assert await gfs.ls_recursive(".") == ["/abs.txt", "a//b.txt", "plain.txt"]


async def test_overwrite_uploads_then_retires(gfs: Any, mongo_db: Database[Any]) -> None:
    await gfs.write("f.bin", b"1" * 300)
    first = mongo_db["fs.files"].find_one({"filename": "f.bin"})
    await gfs.write("f.bin", b"2" * 100)
    assert mongo_db["fs.files"].count_documents({"filename": "f.bin"}) == 1
    assert mongo_db["fs.chunks"].count_documents({"files_id": first["_id"]}) == 0
    assert await gfs.read("f.bin") == b"2" * 100
    assert (await gfs.fsck()).clean


async def test_a_conditional_write_on_a_remembered_revision_is_checked_at_commit(
    gfs: Any, mongo_client: MongoClient[Any], mongo_db: Database[Any]
) -> None:
    """A conditional write takes the revision this filesystem last read or wrote as its base without looking
    it up again; another writer's revision refuses it at commit, one with the same content does not."""
    with GridFSFileSystem(mongo_client, mongo_db.name, chunk_size=64) as other:
        first = await gfs.write("e.txt", b"v1" * 50)
        other.write("e.txt", b"v1" * 50)  # a new revision, the same etag: the condition still holds
        second = await gfs.write("e.txt", b"v2" * 50, if_revision=first.etag)
        assert await gfs.read("e.txt") == b"v2" * 50
        third = other.write("e.txt", b"v3" * 50)
        with pytest.raises(RevisionMismatchError) as caught:
            await gfs.write("e.txt", b"v4" * 50, if_revision=second.etag)
        assert caught.value.actual == third.etag
        assert await gfs.read("e.txt") == b"v3" * 50
        assert mongo_db["fs.files"].count_documents({"filename": "e.txt"}) == 1
        assert mongo_db["fs.chunks"].count_documents({}) == 2  # v3's two chunks: the refused upload left none
        assert (await gfs.fsck()).clean


def test_write_and_edit_send_only_the_commands_their_storage_needs(mongo_uri: str, mongo_db_name: str) -> None:
    """A deepagents write: the path check, the chunks, the files document, the older revisions and their
    chunks retired. An edit: the read (its one chunk along), the chunks, the claim, the check that nothing
    newer came, the publication, the retirement; no second lookup of the revision read."""
    from aimon_mongo.deepagents import AimonBackend

    log = CommandLog()
    with MongoClient(mongo_uri, event_listeners=[log], **CLIENT_OPTIONS) as client:
        with GridFSFileSystem(client, mongo_db_name) as fs:
            backend = AimonBackend(fs, root="w")
            assert backend.write("/d/a.txt", "state: alpha\n").error is None
            with log.recording() as wrote:
                assert backend.write("/d/a.txt", "state: alpha\n").error is None
            with log.recording() as edited:
                assert backend.edit("/d/a.txt", "alpha", "omega").occurrences == 1
            assert backend.read("/d/a.txt").file_data["content"] == "state: omega\n"
        client.drop_database(mongo_db_name)
    assert [c.name for c in wrote.commands] == ["aggregate", "insert", "insert", "delete", "delete"]
    assert [c.name for c in edited.commands] == ["aggregate", "insert", "insert", "find", "update", "delete", "delete"]


async def test_a_refused_upload_leaves_no_chunks(mongo_client: MongoClient[Any], mongo_db: Database[Any]) -> None:
    fs = GridFSFileSystem(mongo_client, mongo_db.name, chunk_size=64, max_file_size=200)
    with fs:
        fs.write("f.bin", b"keep")
        writer = fs.open_output("f.bin")
        writer.write(b"x" * 150)
        with pytest.raises(Exception, match="maximum allowed size of 200 bytes"):
            writer.write(b"x" * 100)
        assert fs.read("f.bin") == b"keep"
        assert mongo_db["fs.files"].count_documents({}) == 1
        assert mongo_db["fs.chunks"].count_documents({}) == 1  # only the chunk of "keep"
        assert fs.fsck().clean


async def test_an_overwrite_wins_over_a_predecessor_stamped_by_a_fast_clock(gfs: Any, mongo_db: Database[Any]) -> None:
    await gfs.write("skew.txt", b"before")
    future = datetime.now(UTC) + timedelta(hours=1)
    mongo_db["fs.files"].update_one({"filename": "skew.txt"}, {"$set": {"uploadDate": future}})
    await gfs.write("skew.txt", b"after")
    assert await gfs.read("skew.txt") == b"after"
    docs = list(mongo_db["fs.files"].find({"filename": "skew.txt"}))
    assert len(docs) == 1 and docs[0]["uploadDate"] > future


async def test_a_reader_of_a_retired_revision_is_told_and_a_whole_read_retries(
    gfs: Any, mongo_db: Database[Any]
) -> None:
    await gfs.write("r.bin", b"1" * 500)
    reader = await gfs.open_input("r.bin")
    await gfs.write("r.bin", b"2" * 500)  # retires the revision the reader holds
    with pytest.raises(FileReplacedError, match=r"replaced while being read: r\.bin"):
        await reader.read()
    await reader.close()

    store = _raw(gfs).gridfs
    original = store.open_newest
    replaced = []

    def race() -> None:
        if not replaced:  # a concurrent writer retires the revision between lookup and first read
            replaced.append(True)
            GridFSBucket(mongo_db).upload_from_stream("r.bin", io.BytesIO(b"3" * 500))
            newest = mongo_db["fs.files"].find_one({"filename": "r.bin"}, sort=[("uploadDate", -1), ("_id", -1)])
            for doc in mongo_db["fs.files"].find({"filename": "r.bin", "_id": {"$ne": newest["_id"]}}):
                GridFSBucket(mongo_db).delete(doc["_id"])

    def racing_open(name: str) -> Any:
        opened = original(name)
        if not inspect.isawaitable(opened):
            race()
            return opened

        async def looked_up() -> Any:  # the async flavour: the lookup runs when awaited
            found = await opened
            race()
            return found

        return looked_up()

    store.open_newest = racing_open
    try:
        assert await gfs.read("r.bin") == b"3" * 500
    finally:
        del store.open_newest
    assert replaced


async def test_a_file_with_missing_chunks_reads_as_corrupt(gfs: Any, mongo_db: Database[Any]) -> None:
    await gfs.write("c.bin", b"c" * 300)
    doc = mongo_db["fs.files"].find_one({"filename": "c.bin"})
    mongo_db["fs.chunks"].delete_one({"files_id": doc["_id"], "n": 2})
    with pytest.raises(BackendConnectionError, match=r"corrupt \(missing chunks\): c.bin"):
        await gfs.read("c.bin")


async def test_mkdir_writes_one_marker_per_level(gfs: Any, mongo_db: Database[Any]) -> None:
    await gfs.write("a/implied.txt", b"x")
    await gfs.mkdir("a/b/c")
    await gfs.mkdir("a/b/c")
    markers = sorted(d["filename"] for d in mongo_db["fs.files"].find({"metadata.type": "directory"}))
    assert markers == ["a/", "a/b/", "a/b/c/"]


async def test_fsck_finds_and_repairs_planted_damage(gfs: Any, mongo_db: Database[Any]) -> None:
    await gfs.write("good.bin", b"g" * 200)
    await gfs.mkdir("dup")
    old = ObjectId.from_datetime(datetime.now(UTC) - timedelta(days=2))
    fresh = ObjectId()  # an upload in flight: its chunks have no file document yet
    mongo_db["fs.chunks"].insert_many(
        [
            {"files_id": old, "n": 0, "data": b"orphan"},
            {"files_id": old, "n": 1, "data": b"orphan"},
            {"files_id": fresh, "n": 0, "data": b"in flight"},
        ]
    )
    marker = mongo_db["fs.files"].find_one({"filename": "dup/"})
    twin = {**marker, "_id": ObjectId(), "uploadDate": marker["uploadDate"] + timedelta(seconds=1)}
    mongo_db["fs.files"].insert_one(twin)
    broken = mongo_db["fs.files"].find_one({"filename": "good.bin"})
    mongo_db["fs.files"].insert_one({**broken, "_id": ObjectId(), "filename": "broken.bin", "length": 1000})

    report = await gfs.fsck()
    assert (report.orphaned_chunks, report.orphaned_file_ids, report.pending_chunks) == (2, [str(old)], 1)
    assert [(d.path, d.count) for d in report.duplicate_markers] == [("dup/", 2)]
    assert [(m.path, m.expected, m.found) for m in report.files_missing_chunks] == [("broken.bin", 16, 0)]
    assert not report.clean and not report.repaired
    assert mongo_db["fs.chunks"].count_documents({"files_id": old}) == 2  # a check changes nothing

    repaired = await gfs.fsck(repair=True)
    assert repaired.repaired and (repaired.removed_chunks, repaired.removed_markers) == (2, 1)
    assert mongo_db["fs.chunks"].count_documents({"files_id": old}) == 0
    assert mongo_db["fs.chunks"].count_documents({"files_id": fresh}) == 1  # in flight: untouched
    assert mongo_db["fs.files"].find_one({"filename": "dup/"})["_id"] == marker["_id"]  # the oldest stays
    assert mongo_db["fs.files"].count_documents({"filename": "broken.bin"}) == 1  # reported, not touched
    after = await gfs.fsck()
    assert not after.orphaned_chunks and not after.duplicate_markers and len(after.files_missing_chunks) == 1
    assert await gfs.read("good.bin") == b"g" * 200 and await gfs.is_dir("dup")


def test_ls_seeks_once_per_child_whatever_the_number_of_descendants(mongo_uri: str, mongo_db: Database[Any]) -> None:
    now = datetime.now(UTC)
    docs = [
        {"filename": f"big/child{c}/deep/{d:04d}.bin", "length": 0, "chunkSize": 64, "uploadDate": now}
        for c in range(10)
        for d in range(30)
    ] + [{"filename": f"big/file{f}.txt", "length": 0, "chunkSize": 64, "uploadDate": now} for f in range(3)]
    mongo_db["fs.files"].insert_many(docs)
    log = CommandLog()
    with MongoClient(mongo_uri, event_listeners=[log], **CLIENT_OPTIONS) as client:
        with GridFSFileSystem(client, mongo_db.name) as fs:
            with log.recording() as seen:
                children = fs.ls("big")
            with log.recording() as seen_info:
                infos = fs.ls_info("big")
    assert len(children) == 13 and [i.path for i in infos] == children
    # 10 subdirectories: one read each; two for the 3 files after them (one row, then a larger page); one
    # file check of "big" itself. A read after a subdirectory asks for one row, not the subtree.
    assert seen.round_trips <= 10 + 3 and seen.documents <= 8 + 9 + 3 + 2
    assert {c.name for c in seen.commands} == {"find"}
    assert seen_info.round_trips == seen.round_trips  # ls_info: no query per file
    assert len(docs) == 303


def test_ls_of_a_flat_directory_streams_in_a_few_reads(changestream_uri: str, mongo_db_name: str) -> None:
    # SecantusDB: it holds 10,000 file documents quickly (mongoeco inserts too slowly for this size).
    now = datetime.now(UTC)
    docs = [
        {"filename": f"flat/{i:05d}.json", "length": 3, "chunkSize": 64, "uploadDate": now, "metadata": {}}
        for i in range(10_000)
    ]
    log = CommandLog()
    with MongoClient(changestream_uri, event_listeners=[log], **CLIENT_OPTIONS) as client:
        for start in range(0, len(docs), 2000):
            client[mongo_db_name]["fs.files"].insert_many(docs[start : start + 2000])
        with GridFSFileSystem(client, mongo_db_name) as fs:
            with log.recording() as seen:
                names = fs.ls("flat")
            with log.recording() as seen_info:
                infos = fs.ls_info("flat")
        client.drop_database(mongo_db_name)
    assert names == [f"flat/{i:05d}.json" for i in range(10_000)]
    assert [i.path for i in infos] == names and {i.size for i in infos} == {3}
    assert seen.round_trips <= 12 and seen_info.round_trips <= 12


async def test_a_borrowed_client_stays_open_and_an_owned_one_is_closed(
    mongo_uri: str, mongo_client: MongoClient[Any], mongo_db_name: str
) -> None:
    borrowed = GridFSFileSystem(mongo_client, mongo_db_name)
    borrowed.initialize()
    borrowed.close()
    mongo_client.admin.command("ping")

    owned = GridFSFileSystem.from_uri(mongo_uri, mongo_db_name)
    assert owned.owns_client and owned.working_directory == f"gridfs://{mongo_db_name}/fs"
    with owned:
        owned.write("x.txt", b"x")
    with pytest.raises(InvalidOperation):
        owned.client.admin.command("ping")

    async_owned = AsyncGridFSFileSystem.from_uri(mongo_uri, mongo_db_name)
    async with async_owned:
        assert await async_owned.read("x.txt") == b"x"
    with pytest.raises(InvalidOperation):
        await async_owned.client.admin.command("ping")


async def test_initialize_against_an_unreachable_server_fails_clearly() -> None:
    fs = AsyncGridFSFileSystem.from_uri("mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=300")
    with pytest.raises(BackendConnectionError, match="Failed to initialize GridFS filesystem"):
        await fs.initialize()
    sync_fs = GridFSFileSystem(MongoClient("127.0.0.1", 9, serverSelectionTimeoutMS=300))
    with pytest.raises(BackendConnectionError, match="Failed to initialize GridFS filesystem"):
        sync_fs.initialize()
    sync_fs.client.close()


def test_configuration_is_validated(mongo_client: MongoClient[Any]) -> None:
    from aimon_mongo.errors import InvalidArgumentError

    for kwargs, message in (
        ({"database": "at/aimon"}, "without '/'"),
        ({"bucket": ""}, "bucket"),
        ({"chunk_size": 0}, "Chunk size must be positive"),
        ({"max_file_size": -5}, "None"),
    ):
        with pytest.raises(InvalidArgumentError, match=message):
            GridFSFileSystem(mongo_client, **kwargs)


def test_a_snapshot_save_sends_as_few_commands_as_a_raw_upload(mongo_uri: str, mongo_db_name: str) -> None:
    from gridfs import GridFSBucket

    from aimon_mongo.snapshots import Message, Role, SessionSnapshot, VfsSessionSnapshotStore

    log = CommandLog()
    snapshot = SessionSnapshot.of_messages("s", [Message.text(Role.USER, "hello")])
    with MongoClient(mongo_uri, event_listeners=[log], **CLIENT_OPTIONS) as client:
        with GridFSFileSystem(client, mongo_db_name) as fs:
            store = VfsSessionSnapshotStore(fs)
            store.save("first", "sub", None, snapshot)  # creates the indexes and the directory
            with log.recording() as new:
                store.save("second", "sub", None, snapshot)
            with log.recording() as overwrite:
                store.save("second", "sub", "agent:a", snapshot)
            loaded = store.load("second")
            stored = client[mongo_db_name]["fs.files"].count_documents({"filename": "task-snapshot/second.json"})
            chunks = client[mongo_db_name]["fs.chunks"].count_documents({})
        bucket = GridFSBucket(client[mongo_db_name], "raw")
        bucket.upload_from_stream("warm.json", io.BytesIO(b"{}"))
        with log.recording() as raw:
            bucket.upload_from_stream("x.json", io.BytesIO(b"{}"))
        client.drop_database(mongo_db_name)
    # One check of the path (parents, revisions, children), the chunk, the files document, the retirement
    # of older revisions; an overwrite also deletes the content of the revision it replaced.
    assert [c.name for c in new.commands] == ["aggregate", "insert", "insert", "delete"]
    assert new.round_trips <= raw.round_trips == 4
    assert [c.name for c in overwrite.commands] == ["aggregate", "insert", "insert", "delete", "delete"]
    assert loaded is not None and loaded.agent_runtime_id == "agent:a"  # the newest revision won
    assert stored == 1 and chunks == 2  # the first snapshot's chunk and the second's newest one: none stray
