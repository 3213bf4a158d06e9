"""The MongoDB layout of the checkpoint saver (pure: records <-> documents, server-side expressions).

``langgraph_checkpoints``, one document per checkpoint::

    {_id: "<len>:<thread_id><len>:<checkpoint_ns><checkpoint_id>" (checkpoint_key),
     thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id: str | null,
     checkpoint: {type, data}, channel_versions: [{channel, version}], metadata: {type, data},
     metadata_keys: [{key, value}], run_id?: str, fencing_token?: int64,
     values: [{key, channel, version, type, size, data? | file_id?}],
     writes: [{key, task_id, task_path, idx, channel, type, size, data? | file_id?}]}

A document holding only ``writes`` (no ``checkpoint``) keeps pending writes that arrived before their
checkpoint; readers skip it and the checkpoint's put completes it. ``langgraph_threads``, one document per
thread that was claimed or has a retention: ``{_id: thread_id, fencing_token?, write_seq?, ttl_ms?,
expires_at?, sweeping?, expired_at?, purge_at?}``. Large values are files of the GridFS bucket
``langgraph_values`` (standard layout; ``metadata: {thread_id, checkpoint_ns}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from bson import Binary
from bson.int64 import Int64

from aimon_mongo import names as n
from aimon_mongo.errors import CodecError
from aimon_mongo.langgraph.records import (
    ChannelValue,
    CheckpointRecord,
    PendingWriteRecord,
    StoredValue,
    Version,
)
from aimon_mongo.mongo.documents import literal


def span_ms(span: timedelta) -> int:
    """A retention span in milliseconds (at least 1)."""
    return max(1, int(span.total_seconds() * 1000))


def checkpoint_key(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> str:
    """The ``_id`` of a checkpoint document: ``"<len>:<thread_id><len>:<checkpoint_ns><checkpoint_id>"``
    (length-prefixed, so distinct identities never share a key). The ``_id`` index alone keeps one
    document per identity: the server checks it by key lookup, where a unique compound index costs a
    stand-in a scan of the collection per insert."""
    return f"{len(thread_id)}:{thread_id}{len(checkpoint_ns)}:{checkpoint_ns}{checkpoint_id}"


def _identity_fields(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> dict[str, Any]:
    return {n.LG_F_THREAD_ID: thread_id, n.LG_F_CHECKPOINT_NS: checkpoint_ns, n.LG_F_CHECKPOINT_ID: checkpoint_id}


def identity(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> dict[str, Any]:
    """Filter: the document of one checkpoint (its ``_id`` and identity fields; an upsert copies them)."""
    return {
        n.F_ID: checkpoint_key(thread_id, checkpoint_ns, checkpoint_id),
        **_identity_fields(thread_id, checkpoint_ns, checkpoint_id),
    }


STORED = {n.LG_F_CHECKPOINT: {"$exists": True}}
"""Filter: a checkpoint document (not a holder of early pending writes)."""


def _typed(value: StoredValue) -> dict[str, Any]:
    return {n.LG_F_TYPE: value.type, n.LG_F_DATA: Binary(value.data or b"")}


def _value_fields(value: StoredValue) -> dict[str, Any]:
    fields: dict[str, Any] = {n.LG_F_TYPE: value.type, n.LG_F_SIZE: Int64(value.size)}
    if value.is_large:
        fields[n.LG_F_FILE_ID] = value.file_id
    else:
        fields[n.LG_F_DATA] = Binary(value.data or b"")
    return fields


def value_document(value: ChannelValue) -> dict[str, Any]:
    return {
        n.LG_F_KEY: value.key,
        n.LG_F_CHANNEL: value.channel,
        n.LG_F_VERSION: _version(value.version),
        **_value_fields(value.value),
    }


def write_document(write: PendingWriteRecord) -> dict[str, Any]:
    return {
        n.LG_F_KEY: write.key,
        n.LG_F_TASK_ID: write.task_id,
        n.LG_F_TASK_PATH: write.task_path,
        n.LG_F_IDX: write.idx,
        n.LG_F_CHANNEL: write.channel,
        **_value_fields(write.value),
    }


def _version(version: Version) -> Version:
    return Int64(version) if isinstance(version, int) and not isinstance(version, bool) else version


def checkpoint_fields(record: CheckpointRecord) -> dict[str, Any]:
    """Every field of a checkpoint document but ``_id`` and ``writes``."""
    doc: dict[str, Any] = {
        **_identity_fields(record.thread_id, record.checkpoint_ns, record.checkpoint_id),
        n.LG_F_PARENT_CHECKPOINT_ID: record.parent_checkpoint_id,
        n.LG_F_CHECKPOINT: _typed(record.checkpoint),
        n.LG_F_CHANNEL_VERSIONS: [{n.LG_F_CHANNEL: c, n.LG_F_VERSION: _version(v)} for c, v in record.channel_versions],
        n.LG_F_METADATA: _typed(record.metadata),
        n.LG_F_METADATA_KEYS: [{n.LG_F_KEY: k, n.LG_F_VALUE: _version(v)} for k, v in record.metadata_keys],
        n.LG_F_VALUES: [value_document(v) for v in record.values],
    }
    if record.run_id is not None:
        doc[n.LG_F_RUN_ID] = record.run_id
    if record.fencing_token is not None:
        doc[n.LG_F_FENCING_TOKEN] = Int64(record.fencing_token)
    return doc


def checkpoint_document(record: CheckpointRecord) -> dict[str, Any]:
    """The document of a checkpoint (a fresh ``dict``, ``_id`` from :func:`checkpoint_key`)."""
    return {
        n.F_ID: checkpoint_key(record.thread_id, record.checkpoint_ns, record.checkpoint_id),
        **checkpoint_fields(record),
        n.LG_F_WRITES: [write_document(w) for w in record.writes],
    }


def merge_writes_pipeline(writes: list[PendingWriteRecord]) -> list[dict[str, Any]]:
    """The update pipeline of ``put_writes``: special-channel writes replace their ``(task_id, idx)``,
    regular ones are added only when absent (``records.merge_writes`` on the server, one atomic update)."""
    new = [write_document(w) for w in writes]
    replaced = [w.key for w in writes if w.idx < 0]
    key = "$$w." + n.LG_F_KEY
    old = "$$old"
    return [
        {
            "$set": {
                n.LG_F_WRITES: {
                    "$let": {
                        "vars": {"old": {"$ifNull": ["$" + n.LG_F_WRITES, []]}},
                        "in": {
                            "$concatArrays": [
                                {
                                    "$filter": {
                                        "input": old,
                                        "as": "w",
                                        "cond": {"$eq": [False, {"$in": [key, literal(replaced)]}]},
                                    }
                                },
                                {
                                    "$filter": {
                                        "input": literal(new),
                                        "as": "w",
                                        "cond": {
                                            "$or": [
                                                {"$lt": ["$$w." + n.LG_F_IDX, 0]},
                                                {"$eq": [False, {"$in": [key, old + "." + n.LG_F_KEY]}]},
                                            ]
                                        },
                                    }
                                },
                            ]
                        },
                    }
                }
            }
        }
    ]


# --- decoding ---------------------------------------------------------------------------------------


def _req(doc: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = doc.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise CodecError(f"checkpoint document field {key!r} is not a {_kind_name(kind)}")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    return "/".join(k.__name__ for k in kind) if isinstance(kind, tuple) else kind.__name__


def _stored_pair(doc: Mapping[str, Any], key: str) -> StoredValue:
    sub = _req(doc, key, dict)
    data = bytes(_req(sub, n.LG_F_DATA, bytes))
    return StoredValue(_req(sub, n.LG_F_TYPE, str), data, None, len(data))


def _stored_value(doc: Mapping[str, Any]) -> StoredValue:
    type_ = _req(doc, n.LG_F_TYPE, str)
    size = int(doc.get(n.LG_F_SIZE) or 0)
    if n.LG_F_FILE_ID in doc:
        return StoredValue(type_, None, doc[n.LG_F_FILE_ID], size)
    data = bytes(_req(doc, n.LG_F_DATA, bytes))
    return StoredValue(type_, data, None, len(data))


def _version_of(value: Any) -> Version:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise CodecError("checkpoint document holds a channel version that is not a str, int or float")
    return int(value) if isinstance(value, int) else value


def value_from_document(doc: Mapping[str, Any]) -> ChannelValue:
    return ChannelValue(_req(doc, n.LG_F_CHANNEL, str), _version_of(doc.get(n.LG_F_VERSION)), _stored_value(doc))


def write_from_document(doc: Mapping[str, Any]) -> PendingWriteRecord:
    return PendingWriteRecord(
        task_id=_req(doc, n.LG_F_TASK_ID, str),
        task_path=_req(doc, n.LG_F_TASK_PATH, str),
        idx=int(_req(doc, n.LG_F_IDX, int)),
        channel=_req(doc, n.LG_F_CHANNEL, str),
        value=_stored_value(doc),
    )


def record_from_document(doc: Mapping[str, Any]) -> CheckpointRecord:
    """A checkpoint document as a record (``CodecError`` naming the field when it is damaged)."""
    parent = doc.get(n.LG_F_PARENT_CHECKPOINT_ID)
    run_id = doc.get(n.LG_F_RUN_ID)
    token = doc.get(n.LG_F_FENCING_TOKEN)
    return CheckpointRecord(
        thread_id=_req(doc, n.LG_F_THREAD_ID, str),
        checkpoint_ns=_req(doc, n.LG_F_CHECKPOINT_NS, str),
        checkpoint_id=_req(doc, n.LG_F_CHECKPOINT_ID, str),
        parent_checkpoint_id=parent if isinstance(parent, str) else None,
        checkpoint=_stored_pair(doc, n.LG_F_CHECKPOINT),
        channel_versions=tuple(
            (_req(v, n.LG_F_CHANNEL, str), _version_of(v.get(n.LG_F_VERSION)))
            for v in _req(doc, n.LG_F_CHANNEL_VERSIONS, list)
        ),
        metadata=_stored_pair(doc, n.LG_F_METADATA),
        metadata_keys=tuple(
            (_req(m, n.LG_F_KEY, str), _version_of(m.get(n.LG_F_VALUE))) for m in doc.get(n.LG_F_METADATA_KEYS) or []
        ),
        run_id=run_id if isinstance(run_id, str) else None,
        values=tuple(value_from_document(v) for v in doc.get(n.LG_F_VALUES) or []),
        writes=tuple(write_from_document(w) for w in doc.get(n.LG_F_WRITES) or []),
        fencing_token=None if token is None else int(token),
    )
