"""What the console reads and (with ``--allow-writes``) changes: the session stores of the deployment ``uri``
names (MongoDB, Redis or PostgreSQL), read through :mod:`aimon_mongo.inspect`, and on MongoDB the GridFS
filesystem with its snapshots; opened once per console process and closed with it."""

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
from aimon_mongo.inspect import Inspector, SessionDetail, SessionRow, inspector_for
from aimon_mongo.model import BackgroundTask, TaskQuery
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.model.vfs import FileInfo, FsckReport, Usage
from aimon_mongo.mongo.clients import mongo_client
from aimon_mongo.opening import backend_of, open_backends
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
    """The console's view of one deployment: ``uri`` (``mongodb://``, ``redis://``, ``postgresql://`` ...),
    the session database (MongoDB), schema (PostgreSQL, ``pg_schema``) or key root (Redis, ``redis_root``:
    every key prefix moved under it), and on MongoDB the filesystem database and bucket and the snapshot
    directory inside that filesystem (files and snapshots live in GridFS: other backends have none)."""

    uri: str
    session_db: str = names.DEFAULT_SESSION_DATABASE
    vfs_db: str = names.DEFAULT_VFS_DATABASE
    bucket: str = names.DEFAULT_GRIDFS_BUCKET
    snapshot_dir: str = DEFAULT_SNAPSHOT_BASE_DIR
    timeout_ms: int = 5000
    node_id: str = field(default_factory=lambda: f"{CONSOLE_NODE_PREFIX}-{uuid.uuid4().hex[:8]}")
    pg_schema: str = names.PG_DEFAULT_SCHEMA
    redis_root: str | None = None
    _client: MongoClient[dict[str, Any]] | None = None
    _backends: Any = None
    _inspector: Inspector | None = None
    _fs: GridFSFileSystem | None = None

    @property
    def backend(self) -> str:
        """``mongo`` (also for a bare ``host:port`` list), ``redis`` or ``postgres``."""
        return "mongo" if "://" not in self.uri else backend_of(self.uri)

    @property
    def has_files(self) -> bool:
        """Whether the deployment has the GridFS filesystem (files and snapshots): MongoDB only."""
        return self.backend == "mongo"

    @property
    def client(self) -> MongoClient[dict[str, Any]]:
        if self._client is None:
            self._client = mongo_client(self.uri, timeout_ms=self.timeout_ms)
        return self._client

    @property
    def backends(self) -> Any:
        """The session stores (a sync bundle of the backend ``uri`` names)."""
        if self._backends is None:
            backend = self.backend
            if backend == "mongo":
                from aimon_mongo.mongo import MongoSessionBackends

                self._backends = MongoSessionBackends(self.client[self.session_db], self.node_id)
            elif backend == "postgres":  # the console never holds a lease: no replication check to run
                self._backends = open_backends(
                    self.uri, node_id=self.node_id, schema=self.pg_schema, replication_guard="off"
                )
            elif backend == "redis":
                from aimon_mongo.redis import RedisKeyPrefixes

                root = self.redis_root
                prefixes = RedisKeyPrefixes() if root is None else RedisKeyPrefixes().under(root)
                self._backends = open_backends(self.uri, node_id=self.node_id, key_prefixes=prefixes)
            else:
                raise ValueError("memory:// holds nothing outside the process that made it: the console cannot read it")
        return self._backends

    @property
    def inspector(self) -> Inspector:
        """The read-only views over :attr:`backends`."""
        if self._inspector is None:
            self._inspector = inspector_for(self.backends)
        return self._inspector

    @property
    def fs(self) -> GridFSFileSystem:
        if not self.has_files:
            shown = {"redis": "Redis", "postgres": "PostgreSQL"}.get(self.backend, self.backend)
            raise NotFound(f"files and snapshots are kept in MongoDB (GridFS): this console reads a {shown} deployment")
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
        self._backends = self._fs = self._client = self._inspector = None

    # --- sessions ---------------------------------------------------------------------------------

    def server_time(self) -> datetime | None:
        """The store's clock, which decides lease expiry."""
        return self.inspector.server_time()

    def sessions(self, after: str, limit: int) -> tuple[list[SessionRow], str | None]:
        return self.inspector.session_page(after, limit)

    def session(self, session_id: str) -> SessionDetail:
        """One session's row (zeros and no lease when nothing is stored for it) and its waiting entries."""
        return self.inspector.session(session_id, 100)

    # --- quarantine ---------------------------------------------------------------------------------

    def quarantine(
        self, session_id: str | None, after: str | None, limit: int
    ) -> tuple[list[QuarantinedEntry], str | None]:
        return self.inspector.quarantine_page(session_id, after, limit)

    def quarantined(self, quarantine_id: str) -> QuarantinedEntry:
        entry = self.inspector.find_quarantined(quarantine_id)
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
            new_id: str = self.backends.inbox.replay_quarantined(quarantine_id, raw)
            return new_id
        except CodecError as exc:
            raise ValueError(f"not replayed, the entry is kept: {exc}") from None

    def delete_quarantined(self, quarantine_id: str) -> None:
        if not self.backends.inbox.delete_quarantined(quarantine_id):
            raise NotFound(f"no quarantined entry {quarantine_id!r}")

    # --- tasks --------------------------------------------------------------------------------------

    def tasks(self, query: TaskQuery | None, offset: int, limit: int) -> tuple[list[BackgroundTask], bool]:
        return self.inspector.tasks_page(query, offset, limit)

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
    """The raw stored form of a quarantined entry as JSON: MongoDB's document as relaxed Extended JSON (what
    replay accepts), the envelope text of Redis and PostgreSQL as its JSON value when it parses."""
    value = json.loads(json_util.dumps(entry.raw, json_options=RELAXED_JSON_OPTIONS))
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            pass
    return json.dumps(value, indent=2, ensure_ascii=False)
