"""The documents the GridFS filesystem writes conform to their declared stored roots
(``aimon_mongo/stored/vfs.py``): files with and without ``copiedFrom``, markers at every level."""

from __future__ import annotations

from typing import Any

from pymongo import MongoClient
from pymongo.synchronous.database import Database

from aimon_mongo.schema_gate import assert_conforms
from aimon_mongo.vfs import GridFSFileSystem


def test_written_documents_conform(mongo_client: MongoClient[Any], mongo_db: Database[Any]) -> None:
    with GridFSFileSystem(mongo_client, mongo_db.name) as fs:
        fs.write("a/b.txt", b"hello")
        fs.write("empty.txt", b"")
        fs.copy("a/b.txt", "c.txt")
        fs.mkdir("d/e")
    files = mongo_db["fs.files"]
    for name in ("a/b.txt", "empty.txt", "c.txt"):
        doc = files.find_one({"filename": name})
        assert_conforms("gridfs.file.document", doc)
        assert_conforms("gridfs.file.metadata", doc["metadata"])
    for name in ("d/", "d/e/"):
        doc = files.find_one({"filename": name})
        assert_conforms("gridfs.directory-marker.document", doc)
        assert_conforms("gridfs.directory-marker.metadata", doc["metadata"])
