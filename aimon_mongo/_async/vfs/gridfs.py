"""The virtual filesystem on MongoDB GridFS (async source; the sync twin is generated).

Storage is the standard GridFS bucket (``<bucket>.files`` / ``<bucket>.chunks``) that every driver and
the reference write: ``filename`` is the VFS path verbatim, markers are zero-length files named
``<dir>/`` with ``metadata.type = "directory"``, and ``metadata`` of a file holds ``path``, ``uploadDate``
(ISO text) and ``contentSha256``. Listing reads the ``{filename: 1, uploadDate: 1}`` index in pages that
grow while they meet the directory's own files and re-seeks past each subdirectory's subtree, so ``ls``
costs a few reads for a flat directory and one per subdirectory child, never O(descendants); totals are
a server-side ``$group``.

Chunks are written and read by the one chunk reader/writer (:mod:`aimon_mongo._async.mongo.chunks`), in the
GridFS layout, rather than through the driver's ``GridIn`` / ``GridOut``: reads fetch bounded batches of
chunks (never one reply with every chunk of a large file), and a conditional write controls the moment its
files document becomes the newest revision.

A conditional write (``if_revision`` / ``if_absent``, and appends) records the revision it replaces in
``metadata.predecessor``; a unique partial index on that key lets exactly one writer replace a given
revision. The files document is inserted *older* than the revision it replaces (invisible to readers),
checked, then moved to "now" (published); a claim a crashed writer left unpublished is cleared after
:data:`STALE_CLAIM_SECONDS`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Self

from pymongo import ASCENDING, DESCENDING, AsyncMongoClient
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import ConnectionFailure, DuplicateKeyError, PyMongoError

from aimon_mongo._async.mongo.chunks import AsyncChunkReader, AsyncChunkWriter, MissingChunks
from aimon_mongo._async.vfs.bucket import AsyncBucketFileSystem
from aimon_mongo._async.vfs.fsck import run_fsck
from aimon_mongo._async.vfs.store import Committed, WriteCheck
from aimon_mongo._async_runtime import monotonic, sleep
from aimon_mongo.codec.instant import as_utc, to_millis
from aimon_mongo.errors import (
    BackendConnectionError,
    FileReplacedError,
    InvalidArgumentError,
    VfsBackendUnavailable,
    display_path,
)
from aimon_mongo.exported import exported_from
from aimon_mongo.model.vfs import BackendType, FsckReport
from aimon_mongo.mongo.clients import display_uri, open_client
from aimon_mongo.mongo.durability import MAJORITY, Durability, durable, require_durability
from aimon_mongo.names import (
    DEFAULT_GRIDFS_BUCKET,
    DEFAULT_GRIDFS_CHUNK_SIZE,
    DEFAULT_VFS_DATABASE,
    GRIDFS_CHUNK_SIZE,
    GRIDFS_CHUNKS_SUFFIX,
    GRIDFS_FILENAME,
    GRIDFS_FILES_ID,
    GRIDFS_FILES_SUFFIX,
    GRIDFS_LENGTH,
    GRIDFS_METADATA,
    GRIDFS_N,
    GRIDFS_UPLOAD_DATE,
    VFS_GRIDFS_SCHEME,
    VFS_MARKER_TYPE,
    VFS_META_PREDECESSOR,
    VFS_META_TYPE,
    VFS_PREDECESSOR_INDEX,
)
from aimon_mongo.services.failures import cause_text
from aimon_mongo.vfs.file_ids import spread_file_id
from aimon_mongo.vfs.guard import backend_type_name
from aimon_mongo.vfs.listing import Seek
from aimon_mongo.vfs.paths import SEPARATOR, successor
from aimon_mongo.vfs.records import EPOCH, TICK, Revision, predecessor_key, with_predecessor
from aimon_mongo.vfs.sizecap import NO_MAX_FILE_SIZE

NEWEST_FIRST = [(GRIDFS_UPLOAD_DATE, DESCENDING), ("_id", DESCENDING)]
BY_NAME = [(GRIDFS_FILENAME, ASCENDING), (GRIDFS_UPLOAD_DATE, ASCENDING)]
FILES_INDEX = [(GRIDFS_FILENAME, ASCENDING), (GRIDFS_UPLOAD_DATE, ASCENDING)]
CHUNKS_INDEX = [(GRIDFS_FILES_ID, ASCENDING), (GRIDFS_N, ASCENDING)]
PREDECESSOR_FIELD = f"{GRIDFS_METADATA}.{VFS_META_PREDECESSOR}"
STALE_CLAIM_SECONDS = 2.0
"""How long an unpublished conditional write may block others before it counts as abandoned."""
_CLAIM_POLL = 0.02
_DELETE_BATCH = 500
_REVISION_FIELDS = {
    "_id": 1,
    GRIDFS_FILENAME: 1,
    GRIDFS_LENGTH: 1,
    GRIDFS_CHUNK_SIZE: 1,
    GRIDFS_UPLOAD_DATE: 1,
    GRIDFS_METADATA: 1,
}


_NAME_FIELDS = {"_id": 1, GRIDFS_FILENAME: 1, GRIDFS_UPLOAD_DATE: 1}
_CONTENT_FIELDS = {"_id": 1, GRIDFS_FILENAME: 1, GRIDFS_LENGTH: 1, GRIDFS_CHUNK_SIZE: 1, GRIDFS_UPLOAD_DATE: 1}
_HEAD = "head"
"""The field the chunk-fetching ``$lookup`` adds (in the reply only, never stored)."""
_DATA = "data"


def _head_lookup(chunks: str) -> dict[str, Any]:
    """The ``$lookup`` stage that adds ``head``: the chunk ``n = 0`` of a files document whose whole content
    fits one chunk (none for empty and multi-chunk files), found by the ``chunks`` collection's ``files_id``
    index (the concise ``localField`` + ``pipeline`` form: MongoDB 5.0 and later)."""
    one_chunk = {"$lte": [f"${GRIDFS_LENGTH}", f"${GRIDFS_CHUNK_SIZE}"]}  # an empty file has no chunk
    return {
        "$lookup": {
            "from": chunks,
            "localField": "_id",
            "foreignField": GRIDFS_FILES_ID,
            "let": {"whole": one_chunk},
            "pipeline": [{"$match": {GRIDFS_N: 0, "$expr": "$$whole"}}, {"$project": {"_id": 0, _DATA: 1}}],
            "as": _HEAD,
        }
    }


def _head_of(doc: Mapping[str, Any], revision: Revision) -> bytes | None:
    """The whole content a ``$lookup`` brought along with a files document, if it is all there: ``b""``
    for an empty file, else the one chunk when its length is the file's (anything else is read, and
    checked, by the chunk reader). Plain ``dict`` / ``list`` checks: this runs once per file of a grep."""
    if revision.length == 0:
        return b""
    heads = doc.get(_HEAD)
    if type(heads) is not list or len(heads) != 1 or type(heads[0]) is not dict:
        return None
    data = heads[0].get(_DATA)
    return data if type(data) is bytes and len(data) == revision.length else None


def _range(prefix: str) -> dict[str, Any]:
    """Filter on the names under a directory prefix (a range, never a regex); ``{}`` for the root."""
    return {GRIDFS_FILENAME: {"$gte": prefix, "$lt": successor(prefix)}} if prefix else {}


def _revision(doc: Mapping[str, Any]) -> Revision:
    return Revision(
        id=doc["_id"],
        filename=doc[GRIDFS_FILENAME],
        length=int(doc.get(GRIDFS_LENGTH, 0)),
        upload_date=doc[GRIDFS_UPLOAD_DATE],
        metadata=doc.get(GRIDFS_METADATA),
        chunk_size=doc.get(GRIDFS_CHUNK_SIZE),
    )


def _now() -> datetime:
    return to_millis(datetime.now(UTC))


class _GridUpload:
    """Chunks go out through the one chunk writer; the files document is inserted at commit."""

    def __init__(self, store: AsyncGridFSStore, name: str) -> None:
        self._store = store
        self._name = name
        # not monotonic: new chunks spread over a sharded chunks key
        self._chunks = AsyncChunkWriter(store.chunks, spread_file_id(name), store.chunk_size)
        self._id = self._chunks.file_id

    async def write(self, data: bytes) -> None:
        await self._chunks.write(data)

    def _made(self, metadata: Mapping[str, Any], upload_date: datetime) -> Revision:
        return Revision(self._id, self._name, self._chunks.length, upload_date, dict(metadata), self._chunks.chunk_size)

    async def commit(self, metadata: Mapping[str, Any], not_before: datetime | None = None) -> Revision:
        await self._chunks.finish()
        stamp = _now() if not_before is None else max(_now(), not_before)
        await self._store.files.insert_one(self._chunks.files_document(self._name, metadata, stamp))
        return self._made(metadata, stamp)

    async def commit_if(self, metadata: Mapping[str, Any], base: Revision | None) -> Committed | None:
        await self._chunks.finish()
        stored = with_predecessor(metadata, predecessor_key(base, self._name))
        hidden = EPOCH if base is None else as_utc(base.upload_date) - TICK
        if not await self._store.claim(self._chunks.files_document(self._name, stored, hidden), base):
            return None  # the chunks stay for another attempt or the caller's abort
        others = [r for r in await self._store.revisions(self._name) if r.id != self._id]
        won = (not others) if base is None else bool(others) and others[0].id == base.id
        if won:
            stamp = max(_now(), as_utc(others[0].upload_date) + TICK) if others else _now()
            if await self._store.publish(self._id, hidden, stamp):
                return self._made(stored, stamp), others
        await self._store.files.delete_one({"_id": self._id})  # the claim only: the chunks stay (see above)
        return None

    async def abort(self) -> None:
        await self._chunks.discard()


class _GridDownload(AsyncChunkReader):
    """Reads one revision through the one chunk reader; a missing chunk is a replaced file (its files
    document is gone) or a corrupt one."""

    def __init__(self, store: AsyncGridFSStore, revision: Revision) -> None:
        super().__init__(store.chunks, revision.id, revision.length, revision.chunk_size or store.chunk_size)
        self._store = store
        self._revision = revision

    async def _vanished(self) -> Exception:
        if await self._store.files.find_one({"_id": self._revision.id}, {"_id": 1}) is None:
            return FileReplacedError(self._revision.filename)
        return BackendConnectionError(
            f"File is corrupt (missing chunks): {display_path(self._revision.filename)}", self._revision.filename
        )

    async def read(self, size: int = -1) -> bytes:
        try:
            return await super().read(size)
        except MissingChunks:
            raise await self._vanished() from None


class AsyncGridFSStore:
    """A GridFS bucket as a store of revisions."""

    store_errors: tuple[type[BaseException], ...] = (PyMongoError,)
    unavailable_errors: tuple[type[BaseException], ...] = (ConnectionFailure,)

    def __init__(self, database: AsyncDatabase[Any], bucket: str, chunk_size: int) -> None:
        self.database = database
        self.bucket_name = bucket
        self.chunk_size = chunk_size
        self.files: AsyncCollection[Any] = database[f"{bucket}.{GRIDFS_FILES_SUFFIX}"]
        self.chunks: AsyncCollection[Any] = database[f"{bucket}.{GRIDFS_CHUNKS_SUFFIX}"]
        self._head_stage = _head_lookup(self.chunks.name)

    async def prepare(self) -> None:
        await self.files.create_index(FILES_INDEX)
        await self.chunks.create_index(CHUNKS_INDEX, unique=True)
        await self.files.create_index(
            [(PREDECESSOR_FIELD, ASCENDING)],
            unique=True,
            partialFilterExpression={PREDECESSOR_FIELD: {"$exists": True}},
            name=VFS_PREDECESSOR_INDEX,
        )

    async def ping(self) -> None:
        await self.database.command("ping")

    async def newest(self, name: str) -> Revision | None:
        doc = await self.files.find_one({GRIDFS_FILENAME: name}, _REVISION_FIELDS, sort=NEWEST_FIRST)
        return _revision(doc) if doc is not None else None

    async def revisions(self, name: str) -> list[Revision]:
        cursor = self.files.find({GRIDFS_FILENAME: name}, _REVISION_FIELDS).sort(NEWEST_FIRST)
        return [_revision(doc) async for doc in cursor]

    async def first_name(self, seek: Seek) -> tuple[str, datetime] | None:
        bounds: dict[str, Any] = {"$gte" if seek.inclusive else "$gt": seek.lower}
        if seek.upper is not None:
            bounds["$lt"] = seek.upper
        projection = {"_id": 0, GRIDFS_FILENAME: 1, GRIDFS_UPLOAD_DATE: 1}
        docs = await self.files.find({GRIDFS_FILENAME: bounds}, projection).sort(BY_NAME).limit(1).to_list(1)
        return (docs[0][GRIDFS_FILENAME], docs[0][GRIDFS_UPLOAD_DATE]) if docs else None

    async def page(self, seek: Seek, limit: int, *, details: bool) -> list[Revision]:
        bounds: dict[str, Any] = {"$gte" if seek.inclusive else "$gt": seek.lower}
        if seek.upper is not None:
            bounds["$lt"] = seek.upper
        projection = _REVISION_FIELDS if details else _NAME_FIELDS
        cursor = self.files.find({GRIDFS_FILENAME: bounds}, projection).sort(BY_NAME)
        docs = await cursor.limit(limit).batch_size(limit).to_list(limit)
        return [_revision(doc) for doc in docs]

    async def write_check(self, name: str, parents: Sequence[str]) -> WriteCheck:
        fields = {"_id": 1, GRIDFS_FILENAME: 1, GRIDFS_UPLOAD_DATE: 1}
        under = name + SEPARATOR
        first_under: list[dict[str, Any]] = [
            {"$match": {GRIDFS_FILENAME: {"$gte": under, "$lt": successor(under)}}},
            {"$sort": {GRIDFS_FILENAME: 1}},
            {"$limit": 1},
            {"$project": fields},
        ]
        pipeline: list[dict[str, Any]] = [
            {"$match": {GRIDFS_FILENAME: {"$in": [*parents, name]}}},
            {"$project": fields},
            {"$unionWith": {"coll": self.files.name, "pipeline": first_under}},
        ]
        stored: dict[str, list[tuple[Any, datetime]]] = {}
        has_children = False
        async for doc in await self.files.aggregate(pipeline):
            if doc[GRIDFS_FILENAME].startswith(under):
                has_children = True
            else:
                stored.setdefault(doc[GRIDFS_FILENAME], []).append((doc["_id"], doc[GRIDFS_UPLOAD_DATE]))
        return WriteCheck(stored, has_children)

    async def retire_older(self, name: str, winner: Revision, known: Sequence[Any]) -> int:
        stamp = winner.upload_date
        older = {
            GRIDFS_FILENAME: name,
            "$or": [{GRIDFS_UPLOAD_DATE: {"$lt": stamp}}, {GRIDFS_UPLOAD_DATE: stamp, "_id": {"$lt": winner.id}}],
        }
        try:
            # Files first: a file document never outlives its chunks; stray chunks are fsck's orphans.
            await self.files.delete_many(older)
            if known:
                await self.chunks.delete_many({GRIDFS_FILES_ID: {"$in": list(known)}})
        except PyMongoError:
            return max(1, len(known))
        return 0

    async def revision_ids(self, names: Sequence[str]) -> dict[str, list[Any]]:
        found: dict[str, list[Any]] = {}
        if names:
            query = {GRIDFS_FILENAME: {"$in": list(names)}}
            async for doc in self.files.find(query, {"_id": 1, GRIDFS_FILENAME: 1}):
                found.setdefault(doc[GRIDFS_FILENAME], []).append(doc["_id"])
        return found

    async def scan(self, prefix: str, *, contents: bool = False) -> AsyncGenerator[tuple[Revision, bytes | None], None]:
        """One ``find`` on the filename index; with ``contents``, one ``aggregate`` of the same range that
        brings each one-chunk file's chunk along (a ``$lookup`` on the chunks index) and no metadata (the
        callers want names and content)."""
        if not contents:
            cursor = self.files.find(_range(prefix), _REVISION_FIELDS).sort(BY_NAME)
            try:
                async for doc in cursor:
                    yield _revision(doc), None
            finally:
                await cursor.close()
            return
        pipeline: list[dict[str, Any]] = [
            {"$match": _range(prefix)},
            {"$sort": dict(BY_NAME)},
            {"$project": _CONTENT_FIELDS},
            self._head_stage,
        ]
        found = await self.files.aggregate(pipeline)
        try:
            async for doc in found:
                revision = _revision(doc)
                yield revision, _head_of(doc, revision)
        finally:
            await found.close()

    async def ids_under(self, name: str, prefix: str) -> list[Any]:
        query = {"$or": [{GRIDFS_FILENAME: name}, _range(prefix)]}
        return [doc["_id"] async for doc in self.files.find(query, {"_id": 1})]

    async def open_upload(self, name: str, metadata: Mapping[str, Any]) -> _GridUpload:
        return _GridUpload(self, name)

    async def open_download(self, revision: Revision) -> _GridDownload:
        return _GridDownload(self, revision)

    async def open_newest(self, name: str) -> tuple[Revision, _GridDownload] | None:
        """One ``aggregate``: the newest files document of ``name`` and, for a one-chunk file, its chunk."""
        pipeline: list[dict[str, Any]] = [
            {"$match": {GRIDFS_FILENAME: name}},
            {"$sort": dict(NEWEST_FIRST)},
            {"$limit": 1},
            {"$project": _REVISION_FIELDS},
            self._head_stage,
        ]
        docs = await (await self.files.aggregate(pipeline)).to_list(1)
        if not docs:
            return None
        revision = _revision(docs[0])
        download = _GridDownload(self, revision)
        head = _head_of(docs[0], revision)
        if head:  # an empty file needs no chunk at all
            download.preload(head)
        return revision, download

    async def claim(self, document: dict[str, Any], base: Revision | None) -> bool:
        """Insert a conditional write's (unpublished) files document; ``False`` if another writer holds the
        same predecessor. A holder that stays unpublished for :data:`STALE_CLAIM_SECONDS` is cleared."""
        key = document[GRIDFS_METADATA][VFS_META_PREDECESSOR]
        deadline: float | None = None
        seen: tuple[Any, Any] | None = None
        while True:
            try:
                await self.files.insert_one(document)
                return True
            except DuplicateKeyError:
                holder = await self.files.find_one({PREDECESSOR_FIELD: key}, {"_id": 1, GRIDFS_UPLOAD_DATE: 1})
            if holder is None:
                continue  # released meanwhile: try again
            hidden = EPOCH if base is None else as_utc(base.upload_date) - TICK
            published = as_utc(holder[GRIDFS_UPLOAD_DATE]) > hidden
            if published:
                return False
            state = (holder["_id"], holder[GRIDFS_UPLOAD_DATE])
            if state != seen:
                seen, deadline = state, monotonic() + STALE_CLAIM_SECONDS
            elif deadline is not None and monotonic() >= deadline:
                await self.files.delete_one({"_id": holder["_id"], GRIDFS_UPLOAD_DATE: holder[GRIDFS_UPLOAD_DATE]})
                await self.chunks.delete_many({GRIDFS_FILES_ID: holder["_id"]})
                continue
            await sleep(_CLAIM_POLL)

    async def publish(self, revision_id: Any, hidden: datetime, stamp: datetime) -> bool:
        """Make an unpublished conditional write the newest revision; ``False`` if it was retired meanwhile."""
        result = await self.files.update_one(
            {"_id": revision_id, GRIDFS_UPLOAD_DATE: hidden}, {"$set": {GRIDFS_UPLOAD_DATE: stamp}}
        )
        return result.matched_count == 1

    async def delete_ids(self, ids: Sequence[Any]) -> int:
        failed = 0
        for start in range(0, len(ids), _DELETE_BATCH):
            batch = list(ids[start : start + _DELETE_BATCH])
            try:
                # Files first: a file document never outlives its chunks; stray chunks are fsck's orphans.
                await self.files.delete_many({"_id": {"$in": batch}})
                await self.chunks.delete_many({GRIDFS_FILES_ID: {"$in": batch}})
            except PyMongoError:
                failed += len(batch)
        return failed

    async def restamp(self, revision_id: Any, upload_date: datetime) -> None:
        await self.files.update_one({"_id": revision_id}, {"$set": {GRIDFS_UPLOAD_DATE: upload_date}})

    async def totals(self, prefix: str) -> tuple[int, int]:
        pipeline: list[dict[str, Any]] = [
            {"$match": {**_range(prefix), f"{GRIDFS_METADATA}.{VFS_META_TYPE}": {"$ne": VFS_MARKER_TYPE}}},
            {"$group": {"_id": None, "totalSize": {"$sum": f"${GRIDFS_LENGTH}"}, "fileCount": {"$sum": 1}}},
        ]
        docs = await (await self.files.aggregate(pipeline)).to_list(1)
        return (int(docs[0]["totalSize"]), int(docs[0]["fileCount"])) if docs else (0, 0)

    async def names_under(self, prefix: str) -> AsyncGenerator[str, None]:
        cursor = self.files.find(_range(prefix), {"_id": 0, GRIDFS_FILENAME: 1})
        try:
            async for doc in cursor:
                yield doc[GRIDFS_FILENAME]
        finally:
            await cursor.close()


_TAKES = "an AsyncMongoClient or AsyncDatabase"  # sync: _TAKES = "a MongoClient or Database"
_OTHER_FLAVOUR_MODULE = "pymongo.synchronous"  # sync: _OTHER_FLAVOUR_MODULE = "pymongo.asynchronous"
_OTHER_FLAVOUR_HINT = "use GridFSFileSystem"  # sync: _OTHER_FLAVOUR_HINT = "use AsyncGridFSFileSystem"


def _database_of(target: object, database: str | None) -> AsyncDatabase[Any]:
    """The database a filesystem works in, from a client (plus a name) or a database object."""
    if isinstance(target, AsyncDatabase):
        if database is not None and database != target.name:
            raise InvalidArgumentError(f"database {database!r} given with a Database object named {target.name!r}")
        return target
    if isinstance(target, AsyncMongoClient):
        name = DEFAULT_VFS_DATABASE if database is None else database
        if not isinstance(name, str) or not name or "/" in name:
            raise InvalidArgumentError(f"database must be a non-empty name without '/', got {name!r}")
        return target[name]
    here = "AsyncGridFSFileSystem"
    if isinstance(target, str):
        raise InvalidArgumentError(
            f"{here} takes {_TAKES}, got the string {display_uri(target)!r}: "
            f"use {here}.from_uri(uri) to connect with a connection string"
        )
    kind = type(target)
    if kind.__module__.startswith(_OTHER_FLAVOUR_MODULE):
        raise InvalidArgumentError(
            f"{here} takes {_TAKES}, got {kind.__name__} of the other flavour: {_OTHER_FLAVOUR_HINT}"
        )
    raise InvalidArgumentError(f"{here} takes {_TAKES}, got {kind.__name__}")


@exported_from("aimon_mongo.vfs")
class AsyncGridFSFileSystem(AsyncBucketFileSystem):
    """The virtual filesystem in a GridFS bucket (default database ``aimon``, bucket ``fs``, 1 MiB chunks).

    Pass a client (or a database object) to *borrow* it (``close()`` leaves it open), or build one with
    :meth:`from_uri`, which the filesystem then *owns* and closes. Call :meth:`initialize` (or use
    ``async with``) before use. Nothing is created in the database until the first write (or
    :meth:`ensure_schema`). Writes and reads use majority concern unless ``durability="as_configured"``
    (see :mod:`aimon_mongo.mongo.durability`).
    """

    backend_type = BackendType.GRIDFS

    def __init__(
        self,
        client: AsyncMongoClient[Any] | AsyncDatabase[Any],
        database: str | None = None,
        bucket: str = DEFAULT_GRIDFS_BUCKET,
        chunk_size: int = DEFAULT_GRIDFS_CHUNK_SIZE,
        max_file_size: int | None = NO_MAX_FILE_SIZE,
        *,
        owns_client: bool = False,
        durability: Durability = MAJORITY,
    ) -> None:
        db = _database_of(client, database)
        db = durable(db, require_durability(durability, f"GridFS filesystem on {db.name!r}", db.write_concern))
        if not isinstance(bucket, str) or not bucket:
            raise InvalidArgumentError(f"bucket must be a non-empty name, got {bucket!r}")
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0:
            raise InvalidArgumentError(f"Chunk size must be positive, got: {chunk_size!r}")
        self.client: AsyncMongoClient[Any] = db.client
        self.owns_client = owns_client
        self.database_name = db.name
        self.bucket_name = bucket
        self.chunk_size = chunk_size
        self.gridfs = AsyncGridFSStore(db, bucket, chunk_size)
        super().__init__(self.gridfs, max_file_size)

    @classmethod
    def from_uri(
        cls,
        uri: str | None = None,
        database: str | None = None,
        bucket: str = DEFAULT_GRIDFS_BUCKET,
        chunk_size: int = DEFAULT_GRIDFS_CHUNK_SIZE,
        max_file_size: int | None = NO_MAX_FILE_SIZE,
        **client_options: Any,
    ) -> Self:
        """A filesystem with its own client (closed by :meth:`close`), built by
        :mod:`aimon_mongo.mongo.clients` (``tz_aware``, 10 s server selection unless the URI
        or ``client_options`` say otherwise).

        ``uri`` defaults to ``AIMON_MONGODB_URI``, then ``MONGODB_URI``
        (:func:`aimon_mongo.connection.resolve_mongodb_uri`).
        """
        from aimon_mongo.connection import URI_PRECEDENCE, resolve_mongodb_uri

        resolved = resolve_mongodb_uri(uri)
        if resolved is None:
            raise InvalidArgumentError(f"no MongoDB connection string: looked at {', '.join(URI_PRECEDENCE)}")
        client: AsyncMongoClient[Any] = open_client(AsyncMongoClient, resolved, **client_options)
        return cls(client, database, bucket, chunk_size, max_file_size, owns_client=True)

    @property
    def working_directory(self) -> str:
        return f"{VFS_GRIDFS_SCHEME}://{self.database_name}/{self.bucket_name}"

    async def _initialize(self) -> None:
        try:
            await self.gridfs.ping()
        except PyMongoError as exc:
            if self.owns_client:
                await self.client.close()
            unreachable = isinstance(exc, ConnectionFailure)
            reason = (
                f"{backend_type_name(self.backend_type)} unreachable ({cause_text(exc)})"
                if unreachable
                else cause_text(exc)
            )
            error_type = VfsBackendUnavailable if unreachable else BackendConnectionError
            raise error_type(
                f"Failed to initialize GridFS filesystem: {reason}", backend_type=self.backend_type
            ) from exc

    async def _release(self) -> None:
        if self.owns_client:
            await self.client.close()

    async def fsck(self, repair: bool = False, grace: timedelta = timedelta(hours=1)) -> FsckReport:
        """Check the bucket: orphaned chunks, files with missing chunks, duplicate directory markers.

        ``repair=True`` removes orphaned chunks older than ``grace`` (younger ones may belong to an upload
        in flight) and surplus duplicate markers (the oldest marker stays). Nothing else is touched.
        """
        self._life.require_open()
        with self._guard("Failed to check filesystem", None):
            return await run_fsck(self.gridfs.files, self.gridfs.chunks, repair=repair, grace=grace)
