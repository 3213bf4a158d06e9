"""The LangGraph checkpoint saver on MongoDB (``aimon_mongo.langgraph``; ours, additive).

``langgraph_checkpoints`` holds one document per checkpoint: the serde pairs (``type`` + opaque
``data``) of the checkpoint without its channel values and of its metadata, the channel versions in plain
form, a queryable projection of the metadata's string and number keys, the values of the channels that
changed in it (inline, or the id of a file in the GridFS bucket ``langgraph_values``) and its pending
writes. A document with only identity and ``writes`` holds pending writes that arrived before their
checkpoint. ``langgraph_threads`` holds the write-ownership fence and the retention state of a thread.
"""

from __future__ import annotations

from typing import Final, NotRequired, TypedDict

from bson import ObjectId

from aimon_mongo.stored.declare import BsonDate, Double, Family, Int32, Int64, root

FORMAT_VERSION: Final = 1
FAMILY: Final = Family("langgraph", FORMAT_VERSION)


class SerdePair(TypedDict):
    """What LangGraph's serializer produced (``dumps_typed``), never interpreted."""

    type: str
    data: bytes


class ChannelVersion(TypedDict):
    channel: str
    version: str | Int64 | Double


class MetadataKey(TypedDict):
    key: str
    value: str | Int64 | Double


class StoredChannelValue(TypedDict):
    """A channel value introduced by this checkpoint: inline ``data`` or a GridFS ``file_id``."""

    key: str
    channel: str
    version: str | Int64 | Double
    type: str
    size: Int64
    data: NotRequired[bytes]
    file_id: NotRequired[ObjectId]


class StoredPendingWrite(TypedDict):
    key: str
    task_id: str
    task_path: str
    idx: Int32
    channel: str
    type: str
    size: Int64
    data: NotRequired[bytes]
    file_id: NotRequired[ObjectId]


@root("mongo.langgraph.checkpoint.document", FAMILY)
class MongoCheckpointDocument(TypedDict):
    _id: str  # "<len>:<thread_id><len>:<checkpoint_ns><checkpoint_id>"
    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    checkpoint: SerdePair
    channel_versions: list[ChannelVersion]
    metadata: SerdePair
    metadata_keys: list[MetadataKey]
    run_id: NotRequired[str]
    fencing_token: NotRequired[Int64]
    values: list[StoredChannelValue]
    writes: list[StoredPendingWrite]


@root("mongo.langgraph.early-writes.document", FAMILY)
class MongoEarlyWritesDocument(TypedDict):
    """Pending writes stored before their checkpoint (its put completes the document)."""

    _id: str  # the checkpoint's key, as in MongoCheckpointDocument
    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    writes: list[StoredPendingWrite]


@root("mongo.langgraph.thread.document", FAMILY)
class MongoThreadDocument(TypedDict):
    """The fence of write ownership and the retention of one thread (server-clock dates)."""

    _id: str
    fencing_token: NotRequired[Int64]
    write_seq: NotRequired[Int64]
    ttl_ms: NotRequired[Int64]
    expires_at: NotRequired[BsonDate]
    sweeping: NotRequired[BsonDate]
    expired_at: NotRequired[BsonDate]
    purge_at: NotRequired[BsonDate]


class ValueFileMetadata(TypedDict):
    thread_id: str
    checkpoint_ns: str


@root("gridfs.langgraph-value.file.document", FAMILY)
class GridFsValueFileDocument(TypedDict):
    """A large value in ``langgraph_values.files`` (chunks in ``langgraph_values.chunks``, standard)."""

    _id: ObjectId
    length: Int64
    chunkSize: Int32
    uploadDate: BsonDate
    filename: str
    metadata: ValueFileMetadata
