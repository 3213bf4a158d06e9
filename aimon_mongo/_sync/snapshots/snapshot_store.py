# GENERATED from aimon_mongo/_async/snapshots/snapshot_store.py by scripts/gen_sync.py; do not edit.
"""``VfsSessionSnapshotStore``: subagent transcripts as one envelope object per task in a filesystem.

The object is ``<base_dir>/<task_id>.json`` holding ``{"v":1,"subagentName","contextId"?,"snapshot"}``
(:mod:`aimon_mongo.snapshots.envelope`). Any :class:`~aimon_mongo.vfs.protocol.FileSystem` works:
over GridFS it lets a task saved on one node resume on another.

``save`` is one write, last-write-wins: the filesystem replaces the object whole (GridFS uploads the new
revision, then retires the old ones), so a failed save leaves the previous snapshot readable and a
concurrent ``load`` sees one complete envelope or none. ``save`` and ``evict`` are best-effort (a failure
is logged, never raised); ``load`` answers ``None`` for anything it cannot resume, like an unknown task.
Bad arguments (a task id that is not one path segment, a wrong type) raise
:class:`~aimon_mongo.errors.InvalidArgumentError` before any I/O.
"""

from __future__ import annotations

from aimon_mongo import names as n
from aimon_mongo._sync.snapshots.objects import FirstUse, delete_quietly, read_or_none, write_best_effort
from aimon_mongo.errors import InvalidArgumentError, VfsFileNotFoundError
from aimon_mongo.exported import exported_from
from aimon_mongo.snapshots.browse import SnapshotEntry, listed_entry, snapshot_entry, unreadable_entry
from aimon_mongo.snapshots.codec import JsonSessionSnapshotCodec
from aimon_mongo.snapshots.envelope import (
    ResumableSession,
    SessionSnapshotCodec,
    build_envelope,
    check_save_arguments,
    failure_text,
    listing_attributes,
    resume,
)
from aimon_mongo.snapshots.layout import DEFAULT_SNAPSHOT_BASE_DIR, object_path, task_id_of, validate_base_dir
from aimon_mongo.snapshots.model import SessionSnapshot
from aimon_mongo.vfs.protocol import FileSystem

_WHAT = "session snapshot"


@exported_from("aimon_mongo.snapshots")
class VfsSessionSnapshotStore:
    """Session snapshots in a filesystem (shared and persistent; see the module docstring)."""

    def __init__(
        self,
        fs: FileSystem,
        codec: SessionSnapshotCodec | None = None,
        base_dir: str = DEFAULT_SNAPSHOT_BASE_DIR,
    ) -> None:
        if fs is None:
            raise InvalidArgumentError("fs cannot be None")
        self.fs = fs
        self._opened = FirstUse(fs)  # initialised on first use
        self.codec: SessionSnapshotCodec = JsonSessionSnapshotCodec() if codec is None else codec
        self.base_dir = validate_base_dir(base_dir)

    def path_of(self, task_id: str) -> str:
        """The object path of a task's snapshot (validates the task id)."""
        return object_path(self.base_dir, task_id, n.SNAP_STORE_SUFFIX)

    def save(
        self, task_id: str, subagent_name: str, agent_runtime_id: str | None, snapshot: SessionSnapshot
    ) -> None:
        """Store ``snapshot`` for ``task_id``, replacing any previous one; never raises for a backend failure.

        ``agent_runtime_id`` (``agent:<name>[:<discriminator>]``) tags the snapshot for scoped loads;
        ``None`` leaves it untagged.
        """
        check_save_arguments(task_id, subagent_name, agent_runtime_id, snapshot)
        write_best_effort(
            self._opened,
            self.path_of(task_id),
            lambda: build_envelope(self.codec, subagent_name, agent_runtime_id, snapshot),
            _WHAT,
            task_id,
            lambda: listing_attributes(self.codec, subagent_name, agent_runtime_id, snapshot),
        )

    def load(self, task_id: str) -> ResumableSession | None:
        """The stored session, or ``None`` when there is none or it cannot be read (logged at WARN)."""
        data = read_or_none(self._opened, self.path_of(task_id), _WHAT, task_id)
        return None if data is None else resume(self.codec, task_id, data)

    def evict(self, task_id: str) -> None:
        """Remove a task's snapshot; quiet when there is none, failures logged at DEBUG only."""
        delete_quietly(self._opened, self.path_of(task_id), _WHAT, task_id)

    def list_snapshots(self) -> list[SnapshotEntry]:
        """Every stored snapshot object, in task-id order, without decoding the transcripts.

        One listing: the subagent name, context id, version and message count come from the attributes
        ``save`` stores with each object; only an object without them (saved by an older build, or on a
        filesystem that keeps no attributes) is read, once. Sizes and times come from the listing.
        Backend failures of the listing itself raise (this is an operator API, not a best-effort one); an
        object that vanishes meanwhile is left out.
        """
        try:
            fs = self._opened()
            infos = fs.ls_info(self.base_dir)
        except VfsFileNotFoundError:
            return []
        entries: list[SnapshotEntry] = []
        for info in infos:
            task_id = None if info.is_dir else task_id_of(info.path, n.SNAP_STORE_SUFFIX)
            if task_id is None:
                continue
            listed = listed_entry(task_id, info)
            if listed is not None:
                entries.append(listed)
                continue
            try:
                data = fs.read(info.path)
            except VfsFileNotFoundError:
                continue
            except Exception as exc:
                entries.append(unreadable_entry(task_id, info, f"could not be read: {failure_text(exc)}"))
                continue
            entries.append(snapshot_entry(task_id, info, data))
        return entries
