"""GridFS file ids are not monotonic (new chunks spread over a sharded ``{files_id, n}`` key), yet the
newest-revision tie-break still picks the revision written last, and buckets of driver ObjectIds stay
readable."""

from __future__ import annotations

import io
from typing import Any

from bson import ObjectId
from gridfs import GridFSBucket
from pymongo import MongoClient
from pymongo.synchronous.database import Database

from aimon_mongo.vfs import GridFSFileSystem
from aimon_mongo.vfs.file_ids import spread_file_id


def test_ids_spread_over_names_and_rise_within_one_name() -> None:
    ids = [spread_file_id(f"dir/file-{i}.txt") for i in range(200)]
    assert all(isinstance(i, ObjectId) for i in ids)
    assert ids != sorted(ids), "ids of successive uploads must not rise monotonically"
    assert len({i.binary[0] for i in ids}) > 100  # the leading byte (the chunk key's range) is spread
    same = [spread_file_id("one.txt") for _ in range(500)]
    assert same == sorted(same) and len(set(same)) == 500
    assert len({i.binary[:3] for i in same}) == 1


def test_the_newest_of_two_revisions_with_one_upload_date_is_the_later_id(
    mongo_client: MongoClient[Any], mongo_db: Database[Any]
) -> None:
    fs = GridFSFileSystem(mongo_client, mongo_db.name, chunk_size=64)
    with fs:
        fs.write("tie.txt", b"first")
        fs.write("other.txt", b"x")
        first = mongo_db["fs.files"].find_one({"filename": "tie.txt"})
        assert first is not None and first["_id"].binary[:3] == spread_file_id("tie.txt").binary[:3]
        later = spread_file_id("tie.txt")
        assert later > first["_id"]
        GridFSBucket(mongo_db).upload_from_stream_with_id(later, "tie.txt", io.BytesIO(b"second"))
        mongo_db["fs.files"].update_many({"filename": "tie.txt"}, {"$set": {"uploadDate": first["uploadDate"]}})
        assert fs.read("tie.txt") == b"second"


def test_a_bucket_of_driver_object_ids_stays_readable_and_writable(
    mongo_client: MongoClient[Any], mongo_db: Database[Any]
) -> None:
    bucket = GridFSBucket(mongo_db)
    old = bucket.upload_from_stream("legacy.txt", io.BytesIO(b"old"))
    fs = GridFSFileSystem(mongo_client, mongo_db.name, chunk_size=64)
    with fs:
        assert fs.read("legacy.txt") == b"old"
        fs.write("legacy.txt", b"new")
        assert fs.read("legacy.txt") == b"new"
        docs = list(mongo_db["fs.files"].find({"filename": "legacy.txt"}))
        assert len(docs) == 1 and docs[0]["_id"] != old
        assert mongo_db["fs.chunks"].count_documents({"files_id": old}) == 0
