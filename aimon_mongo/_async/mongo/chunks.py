"""The one GridFS chunk reader and writer (async source; the sync twin is generated).

Used by the GridFS filesystem (:mod:`aimon_mongo._async.vfs.gridfs`) and the LangGraph saver's large values
(:mod:`aimon_mongo._async.langgraph.mongo`). Chunks are written and read in the standard GridFS layout
(``{files_id, n, data}`` in ``<bucket>.chunks``, the files document in ``<bucket>.files``), so any driver's
``GridFSBucket`` reads what these write, but without the driver's ``GridIn`` / ``GridOut``:

* :class:`AsyncChunkWriter` sends chunks in bounded ``insert_many`` batches (:data:`BATCH_BYTES`, at most
  :data:`INSERT_BATCH` chunks), never one message with a whole large file; its caller inserts the files
  document (:meth:`AsyncChunkWriter.files_document`) when it decides the file exists.
* :class:`AsyncChunkReader` fetches chunks by ``n`` range, at most :data:`BATCH_BYTES` per query (a read-ahead
  that doubles while reading sequentially), and checks each chunk's ``n`` and length; a missing or damaged
  chunk is :class:`MissingChunks`, which the caller names in its own error family.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from bson import Int64
from pymongo import ASCENDING
from pymongo.asynchronous.collection import AsyncCollection

from aimon_mongo.names import (
    GRIDFS_CHUNK_SIZE,
    GRIDFS_FILENAME,
    GRIDFS_FILES_ID,
    GRIDFS_LENGTH,
    GRIDFS_METADATA,
    GRIDFS_N,
    GRIDFS_UPLOAD_DATE,
)

BATCH_BYTES: Final = 8 * 1024 * 1024
"""Chunk bytes per insert and per read query: far below the 16 MiB document and 48 MB message limits."""
INSERT_BATCH: Final = 256
"""At most this many chunks per ``insert_many``."""
_DATA: Final = "data"


class MissingChunks(LookupError):
    """A chunk the files document promises is absent, or has the wrong ``n`` or length."""


def chunks_per_batch(chunk_size: int) -> int:
    """How many chunks of ``chunk_size`` bytes one batch (:data:`BATCH_BYTES`) holds (at least one)."""
    return max(1, BATCH_BYTES // chunk_size)


class AsyncChunkWriter:
    """Writes the chunks of file ``file_id`` to ``chunks`` (see the module text)."""

    def __init__(self, chunks: AsyncCollection[Any], file_id: Any, chunk_size: int) -> None:
        self._chunks = chunks
        self.file_id = file_id
        self.chunk_size = chunk_size
        self.length = 0
        """Bytes written so far."""
        self._buffer = bytearray()
        self._queued: list[dict[str, Any]] = []
        self._queued_bytes = 0
        self._n = 0
        self._sent = False

    def _queue(self, data: bytes) -> None:
        self._queued.append({GRIDFS_FILES_ID: self.file_id, GRIDFS_N: self._n, _DATA: data})
        self._n += 1
        self._queued_bytes += len(data)

    async def _flush(self) -> None:
        if self._queued:
            self._sent = True
            if len(self._queued) == 1:  # the same insert command, without the driver's bulk machinery
                await self._chunks.insert_one(self._queued[0])
            else:
                await self._chunks.insert_many(self._queued)
            self._queued = []
            self._queued_bytes = 0

    async def write(self, data: bytes) -> None:
        """Append ``data``: full chunks are queued, and sent whenever a batch is full."""
        self._buffer += data
        self.length += len(data)
        size = self.chunk_size
        full = len(self._buffer) - len(self._buffer) % size
        for start in range(0, full, size):
            self._queue(bytes(self._buffer[start : start + size]))
            if self._queued_bytes >= BATCH_BYTES or len(self._queued) >= INSERT_BATCH:
                await self._flush()
        if full:
            del self._buffer[:full]

    async def finish(self) -> None:
        """Send what is left (the last, short chunk): every chunk is stored when this returns."""
        if self._buffer:
            self._queue(bytes(self._buffer))
            self._buffer.clear()
        await self._flush()

    async def discard(self) -> None:
        """Drop what was queued and delete the chunks already sent (the file will not exist)."""
        self._queued = []
        self._buffer.clear()
        if self._sent:
            await self._chunks.delete_many({GRIDFS_FILES_ID: self.file_id})

    def files_document(self, filename: str, metadata: Mapping[str, Any], upload_date: datetime) -> dict[str, Any]:
        """The files document of what was written (insert it after :meth:`finish`)."""
        return {
            "_id": self.file_id,
            GRIDFS_LENGTH: Int64(self.length),
            GRIDFS_CHUNK_SIZE: self.chunk_size,
            GRIDFS_UPLOAD_DATE: upload_date,
            GRIDFS_FILENAME: filename,
            GRIDFS_METADATA: dict(metadata),
        }


class AsyncChunkReader:
    """Reads the ``length`` bytes of file ``file_id`` (chunks of ``chunk_size``) from ``chunks``."""

    def __init__(self, chunks: AsyncCollection[Any], file_id: Any, length: int, chunk_size: int) -> None:
        self._chunks = chunks
        self.file_id = file_id
        self.size = length
        self._chunk_size = chunk_size
        self._count = -(-length // chunk_size)
        self._position = 0
        self._first = 0
        self._cached: list[bytes] = []
        self._ahead = 1

    def _expected_length(self, n: int) -> int:
        return self._chunk_size if n < self._count - 1 else self.size - self._chunk_size * (self._count - 1)

    async def _load(self, first: int, needed: int) -> None:
        """Fetch chunks ``first``.. in one query: what the read needs, more while reading sequentially (the
        read-ahead doubles up to one batch), never more than a batch."""
        batch = chunks_per_batch(self._chunk_size)
        sequential = first == self._first + len(self._cached) and bool(self._cached)
        self._ahead = min(self._ahead * 2, batch) if sequential else 1
        last = min(first + min(max(needed, self._ahead), batch), self._count)
        query = {GRIDFS_FILES_ID: self.file_id, GRIDFS_N: {"$gte": first, "$lt": last}}
        cursor = self._chunks.find(query, {"_id": 0, GRIDFS_N: 1, _DATA: 1}).sort(GRIDFS_N, ASCENDING)
        docs = await cursor.limit(last - first).batch_size(last - first).to_list(last - first)
        chunks: list[bytes] = []
        for expected, doc in enumerate(docs, start=first):
            data = bytes(doc.get(_DATA, b""))
            if doc.get(GRIDFS_N) != expected or len(data) != self._expected_length(expected):
                break
            chunks.append(data)
        if len(chunks) != last - first:
            raise MissingChunks(f"chunk {first + len(chunks)} of file {self.file_id!r} is missing or damaged")
        self._first, self._cached = first, chunks

    def preload(self, data: bytes) -> None:
        """Take the content of a one-chunk file fetched along with its files document: no query for it."""
        if self._count != 1 or len(data) != self.size:
            raise MissingChunks(f"chunk 0 of file {self.file_id!r} is damaged")
        self._first, self._cached = 0, [data]

    async def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes from the current position (``-1``: all that is left)."""
        left = max(self.size - self._position, 0)
        wanted = left if size < 0 else min(size, left)
        pieces: list[bytes] = []
        while wanted > 0:
            n, offset = divmod(self._position, self._chunk_size)
            if not self._first <= n < self._first + len(self._cached):
                await self._load(n, -(-(offset + wanted) // self._chunk_size))
            piece = self._cached[n - self._first][offset : offset + wanted]
            pieces.append(piece)
            self._position += len(piece)
            wanted -= len(piece)
        return b"".join(pieces)

    async def seek(self, position: int) -> None:
        self._position = position

    def tell(self) -> int:
        return self._position

    async def close(self) -> None:
        self._cached = []
