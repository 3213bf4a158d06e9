"""What the console reads and (with ``--allow-writes``) changes: the MongoDB session stores and the GridFS
filesystem, opened once per console process and closed with it."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bson import json_util
from bson.json_util import RELAXED_JSON_OPTIONS
from pymongo import MongoClient

from aimon_mongo import names
from aimon_mongo.errors import CodecError, VfsFileNotFoundError
from aimon_mongo.model import BackgroundTask, TaskQuery
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.model.vfs import FileInfo, FsckReport, Usage
from aimon_mongo.mongo import MongoSessionBackends, overview
from aimon_mongo.snapshots import DEFAULT_SNAPSHOT_BASE_DIR, SnapshotEntry, VfsSessionSnapshotStore
from aimon_mongo.snapshots.envelope import EnvelopeError, StoredEnvelope, decode_snapshot, read_envelope
from aimon_mongo.snapshots.model import SessionSnapshot
from aimon_mongo.vfs import GridFSFileSystem

CONSOLE_NODE_PREFIX = "aimon-mongo-console"
"""The console's node id is this plus a random suffix: it never publishes or holds a lease, and a
fresh id lets it receive every node's signals."""


class NotFound(LookupError):
    """What the console was asked for does not exist (shown as 404, with this message)."""


@dataclass
class ConsoleData:
    """The console's view of one deployment: ``uri``, the session database, the filesystem database and
    bucket, and the snapshot directory inside that filesystem."""

    uri: str
    session_db: str = names.DEFAULT_SESSION_DATABASE
    vfs_db: str = names.DEFAULT_VFS_DATABASE
    bucket: str = names.DEFAULT_GRIDFS_BUCKET
    snapshot_dir: str = DEFAULT_SNAPSHOT_BASE_DIR
    timeout_ms: int = 5000
    node_id: str = field(default_factory=lambda: f"{CONSOLE_NODE_PREFIX}-{uuid.uuid4().hex[:8]}")
    _client: MongoClient[dict[str, Any]] | None = None
    _backends: MongoSessionBackends | None = None
    _fs: GridFSFileSystem | None = None

    @property
    def client(self) -> MongoClient[dict[str, Any]]:
        if self._client is None:
            self._client = MongoClient(self.uri, serverSelectionTimeoutMS=self.timeout_ms, tz_aware=True)
        return self._client

    @property
    def backends(self) -> MongoSessionBackends:
        if self._backends is None:
            self._backends = MongoSessionBackends(self.client[self.session_db], self.node_id)
        return self._backends

    @property
    def fs(self) -> GridFSFileSystem:
        if self._fs is None:
            fs = GridFSFileSystem(self.client, self.vfs_db, self.bucket)
            fs.initialize()
            self._fs = fs
        return self._fs

    def close(self) -> None:
        """Close the stores, then the client."""
        for closing in (self._backends, self._fs, self._client):
            if closing is not None:
                closing.close()
        self._backends = self._fs = self._client = None

    # --- sessions ---------------------------------------------------------------------------------

    def server_time(self) -> datetime | None:
        """The server's clock (``hello.localTime``), which decides lease expiry."""
        # command() decodes with PyMongo's default options unless told: naive datetimes, without their zone
        database = self.client[self.session_db]
        found = database.command("hello", codec_options=database.codec_options).get("localTime")
        return found if isinstance(found, datetime) else None

    def sessions(self, after: str, limit: int) -> tuple[list[dict[str, Any]], str | None]:
        names_ = self.backends.collection_names
        return overview.session_page(self.client[self.session_db], names_, after, limit)

    def session(self, session_id: str) -> dict[str, Any]:
        """One session's row (zeros and no lease when nothing is stored for it) and its waiting entries."""
        names_ = self.backends.collection_names
        database = self.client[self.session_db]
        stats = overview.inbox_stats(database, names_.inbox, names_.quarantine, [session_id])
        leases = overview.lease_states(database[names_.locks], [session_id])
        row = stats[0] if stats else overview.empty_stats(session_id)
        batch = self.backends.inbox.peek(session_id, 100)
        return {**row, "lease": leases[0] if leases else None, "waiting": batch}

    # --- quarantine ---------------------------------------------------------------------------------

    def quarantine(
        self, session_id: str | None, after: str | None, limit: int
    ) -> tuple[list[QuarantinedEntry], str | None]:
        collection = self.client[self.session_db][self.backends.collection_names.quarantine]
        return overview.quarantine_page(collection, session_id, after, limit)

    def quarantined(self, quarantine_id: str) -> QuarantinedEntry:
        collection = self.client[self.session_db][self.backends.collection_names.quarantine]
        entry = overview.find_quarantined(collection, quarantine_id)
        if entry is None:
            raise NotFound(f"no quarantined entry {quarantine_id!r}")
        return entry

    def replay(self, quarantine_id: str, corrected: str | None) -> str:
        """Deliver the entry again (or ``corrected``, Extended JSON); returns the new inbox id."""
        self.quarantined(quarantine_id)
        try:
            raw = None if not corrected else json_util.loads(corrected)
        except ValueError as exc:
            raise ValueError(f"the corrected document is not Extended JSON: {type(exc).__name__}") from None
        try:
            return self.backends.inbox.replay_quarantined(quarantine_id, raw)
        except CodecError as exc:
            raise ValueError(f"not replayed, the entry is kept: {exc}") from None

    def delete_quarantined(self, quarantine_id: str) -> None:
        if not self.backends.inbox.delete_quarantined(quarantine_id):
            raise NotFound(f"no quarantined entry {quarantine_id!r}")

    # --- tasks --------------------------------------------------------------------------------------

    def tasks(self, query: TaskQuery | None, offset: int, limit: int) -> tuple[list[BackgroundTask], bool]:
        collection = self.client[self.session_db][self.backends.collection_names.tasks]
        return overview.tasks_page(collection, query, offset, limit)

    # --- snapshots ----------------------------------------------------------------------------------

    @property
    def snapshot_store(self) -> VfsSessionSnapshotStore:
        return VfsSessionSnapshotStore(self.fs, base_dir=self.snapshot_dir)

    def snapshots(self, context_id: str | None, offset: int, limit: int) -> tuple[list[SnapshotEntry], bool]:
        entries = self.snapshot_store.list_snapshots()
        if context_id:
            entries = [entry for entry in entries if entry.context_id == context_id]
        return entries[offset : offset + limit], len(entries) > offset + limit

    def transcript(self, task_id: str) -> tuple[StoredEnvelope, SessionSnapshot]:
        """The stored envelope and decoded snapshot of a task; :class:`NotFound` / ``ValueError`` (with the
        reason) when it is missing or unreadable."""
        store = self.snapshot_store
        try:
            data = store.fs.read(store.path_of(task_id))
        except VfsFileNotFoundError:
            raise NotFound(f"no snapshot for task {task_id!r} in {store.base_dir}/") from None
        try:
            envelope = read_envelope(data)
        except EnvelopeError as exc:
            template, args = exc.warning(task_id)
            raise ValueError(template % args) from None
        try:
            return envelope, decode_snapshot(store.codec, envelope)
        except Exception as exc:
            raise ValueError(f"snapshot of task {task_id!r} cannot be decoded: {type(exc).__name__}") from None

    # --- files --------------------------------------------------------------------------------------

    def listing(self, path: str, offset: int, limit: int) -> tuple[list[FileInfo], int]:
        """A page of a directory's children (directories first, then by name) and how many it has."""
        if path and not self.fs.is_dir(path):
            raise NotFound(f"no directory {path!r}")
        children = sorted(self.fs.ls_info(path or "."), key=lambda info: (not info.is_dir, info.path))
        return children[offset : offset + limit], len(children)

    def info(self, path: str) -> FileInfo:
        try:
            return self.fs.info(path)
        except VfsFileNotFoundError:
            raise NotFound(f"no file {path!r}") from None

    def read(self, path: str, limit: int | None = None) -> bytes:
        try:
            return self.fs.read(path) if limit is None else self.fs.read_range(path, 0, limit)
        except VfsFileNotFoundError:
            raise NotFound(f"no file {path!r}") from None

    def usage(self, path: str) -> Usage:
        return self.fs.usage(path or None)

    def fsck(self) -> FsckReport:
        """The bucket check, without repairing anything."""
        return self.fs.fsck(repair=False)


def raw_json(entry: QuarantinedEntry) -> str:
    """The raw stored document of a quarantined entry as relaxed Extended JSON (what replay accepts)."""
    value = json.loads(json_util.dumps(entry.raw, json_options=RELAXED_JSON_OPTIONS))
    return json.dumps(value, indent=2, ensure_ascii=False)
