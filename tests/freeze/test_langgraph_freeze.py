"""Freeze tests: the documents the LangGraph saver writes, read back raw with PyMongo, against literals
(and against their schema-gate declarations)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bson.int64 import Int64
from langgraph.checkpoint.base import empty_checkpoint
from pymongo.synchronous.database import Database

from aimon_mongo.langgraph import AimonCheckpointSaver
from aimon_mongo.langgraph.documents import checkpoint_key
from aimon_mongo.mongo import ensure_schema
from aimon_mongo.schema_gate import assert_conforms


def _near_now(value: Any) -> bool:
    return isinstance(value, datetime) and abs(value - datetime.now(UTC)) < timedelta(minutes=5)


def test_checkpoint_thread_and_value_file_documents(mongo_db: Database[dict[str, Any]]) -> None:
    ensure_schema(mongo_db)
    saver = AimonCheckpointSaver(mongo_db, node_id="node-a", inline_limit=8, ttl=timedelta(hours=1))
    writer = saver.claim_write_ownership("thread-1")
    early = {"configurable": {"thread_id": "thread-1", "checkpoint_ns": "", "checkpoint_id": "cp-2"}}
    writer.put_writes(early, [("__interrupt__", "ask")], "task-b", "path")  # before its checkpoint
    raw_early = mongo_db["langgraph_checkpoints"].find_one({"checkpoint_id": "cp-2"})
    assert raw_early is not None
    assert set(raw_early) == {"_id", "thread_id", "checkpoint_ns", "checkpoint_id", "writes"}
    assert raw_early["_id"] == "8:thread-10:cp-2"  # length-prefixed thread id and namespace, then the id
    assert_conforms("mongo.langgraph.early-writes.document", raw_early)

    cp: dict[str, Any] = dict(empty_checkpoint())
    cp.update(id="cp-1", channel_values={"small": 1, "big": "b" * 64}, channel_versions={"small": 1, "big": "2.5"})
    config = {"configurable": {"thread_id": "thread-1", "checkpoint_ns": ""}}
    stored = writer.put(
        config, cp, {"source": "input", "step": -1, "run_id": "run-1", "flag": True}, {"small": 1, "big": "2.5"}
    )
    writer.put_writes(stored, [("messages", "hi")], "task-a", "")
    doc = mongo_db["langgraph_checkpoints"].find_one({"checkpoint_id": "cp-1"})
    assert doc is not None
    assert list(doc) == [
        "_id", "thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "checkpoint",
        "channel_versions", "metadata", "metadata_keys", "values", "run_id", "fencing_token", "writes",
    ]  # fmt: skip
    assert doc["_id"] == "8:thread-10:cp-1"  # the put completed nothing early: its own key
    assert (doc["thread_id"], doc["checkpoint_ns"], doc["checkpoint_id"]) == ("thread-1", "", "cp-1")
    assert doc["parent_checkpoint_id"] is None
    assert set(doc["checkpoint"]) == {"type", "data"} and doc["checkpoint"]["type"] == "msgpack"
    assert doc["channel_versions"] == [{"channel": "small", "version": 1}, {"channel": "big", "version": "2.5"}]
    assert isinstance(doc["channel_versions"][0]["version"], int)
    assert doc["metadata_keys"] == [
        {"key": "source", "value": "input"}, {"key": "step", "value": -1},
        {"key": "run_id", "value": "run-1"}, {"key": "flag", "value": 1},
    ]  # fmt: skip
    assert doc["run_id"] == "run-1"
    assert writer.write_ownership is not None
    token = writer.write_ownership.fencing_token
    assert doc["fencing_token"] == Int64(token) and isinstance(doc["fencing_token"], Int64)
    small, big = doc["values"]
    assert set(small) == {"key", "channel", "version", "type", "size", "data"}
    assert (small["key"], small["channel"], small["version"], small["type"]) == ("5:smalli1", "small", 1, "msgpack")
    assert set(big) == {"key", "channel", "version", "type", "size", "file_id"}
    assert (big["key"], big["channel"], big["version"]) == ("3:bigs2.5", "big", "2.5")
    assert doc["writes"] == [
        {
            "key": "0:task-a", "task_id": "task-a", "task_path": "", "idx": 0, "channel": "messages",
            "type": "msgpack", "size": Int64(3), "data": doc["writes"][0]["data"],
        }
    ]  # fmt: skip
    assert_conforms("mongo.langgraph.checkpoint.document", doc)
    moved = mongo_db["langgraph_checkpoints"].find_one({"checkpoint_id": "cp-2"})
    assert moved is not None and [w["key"] for w in moved["writes"]] == ["-3:task-b"]  # __interrupt__ is -3

    thread = mongo_db["langgraph_threads"].find_one({"_id": "thread-1"})
    assert thread is not None
    assert set(thread) == {"_id", "fencing_token", "write_seq", "expires_at", "ttl_ms"}
    assert thread["fencing_token"] == Int64(token) and thread["write_seq"] == Int64(3)
    assert thread["ttl_ms"] == Int64(3_600_000)
    assert _near_now(thread["expires_at"] - timedelta(hours=1))
    assert_conforms("mongo.langgraph.thread.document", thread)

    files = mongo_db["langgraph_values.files"].find_one({"_id": big["file_id"]})
    assert files is not None
    assert set(files) == {"_id", "length", "chunkSize", "uploadDate", "filename", "metadata"}
    assert files["metadata"] == {"thread_id": "thread-1", "checkpoint_ns": ""}
    assert files["chunkSize"] == 1048576 and files["filename"] == "thread-1"
    assert _near_now(files["uploadDate"])
    assert_conforms("gridfs.langgraph-value.file.document", files)
    chunk = mongo_db["langgraph_values.chunks"].find_one({"files_id": big["file_id"]})
    assert chunk is not None and set(chunk) == {"_id", "files_id", "n", "data"} and chunk["n"] == 0

    saver.sweep_expired()  # nothing expired: the thread keeps everything
    assert mongo_db["langgraph_checkpoints"].count_documents({"thread_id": "thread-1"}) == 2
    indexes = {i["name"]: dict(i["key"]) for i in mongo_db["langgraph_checkpoints"].list_indexes()}
    assert indexes["by_thread_ns_checkpoint"] == {"thread_id": 1, "checkpoint_ns": 1, "checkpoint_id": -1}
    assert indexes["by_thread_ns_value_key"] == {"thread_id": 1, "checkpoint_ns": 1, "values.key": 1}
    assert indexes["by_run_id"] == {"run_id": 1}
    assert not any(i.get("unique") for i in mongo_db["langgraph_checkpoints"].list_indexes() if i["name"] != "_id_")
    thread_indexes = {i["name"]: i for i in mongo_db["langgraph_threads"].list_indexes()}
    assert thread_indexes["ttl_purge_at"]["expireAfterSeconds"] == 0


def test_checkpoint_key_is_length_prefixed() -> None:
    assert checkpoint_key("thread-1", "", "cp-1") == "8:thread-10:cp-1"
    assert checkpoint_key("t", "sub:task", "c") == "1:t8:sub:taskc"
    # a separator inside an id never makes two identities share a key
    assert checkpoint_key("a1:b", "", "c") != checkpoint_key("a", "b", "c")
    assert checkpoint_key("a", "1:b", "c") != checkpoint_key("a1:", "b", "c")
