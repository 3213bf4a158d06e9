"""In-memory filesystem: the bucket model of GridFS held in a process, for tests and single-node use.

It keeps revisions, directory markers and implied directories exactly as the GridFS backend stores
them, and runs the same :class:`~aimon_mongo._async.vfs.bucket.AsyncBucketFileSystem` rules, so it is
the executable specification of that backend. Nothing survives the process.
"""

from __future__ import annotations

import io
from bisect import bisect_left, bisect_right, insort
from collections.abc import AsyncGenerator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from bson import ObjectId

from aimon_mongo._async.vfs.bucket import AsyncBucketFileSystem
from aimon_mongo._async.vfs.store import Committed, WriteCheck
from aimon_mongo._async_runtime import Lock
from aimon_mongo.codec.instant import as_utc, to_millis
from aimon_mongo.errors import FileReplacedError
from aimon_mongo.exported import exported_from
from aimon_mongo.model.vfs import BackendType
from aimon_mongo.vfs.listing import Seek
from aimon_mongo.vfs.records import TICK, Revision, is_marker, newest_first_key
from aimon_mongo.vfs.sizecap import NO_MAX_FILE_SIZE


class _MemoryUpload:
    def __init__(self, store: AsyncMemoryStore, name: str) -> None:
        self._store = store
        self._name = name
        self._buffer = io.BytesIO()

    async def write(self, data: bytes) -> None:
        self._buffer.write(data)

    async def commit(self, metadata: Mapping[str, Any], not_before: datetime | None = None) -> Revision:
        return await self._store.insert(self._name, self._buffer.getvalue(), metadata, not_before)

    async def commit_if(self, metadata: Mapping[str, Any], base: Revision | None) -> Committed | None:
        return await self._store.insert_if(self._name, self._buffer.getvalue(), metadata, base)

    async def abort(self) -> None:
        self._buffer = io.BytesIO()


class _MemoryDownload:
    def __init__(self, data: bytes) -> None:
        self._stream = io.BytesIO(data)
        self.size = len(data)

    async def read(self, size: int) -> bytes:
        return self._stream.read(size)

    async def seek(self, position: int) -> None:
        self._stream.seek(position)

    def tell(self) -> int:
        return self._stream.tell()

    async def close(self) -> None:
        self._stream.close()


