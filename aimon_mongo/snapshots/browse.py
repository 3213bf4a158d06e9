"""Browsing stored snapshots (pure): one :class:`SnapshotEntry` per ``<task_id>.json`` object.

An entry is built from the object's listing info (size, modified time) and a light read of its envelope
(subagent name, context id, the embedded document's ``version`` and message count); the snapshot itself
is not decoded. An object that cannot be read as an envelope still gets an entry, with ``problem`` saying
why, so an operator sees every stored object (``load`` would answer ``None`` for it).
"""

from __future__ import annotations

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


def unreadable_entry(task_id: str, info: FileInfo, problem: str) -> SnapshotEntry:
    """The entry of an object that could not be read at all."""
    return SnapshotEntry(task_id=task_id, size=info.size, modified=info.modified, problem=problem)
