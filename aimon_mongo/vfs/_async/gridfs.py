"""The virtual filesystem on MongoDB GridFS (async source; the sync twin is generated).

Storage is the standard GridFS bucket (``<bucket>.files`` / ``<bucket>.chunks``) that every driver and
the reference write: ``filename`` is the VFS path verbatim, markers are zero-length files named
``<dir>/`` with ``metadata.type = "directory"``, and ``metadata`` of a file holds ``path``, ``uploadDate``
(ISO text) and ``contentSha256``. Listing walks the ``{filename: 1, uploadDate: 1}`` index with one
ordered seek per child, so ``ls`` costs O(children), not O(descendants); totals are a server-side
``$group``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Self

from gridfs import AsyncGridFSBucket
from gridfs.asynchronous.grid_file import AsyncGridIn, AsyncGridOut
from gridfs.errors import CorruptGridFile, NoFile
from pymongo import ASCENDING, DESCENDING, AsyncMongoClient
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import PyMongoError

from aimon_mongo.errors import BackendConnectionError, FileReplacedError, InvalidArgumentError, display_path
from aimon_mongo.model.vfs import BackendType, FsckReport
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
    VFS_META_TYPE,
)
from aimon_mongo.vfs._async.bucket import AsyncBucketFileSystem
from aimon_mongo.vfs._async.fsck import run_fsck
from aimon_mongo.vfs.listing import Seek
from aimon_mongo.vfs.paths import successor
from aimon_mongo.vfs.records import Revision
from aimon_mongo.vfs.sizecap import NO_MAX_FILE_SIZE

NEWEST_FIRST = [(GRIDFS_UPLOAD_DATE, DESCENDING), ("_id", DESCENDING)]
BY_NAME = [(GRIDFS_FILENAME, ASCENDING), (GRIDFS_UPLOAD_DATE, ASCENDING)]
FILES_INDEX = [(GRIDFS_FILENAME, ASCENDING), (GRIDFS_UPLOAD_DATE, ASCENDING)]
CHUNKS_INDEX = [(GRIDFS_FILES_ID, ASCENDING), (GRIDFS_N, ASCENDING)]
_DELETE_BATCH = 500
_REVISION_FIELDS = {
    "_id": 1,
    GRIDFS_FILENAME: 1,
    GRIDFS_LENGTH: 1,
    GRIDFS_CHUNK_SIZE: 1,
    GRIDFS_UPLOAD_DATE: 1,
    GRIDFS_METADATA: 1,
}


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


class _GridUpload:
    def __init__(self, grid_in: AsyncGridIn, chunk_size: int) -> None:
        self._grid_in = grid_in
        self._chunk_size = chunk_size

    async def write(self, data: bytes) -> None:
        await self._grid_in.write(data)

    async def commit(self, metadata: Mapping[str, Any]) -> Revision:
        # The final metadata (with the content hash) goes into the one files document the close inserts.
        await self._grid_in.set(GRIDFS_METADATA, dict(metadata))
        await self._grid_in.close()
        grid_in = self._grid_in
        return Revision(
            grid_in._id, grid_in.filename or "", grid_in.length, grid_in.upload_date, metadata, self._chunk_size
        )

    async def abort(self) -> None:
        await self._grid_in.abort()


class _GridDownload:
    def __init__(self, grid_out: AsyncGridOut, revision: Revision, files: AsyncCollection[Any]) -> None:
        self._grid_out = grid_out
        self._revision = revision
        self._files = files
        self.size = revision.length

    async def _vanished(self) -> Exception:
        if await self._files.find_one({"_id": self._revision.id}, {"_id": 1}) is None:
            return FileReplacedError(self._revision.filename)
        return BackendConnectionError(
            f"File is corrupt (missing chunks): {display_path(self._revision.filename)}", self._revision.filename
        )

    async def read(self, size: int = -1) -> bytes:
        try:
            return await self._grid_out.read(size)
        except (CorruptGridFile, NoFile) as exc:
            raise await self._vanished() from exc

    async def seek(self, offset: int, whence: int = 0) -> int:
        return await self._grid_out.seek(offset, whence)

    def tell(self) -> int:
        return self._grid_out.tell()

    async def close(self) -> None:
        await self._grid_out.close()


class AsyncGridFSStore:
    """A GridFS bucket as a store of revisions."""

    store_errors: tuple[type[BaseException], ...] = (PyMongoError,)

    def __init__(self, database: AsyncDatabase[Any], bucket: str, chunk_size: int) -> None:
        self.database = database
        self.bucket_name = bucket
        self.chunk_size = chunk_size
        self._root = database[bucket]
        self.files: AsyncCollection[Any] = database[f"{bucket}.{GRIDFS_FILES_SUFFIX}"]
        self.chunks: AsyncCollection[Any] = database[f"{bucket}.{GRIDFS_CHUNKS_SUFFIX}"]
        self._bucket = AsyncGridFSBucket(database, bucket, chunk_size_bytes=chunk_size)

    async def prepare(self) -> None:
        await self.files.create_index(FILES_INDEX)
        await self.chunks.create_index(CHUNKS_INDEX, unique=True)

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

    async def revision_ids(self, names: Sequence[str]) -> dict[str, list[Any]]:
        found: dict[str, list[Any]] = {}
        if names:
            query = {GRIDFS_FILENAME: {"$in": list(names)}}
            async for doc in self.files.find(query, {"_id": 1, GRIDFS_FILENAME: 1}):
                found.setdefault(doc[GRIDFS_FILENAME], []).append(doc["_id"])
        return found

    async def scan(self, prefix: str) -> AsyncGenerator[Revision, None]:
        cursor = self.files.find(_range(prefix), _REVISION_FIELDS).sort(BY_NAME)
        try:
            async for doc in cursor:
                yield _revision(doc)
        finally:
            await cursor.close()

    async def ids_under(self, name: str, prefix: str) -> list[Any]:
        query = {"$or": [{GRIDFS_FILENAME: name}, _range(prefix)]}
        return [doc["_id"] async for doc in self.files.find(query, {"_id": 1})]

    async def open_upload(self, name: str, metadata: Mapping[str, Any]) -> _GridUpload:
        return _GridUpload(self._bucket.open_upload_stream(name, metadata=dict(metadata)), self.chunk_size)

    async def open_download(self, revision: Revision) -> _GridDownload:
        document = {
            "_id": revision.id,
            GRIDFS_FILENAME: revision.filename,
            GRIDFS_LENGTH: revision.length,
            GRIDFS_CHUNK_SIZE: revision.chunk_size or self.chunk_size,
            GRIDFS_UPLOAD_DATE: revision.upload_date,
            GRIDFS_METADATA: revision.metadata,
        }
        return _GridDownload(AsyncGridOut(self._root, file_document=document), revision, self.files)

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


class AsyncGridFSFileSystem(AsyncBucketFileSystem):
    """The virtual filesystem in a GridFS bucket (default database ``aimon``, bucket ``fs``, 1 MiB chunks).

    Pass a client to *borrow* it (``close()`` leaves it open), or build one with :meth:`from_uri`, which
    the filesystem then *owns* and closes. Call :meth:`initialize` (or use ``async with``) before use.
    """

    backend_type = BackendType.GRIDFS

    def __init__(
        self,
        client: AsyncMongoClient[Any],
        database: str = DEFAULT_VFS_DATABASE,
        bucket: str = DEFAULT_GRIDFS_BUCKET,
        chunk_size: int = DEFAULT_GRIDFS_CHUNK_SIZE,
        max_file_size: int = NO_MAX_FILE_SIZE,
        *,
        owns_client: bool = False,
    ) -> None:
        if not isinstance(database, str) or not database or "/" in database:
            raise InvalidArgumentError(f"database must be a non-empty name without '/', got {database!r}")
        if not isinstance(bucket, str) or not bucket:
            raise InvalidArgumentError(f"bucket must be a non-empty name, got {bucket!r}")
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0:
            raise InvalidArgumentError(f"Chunk size must be positive, got: {chunk_size!r}")
        self.client = client
        self.owns_client = owns_client
        self.database_name = database
        self.bucket_name = bucket
        self.chunk_size = chunk_size
        self.gridfs = AsyncGridFSStore(client[database], bucket, chunk_size)
        super().__init__(self.gridfs, max_file_size)

    @classmethod
    def from_uri(
        cls,
        uri: str,
        database: str = DEFAULT_VFS_DATABASE,
        bucket: str = DEFAULT_GRIDFS_BUCKET,
        chunk_size: int = DEFAULT_GRIDFS_CHUNK_SIZE,
        max_file_size: int = NO_MAX_FILE_SIZE,
        **client_options: Any,
    ) -> Self:
        """A filesystem with its own client (closed by :meth:`close`)."""
        options: dict[str, Any] = {"tz_aware": True, **client_options}
        client: AsyncMongoClient[Any] = AsyncMongoClient(uri, **options)
        return cls(client, database, bucket, chunk_size, max_file_size, owns_client=True)

    @property
    def working_directory(self) -> str:
        return f"{VFS_GRIDFS_SCHEME}://{self.database_name}/{self.bucket_name}"

    async def _initialize(self) -> None:
        try:
            await self.gridfs.ping()
            await self.gridfs.prepare()
        except PyMongoError as exc:
            if self.owns_client:
                await self.client.close()
            raise BackendConnectionError(
                f"Failed to initialize GridFS filesystem: {exc}", backend_type=self.backend_type
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