class AsyncMemoryStore:
    """Revisions in a dict, names in a sorted list (code-point order equals MongoDB's byte order)."""

    store_errors: tuple[type[BaseException], ...] = ()
    unavailable_errors: tuple[type[BaseException], ...] = ()

    def __init__(self) -> None:
        self._lock = Lock()
        self._data: dict[ObjectId, tuple[Revision, bytes]] = {}
        self._by_name: dict[str, list[ObjectId]] = {}
        self._names: list[str] = []

    async def prepare(self) -> None:
        return None

    async def ping(self) -> None:
        return None

    def _add(self, revision: Revision, data: bytes) -> None:
        self._data[revision.id] = (revision, data)
        ids = self._by_name.setdefault(revision.filename, [])
        if not ids:
            insort(self._names, revision.filename)
        ids.append(revision.id)

    async def insert(
        self, name: str, data: bytes, metadata: Mapping[str, Any], not_before: datetime | None = None
    ) -> Revision:
        """Store a revision (the commit of an upload), stamped now but no earlier than ``not_before``."""
        stamp = to_millis(datetime.now(UTC))
        stamp = stamp if not_before is None else max(stamp, as_utc(not_before))
        revision = Revision(ObjectId(), name, len(data), stamp, dict(metadata))
        async with self._lock:
            self._add(revision, data)
        return revision

    async def insert_if(
        self, name: str, data: bytes, metadata: Mapping[str, Any], base: Revision | None
    ) -> Committed | None:
        """Store a revision only if ``base`` is still the newest revision of ``name`` (``None``: none exists)."""
        async with self._lock:
            others = self._sorted(name)
            current = others[0].id if others else None
            if current != (base.id if base is not None else None):
                return None
            stamp = to_millis(datetime.now(UTC))
            if others:
                stamp = max(stamp, as_utc(others[0].upload_date) + TICK)
            revision = Revision(ObjectId(), name, len(data), stamp, dict(metadata))
            self._add(revision, data)
        return revision, others

    def _sorted(self, name: str) -> list[Revision]:
        revisions = [self._data[i][0] for i in self._by_name.get(name, [])]
        return sorted(revisions, key=newest_first_key, reverse=True)

    async def newest(self, name: str) -> Revision | None:
        async with self._lock:
            revisions = self._sorted(name)
        return revisions[0] if revisions else None

    async def revisions(self, name: str) -> list[Revision]:
        async with self._lock:
            return self._sorted(name)

    async def first_name(self, seek: Seek) -> tuple[str, datetime] | None:
        async with self._lock:
            find = bisect_left if seek.inclusive else bisect_right
            index = find(self._names, seek.lower)
            if index == len(self._names) or (seek.upper is not None and self._names[index] >= seek.upper):
                return None
            name = self._names[index]
            return name, self._sorted(name)[-1].upload_date

    async def page(self, seek: Seek, limit: int, *, details: bool) -> list[Revision]:
        async with self._lock:
            find = bisect_left if seek.inclusive else bisect_right
            out: list[Revision] = []
            names = self._names
            for index in range(find(names, seek.lower), len(names)):  # no copy of the rest of the names
                name = names[index]
                if (seek.upper is not None and name >= seek.upper) or len(out) >= limit:
                    break
                out.extend(sorted(self._sorted(name), key=newest_first_key))
            return out[:limit]

    async def write_check(self, name: str, parents: Sequence[str]) -> WriteCheck:
        async with self._lock:
            stored = {
                checked: [(r.id, r.upload_date) for r in self._sorted(checked)]
                for checked in [*parents, name]
                if checked in self._by_name
            }
            under = name + "/"
            index = bisect_left(self._names, under)
            has_children = index < len(self._names) and self._names[index].startswith(under)
        return WriteCheck(stored, has_children)

    async def retire_older(self, name: str, winner: Revision, known: Sequence[Any]) -> int:
        async with self._lock:
            key = newest_first_key(winner)
            older = [r.id for r in self._sorted(name) if newest_first_key(r) < key]
        return await self.delete_ids(older)

    async def revision_ids(self, names: Sequence[str]) -> dict[str, list[Any]]:
        async with self._lock:
            return {name: list(self._by_name[name]) for name in names if name in self._by_name}

    def _names_from(self, prefix: str) -> list[str]:
        start = bisect_left(self._names, prefix)
        out = []
        for name in self._names[start:]:
            if not name.startswith(prefix):
                break
            out.append(name)
        return out

    async def scan(self, prefix: str, *, contents: bool = False) -> AsyncGenerator[tuple[Revision, bytes | None], None]:
        async with self._lock:
            found = [
                (r, self._data[r.id][1] if contents else None)
                for name in self._names_from(prefix)
                for r in reversed(self._sorted(name))
            ]
        for item in found:  # sync: yield from found
            yield item  # sync: drop

    async def ids_under(self, name: str, prefix: str) -> list[Any]:
        async with self._lock:
            names = [name, *self._names_from(prefix)]
            return [i for n in names for i in self._by_name.get(n, [])]

    async def open_upload(self, name: str, metadata: Mapping[str, Any]) -> _MemoryUpload:
        return _MemoryUpload(self, name)

    async def open_download(self, revision: Revision) -> _MemoryDownload:
        async with self._lock:
            entry = self._data.get(revision.id)
        if entry is None:  # retired between lookup and open
            raise FileReplacedError(revision.filename)
        return _MemoryDownload(entry[1])

    async def open_newest(self, name: str) -> tuple[Revision, _MemoryDownload] | None:
        async with self._lock:
            revisions = self._sorted(name)
            if not revisions:
                return None
            return revisions[0], _MemoryDownload(self._data[revisions[0].id][1])

    async def delete_ids(self, ids: Sequence[Any]) -> int:
        async with self._lock:
            for revision_id in ids:
                entry = self._data.pop(revision_id, None)
                if entry is None:
                    continue
                name = entry[0].filename
                remaining = self._by_name[name]
                remaining.remove(revision_id)
                if not remaining:
                    del self._by_name[name]
                    self._names.pop(bisect_left(self._names, name))
        return 0

    async def restamp(self, revision_id: Any, upload_date: datetime) -> None:
        async with self._lock:
            entry = self._data.get(revision_id)
            if entry is not None:
                revision, data = entry
                self._data[revision_id] = (
                    Revision(revision.id, revision.filename, revision.length, upload_date, revision.metadata),
                    data,
                )

    async def totals(self, prefix: str) -> tuple[int, int]:
        async with self._lock:
            revisions = [self._data[i][0] for n in self._names_from(prefix) for i in self._by_name[n]]
        files = [r for r in revisions if not is_marker(r.metadata)]
        return sum(r.length for r in files), len(files)

    async def names_under(self, prefix: str) -> AsyncGenerator[str, None]:
        async with self._lock:
            names = self._names_from(prefix)
        for name in names:  # sync: yield from names
            yield name  # sync: drop


@exported_from("aimon_mongo.vfs")
class AsyncMemoryFileSystem(AsyncBucketFileSystem):
    """A virtual filesystem held in memory, with the GridFS backend's exact semantics."""

    backend_type = BackendType.MEMORY

    def __init__(self, max_file_size: int | None = NO_MAX_FILE_SIZE) -> None:
        super().__init__(AsyncMemoryStore(), max_file_size=max_file_size)

    @property
    def working_directory(self) -> str:
        return "memory://"
