"""Browsing stored snapshots (pure): one :class:`SnapshotEntry` per ``<task_id>.json`` object.

An entry is built from the object's listing info (size, modified time) and, for the rest (subagent name,
context id, the embedded document's ``version`` and message count), from the listing attributes ``save``
stores with the object or, when it has none (older builds, the local filesystem), a light read of its
envelope; the snapshot itself is not decoded. An object that cannot be read as an envelope still gets an
entry, with ``problem`` saying why, so an operator sees every stored object (``load`` would answer
``None`` for it).
"""

from __future__ import annotations

from aimon_mongo import names as n
from aimon_mongo.model._base import Frozen, UtcDatetime
from aimon_mongo.model.vfs import FileInfo
from aimon_mongo.snapshots.envelope import EnvelopeError, read_envelope


class SnapshotEntry(Frozen):
    """What the store holds for one task, without decoding the transcript."""

    task_id: str
    size: int
    """Bytes of the stored envelope."""
    modified: UtcDatetime
    subagent_name: str | None = None
    context_id: str | None = None
    """The agent runtime id the snapshot is tagged with (``None`` when untagged or malformed)."""
    message_count: int | None = None
    """Messages the document carries (sealed ones are not carried)."""
    format_version: int | None = None
    """The snapshot document's ``version`` (1 or 2)."""
    problem: str | None = None
    """What is wrong with the object, as far as a light read tells: an unreadable envelope (``load`` answers
    ``None``) or a malformed ``contextId`` (read as absent). The transcript itself is not checked."""


def snapshot_entry(task_id: str, info: FileInfo, data: bytes) -> SnapshotEntry:
    """The entry of one stored envelope."""
    try:
        envelope = read_envelope(data)
    except EnvelopeError as exc:
        template, args = exc.warning(task_id)
        return unreadable_entry(task_id, info, template % args)
    return SnapshotEntry(
        task_id=task_id,
        size=info.size,
        modified=info.modified,
        subagent_name=envelope.subagent_name,
        context_id=envelope.context_id,
        message_count=envelope.message_count,
        format_version=envelope.format_version,
        problem="contextId is not an agent runtime id (read as absent)" if envelope.context_id_malformed else None,
    )


def listed_entry(task_id: str, info: FileInfo) -> SnapshotEntry | None:
    """The entry of an envelope from its listing attributes alone (written by ``save``), or ``None`` when
    they are absent or unreadable (an older or foreign save): then its envelope is read."""
    attributes = info.custom_metadata
    name = attributes.get(n.SNAP_ATTR_SUBAGENT_NAME)
    version = attributes.get(n.SNAP_ATTR_FORMAT_VERSION, "")
    count = attributes.get(n.SNAP_ATTR_MESSAGE_COUNT, "")
    if name is None or not version.isdigit() or not count.isdigit():
        return None
    return SnapshotEntry(
        task_id=task_id,
        size=info.size,
        modified=info.modified,
        subagent_name=name,
        context_id=attributes.get(n.SNAP_ATTR_CONTEXT_ID),
        message_count=int(count),
        format_version=int(version),
    )


def unreadable_entry(task_id: str, info: FileInfo, problem: str) -> SnapshotEntry:
    """The entry of an object that could not be read at all."""
    return SnapshotEntry(task_id=task_id, size=info.size, modified=info.modified, problem=problem)
