"""Freeze: the stored shape of the GridFS filesystem, pinned against hard-coded literals."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from bson import Int64
from pymongo import MongoClient
from pymongo.synchronous.database import Database

from aimon_mongo.vfs import GridFSFileSystem


@pytest.fixture
def default_fs(mongo_client: MongoClient[Any]) -> Iterator[GridFSFileSystem]:
    mongo_client.drop_database("aimon")
    fs = GridFSFileSystem(mongo_client)
    fs.initialize()
    yield fs
    fs.close()
    mongo_client.drop_database("aimon")


def test_defaults_are_database_aimon_bucket_fs_chunks_of_one_mebibyte(
    default_fs: GridFSFileSystem, mongo_client: MongoClient[Any]
) -> None:
    assert default_fs.working_directory == "gridfs://aimon/fs"
    default_fs.write("d.txt", b"x" * 1048577)
    doc = mongo_client["aimon"]["fs.files"].find_one({"filename": "d.txt"})
    assert doc is not None and doc["chunkSize"] == 1048576 and doc["length"] == 1048577
    assert mongo_client["aimon"]["fs.chunks"].count_documents({"files_id": doc["_id"]}) == 2


def test_a_marker_document(default_fs: GridFSFileSystem, mongo_client: MongoClient[Any]) -> None:
    default_fs.mkdir("docs")
    doc = mongo_client["aimon"]["fs.files"].find_one({"filename": "docs/"})
    assert doc is not None
    assert sorted(doc) == ["_id", "chunkSize", "filename", "length", "metadata", "uploadDate"]
    assert doc["filename"] == "docs/"
    assert doc["length"] == 0 and isinstance(doc["length"], Int64)
    assert sorted(doc["metadata"]) == ["path", "type", "uploadDate"]
    assert doc["metadata"]["type"] == "directory"
    assert doc["metadata"]["path"] == "docs"
    assert doc["metadata"]["uploadDate"].endswith("Z") and "T" in doc["metadata"]["uploadDate"]
    assert mongo_client["aimon"]["fs.chunks"].count_documents({"files_id": doc["_id"]}) == 0


def test_a_file_document(default_fs: GridFSFileSystem, mongo_client: MongoClient[Any]) -> None:
    default_fs.write("notes/a.txt", b"hello")
    default_fs.copy("notes/a.txt", "notes/b.txt")
    files = mongo_client["aimon"]["fs.files"]
    doc = files.find_one({"filename": "notes/a.txt"})
    assert doc is not None
    assert list(doc["metadata"]) == ["path", "uploadDate", "contentSha256"]
    assert doc["metadata"]["path"] == "notes/a.txt"
    assert doc["metadata"]["contentSha256"] == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    assert default_fs.info("notes/a.txt").etag == (
        "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    )
    copy = files.find_one({"filename": "notes/b.txt"})
    assert copy is not None and list(copy["metadata"]) == ["path", "copiedFrom", "uploadDate", "contentSha256"]
    assert copy["metadata"]["copiedFrom"] == "notes/a.txt"
    assert files.count_documents({"filename": {"$in": ["notes", "notes/"]}}) == 0  # no marker for parents


def test_indexes(default_fs: GridFSFileSystem, mongo_client: MongoClient[Any]) -> None:
    default_fs.ensure_schema()  # the first write would create them; reading never does
    database: Database[Any] = mongo_client["aimon"]
    information = database["fs.files"].index_information()
    files = {name: spec["key"] for name, spec in information.items()}
    chunks = database["fs.chunks"].index_information()
    assert files["filename_1_uploadDate_1"] == [("filename", 1), ("uploadDate", 1)]
    assert chunks["files_id_1_n_1"]["key"] == [("files_id", 1), ("n", 1)]
    assert chunks["files_id_1_n_1"]["unique"] is True
    assert files["metadata.predecessor_1"] == [("metadata.predecessor", 1)]
    assert information["metadata.predecessor_1"]["unique"] is True
    assert information["metadata.predecessor_1"]["partialFilterExpression"] == {
        "metadata.predecessor": {"$exists": True}
    }
