"""fsspec filesystems over the VFS: pandas, pyarrow and any fsspec user read agent files.

:class:`AimonFileSystemSpec` (protocol ``aimon``) serves any :class:`~aimon_mongo.vfs.AsyncFileSystem` —
GridFS, a local directory, memory — given as ``filesystem=``. :class:`GridFSFileSystemSpec` (protocol
``gridfs``) builds its GridFS filesystem from storage options. Both are registered through the
``fsspec.specs`` entry point, so with the ``fsspec`` extra installed::

    import fsspec
    fs = fsspec.filesystem("gridfs", uri="mongodb://host/", database="aimon", bucket="fs")
    fs.pipe_file("notes/a.txt", b"hello")
    with fsspec.open("gridfs://aimon/fs/notes/a.txt", "rb", uri="mongodb://host/") as f:
        f.read()

GridFS URLs name the database and bucket as the CLI prints them, ``gridfs://<db>/<bucket>/<path>``;
``gridfs:///<path>`` (empty host) is a path in the configured database and bucket. Without ``uri`` or
``client`` the connection string comes from ``AIMON_MONGODB_URI``, then ``MONGODB_URI``. Used
synchronously the filesystems run on fsspec's own event loop thread; a borrowed ``client`` (or
``filesystem``) needs ``asynchronous=True`` and the caller's loop. A file opened for reading reads one
revision; a file opened for writing materialises on close (an exception inside ``with`` discards it);
``ab`` appends (copy-on-write). A file left open is released without the event loop when it is
garbage-collected, so an unclosed file never hangs the interpreter at exit.
"""

from __future__ import annotations

import asyncio
import errno
import os
import sys
from datetime import datetime
from typing import Any

from fsspec.asyn import AbstractAsyncStreamedFile, AsyncFileSystem, sync, sync_wrapper
from fsspec.spec import AbstractBufferedFile
from fsspec.utils import stringify_path
from pymongo import AsyncMongoClient

from aimon_mongo._async.vfs.gridfs import AsyncGridFSFileSystem
from aimon_mongo._async.vfs.protocol import AsyncFileReader, AsyncFileWriter
from aimon_mongo._async.vfs.protocol import AsyncFileSystem as VfsAsyncFileSystem
from aimon_mongo.connection import URI_PRECEDENCE, resolve_mongodb_uri
from aimon_mongo.errors import DirectoryNotEmptyError, VfsFileNotFoundError
from aimon_mongo.model.vfs import FileInfo
from aimon_mongo.names import DEFAULT_GRIDFS_BUCKET, DEFAULT_GRIDFS_CHUNK_SIZE, DEFAULT_VFS_DATABASE, VFS_GRIDFS_SCHEME
from aimon_mongo.vfs.paths import ROOT, base_name
from aimon_mongo.vfs.positions import byte_range
from aimon_mongo.vfs.sizecap import NO_MAX_FILE_SIZE

AIMON_PROTOCOL = "aimon"
_MODES = {"rb", "wb", "xb", "ab"}


def _vfs(path: str) -> str:
    """An fsspec path (protocol already stripped) as a VFS path: the root is ``"."``."""
    return path or ROOT


def _entry(info: FileInfo) -> dict[str, Any]:
    name = "" if info.path == ROOT else info.path
    entry: dict[str, Any] = {
        "name": name,
        "size": info.size,
        "type": "directory" if info.is_dir else "file",
        "created": info.created,
        "modified": info.modified,
        "mtime": info.modified.timestamp(),
    }
    if not info.is_dir:
        entry.update(etag=info.etag, mime=info.mime, **info.custom_metadata)
    return entry


def _split_scheme(text: str, scheme: str) -> str | None:
    """What follows ``<scheme>://`` (or ``<scheme>::``), ``None`` when ``text`` does not start with it."""
    for prefix in (f"{scheme}://", f"{scheme}::"):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return None


class AimonFileSystemSpec(AsyncFileSystem):  # type: ignore[misc]
    """fsspec filesystem over any async VFS (protocol ``aimon``): ``AimonFileSystemSpec(filesystem=vfs)``.

    The VFS is borrowed: it is initialised on first use if it was not, and never closed here.
    """

    protocol: Any = AIMON_PROTOCOL
    root_marker = ""

    def __init__(self, filesystem: VfsAsyncFileSystem | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if filesystem is not None and not isinstance(filesystem, VfsAsyncFileSystem):
            raise TypeError(f"filesystem must be an async VFS (AsyncFileSystem), got {type(filesystem).__name__}")
        self._given = filesystem
        self._ready = False

    async def _vfs_fs(self) -> VfsAsyncFileSystem:
        if self._given is None:
            raise ValueError("aimon filesystem needs filesystem=<an async VFS>")
        if not self._ready:
            await self._given.initialize()  # idempotent
            self._ready = True
        return self._given

    async def _close(self) -> None:
        """Nothing to release: the VFS is borrowed."""

    close = sync_wrapper(_close)

    @classmethod
    def _strip_protocol(cls, path: Any) -> Any:
        if isinstance(path, list):
            return [cls._strip_protocol(p) for p in path]
        text = stringify_path(path)
        for scheme in (cls.protocol,) if isinstance(cls.protocol, str) else cls.protocol:
            rest = _split_scheme(text, scheme)
            if rest is not None:
                text = rest
        return text.strip("/")

    def _local(self, path: Any) -> str:
        """An fsspec path or URL as this filesystem's path (root ``""``)."""
        stripped: str = self._strip_protocol(path)
        return stripped

    # --- queries -------------------------------------------------------------------------------

    async def _info(self, path: str, **kwargs: Any) -> dict[str, Any]:
        fs = await self._vfs_fs()
        return _entry(await fs.info(_vfs(self._local(path))))

    async def _ls(self, path: str, detail: bool = True, **kwargs: Any) -> list[Any]:
        fs = await self._vfs_fs()
        p = _vfs(self._local(path))
        infos = [await fs.info(p)] if await fs.is_file(p) else await fs.ls_info(p)
        entries = [_entry(info) for info in infos]
        return entries if detail else [entry["name"] for entry in entries]

    async def _exists(self, path: str, **kwargs: Any) -> bool:
        return await (await self._vfs_fs()).exists(_vfs(self._local(path)))

    async def _isdir(self, path: str) -> bool:
        return await (await self._vfs_fs()).is_dir(_vfs(self._local(path)))

    async def _isfile(self, path: str) -> bool:
        return await (await self._vfs_fs()).is_file(_vfs(self._local(path)))

    async def _size(self, path: str) -> int:
        return int((await self._info(path))["size"])

    async def _created(self, path: str) -> datetime:
        created: datetime = (await self._info(path))["created"]
        return created

    async def _modified(self, path: str) -> datetime:
        modified: datetime = (await self._info(path))["modified"]
        return modified

    created = sync_wrapper(_created)
    modified = sync_wrapper(_modified)

    async def _find(
        self, path: str, maxdepth: int | None = None, withdirs: bool = False, **kwargs: Any
    ) -> list[str] | dict[str, Any]:
        """All files below ``path`` in one ordered range scan (directories too with ``withdirs``)."""
        p = self._local(path)
        if maxdepth is not None or withdirs:
            result: list[str] | dict[str, Any] = await super()._find(p, maxdepth=maxdepth, withdirs=withdirs, **kwargs)
            return result
        fs = await self._vfs_fs()
        detail = kwargs.pop("detail", False)
        if await fs.is_file(_vfs(p)):
            infos = [await fs.info(p)]
        elif await fs.is_dir(_vfs(p)):
            infos = [info async for info in fs.walk(_vfs(p))]
        else:
            infos = []
        entries = {entry["name"]: entry for entry in map(_entry, infos)}
        return entries if detail else sorted(entries)

    async def _du(
        self, path: str, total: bool = True, maxdepth: int | None = None, withdirs: bool = False, **kwargs: Any
    ) -> int | dict[str, int]:
        """Bytes below ``path``; the whole-subtree total is one server-side ``$group``."""
        p = self._local(path)
        fs = await self._vfs_fs()
        if total and maxdepth is None and not withdirs and await fs.is_dir(_vfs(p)):
            return (await fs.usage(_vfs(p))).total_size
        result: int | dict[str, int] = await super()._du(p, total=total, maxdepth=maxdepth, withdirs=withdirs)
        return result

    # --- content -------------------------------------------------------------------------------

    async def _cat_file(self, path: str, start: int | None = None, end: int | None = None, **kwargs: Any) -> bytes:
        fs = await self._vfs_fs()
        p = self._local(path)
        if start is None and end is None:
            return await fs.read(p)
        async with await fs.open_input(p) as reader:
            return await _read_range(reader, start, end)

    async def _pipe_file(self, path: str, value: bytes, mode: str = "overwrite", **kwargs: Any) -> None:
        fs = await self._vfs_fs()
        p = self._local(path)
        if mode == "create" and await fs.exists(p):
            raise FileExistsError(errno.EEXIST, "File exists", p)
        await fs.write(p, value)

    async def _put_file(self, lpath: str, rpath: str, mode: str = "overwrite", **kwargs: Any) -> None:
        fs = await self._vfs_fs()
        r = self._local(rpath)
        if os.path.isdir(lpath):
            await fs.mkdir(_vfs(r))
            return
        if mode == "create" and await fs.exists(r):
            raise FileExistsError(errno.EEXIST, "File exists", r)
        with open(lpath, "rb") as source:
            await fs.write(r, source)

    async def _get_file(self, rpath: str, lpath: str, **kwargs: Any) -> None:
        fs = await self._vfs_fs()
        r = self._local(rpath)
        if await fs.is_dir(_vfs(r)):
            os.makedirs(lpath, exist_ok=True)
            return
        async with await fs.open_input(r) as reader:
            with open(lpath, "wb") as target:
                while chunk := await reader.read(DEFAULT_GRIDFS_CHUNK_SIZE):
                    target.write(chunk)

    # --- structure -----------------------------------------------------------------------------

    async def _mkdir(self, path: str, create_parents: bool = True, **kwargs: Any) -> None:
        fs = await self._vfs_fs()
        p = self._local(path)
        if await fs.exists(_vfs(p)):
            raise FileExistsError(errno.EEXIST, "File exists", p)
        parent = self._parent(p)
        if not create_parents and parent and not await fs.is_dir(parent):
            raise FileNotFoundError(errno.ENOENT, "Parent directory does not exist", parent)
        await fs.mkdir(_vfs(p))

    async def _makedirs(self, path: str, exist_ok: bool = False) -> None:
        fs = await self._vfs_fs()
        p = self._local(path)
        if not exist_ok and await fs.exists(_vfs(p)):
            raise FileExistsError(errno.EEXIST, "File exists", p)
        await fs.mkdir(_vfs(p))

    async def _rmdir(self, path: str) -> None:
        fs = await self._vfs_fs()
        p = self._local(path)
        if not await fs.is_dir(_vfs(p)):
            raise FileNotFoundError(errno.ENOENT, "No such directory", p)
        try:
            await fs.delete(_vfs(p) + "/")
        except DirectoryNotEmptyError as exc:
            raise OSError(errno.ENOTEMPTY, "Directory not empty", p) from exc
        except VfsFileNotFoundError:
            return  # an implied directory vanishes with its last entry

    rmdir = sync_wrapper(_rmdir)

    async def _rm_file(self, path: str, **kwargs: Any) -> None:
        await (await self._vfs_fs()).delete(self._local(path))

    async def _rm(
        self, path: str | list[str], recursive: bool = False, maxdepth: int | None = None, **kwargs: Any
    ) -> None:
        fs = await self._vfs_fs()
        if isinstance(path, str) and recursive and maxdepth is None and not _has_magic(path):
            p = self._local(path)
            if await fs.is_dir(_vfs(p)):
                await fs.delete_recursive(_vfs(p))
                return
        for p in reversed(await self._expand_path(path, recursive=recursive, maxdepth=maxdepth)):
            if await fs.is_dir(_vfs(p)):
                if recursive:
                    await self._rmdir(p)
                    continue
                raise IsADirectoryError(errno.EISDIR, "Is a directory (use recursive=True)", p)
            try:
                await fs.delete(p)
            except VfsFileNotFoundError:
                continue

    async def _cp_file(self, path1: str, path2: str, **kwargs: Any) -> None:
        fs = await self._vfs_fs()
        source, target = self._local(path1), self._local(path2)
        if await fs.is_dir(_vfs(source)):
            await fs.mkdir(_vfs(target))
            return
        await fs.copy(source, target, overwrite=True)

    async def _mv(
        self, path1: Any, path2: Any, recursive: bool = False, maxdepth: int | None = None, **kwargs: Any
    ) -> None:
        """A single file moves with the VFS ``move`` (copy, delete, compensation); anything else is copied
        then removed, as fsspec does by default."""
        fs = await self._vfs_fs()
        if isinstance(path1, str) and isinstance(path2, str) and not _has_magic(path1):
            source, target = self._local(path1), self._local(path2)
            if source == target:
                return
            if await fs.is_file(source):
                if path2.endswith("/") or await fs.is_dir(_vfs(target)):
                    target = f"{target}/{base_name(source)}" if target else base_name(source)
                await fs.move(source, target, overwrite=True)
                return
        await self._copy(path1, path2, recursive=recursive, maxdepth=maxdepth)
        await self._rm(path1, recursive=recursive)

    mv = sync_wrapper(_mv)

    # --- files ---------------------------------------------------------------------------------

    def _open(
        self,
        path: str,
        mode: str = "rb",
        block_size: int | None = None,
        autocommit: bool = True,
        cache_options: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> VfsBufferedFile:
        p = self._local(path)
        if mode not in _MODES:
            raise NotImplementedError(f"mode {mode!r} is not supported (rb, wb, xb, ab)")
        if mode == "xb" and sync(self.loop, self._exists, p):
            raise FileExistsError(errno.EEXIST, "File exists", p)
        reader = sync(self.loop, self._open_reader, p) if mode == "rb" else None
        return VfsBufferedFile(
            self, p, mode, block_size, autocommit, cache_options=cache_options, reader=reader, **kwargs
        )

    async def _open_reader(self, path: str) -> AsyncFileReader:
        return await (await self._vfs_fs()).open_input(path)

    async def _open_writer(self, path: str, append: bool = False) -> AsyncFileWriter:
        return await (await self._vfs_fs()).open_output(path, append=append)

    async def open_async(self, path: str, mode: str = "rb", **kwargs: Any) -> VfsStreamedFile:
        p = self._local(path)
        if mode not in _MODES:
            raise NotImplementedError(f"mode {mode!r} is not supported (rb, wb, xb, ab)")
        if mode == "xb" and await self._exists(p):
            raise FileExistsError(errno.EEXIST, "File exists", p)
        reader = await self._open_reader(p) if mode == "rb" else None
        return VfsStreamedFile(self, p, mode, reader=reader, **kwargs)


class GridFSFileSystemSpec(AimonFileSystemSpec):
    """fsspec filesystem over the GridFS VFS (protocol ``gridfs``).

    Storage options: ``uri`` (the filesystem owns a client it builds; default ``AIMON_MONGODB_URI``, then
    ``MONGODB_URI``) or ``client`` (an ``AsyncMongoClient`` it borrows), ``database`` (default ``aimon``),
    ``bucket`` (``fs``), ``chunk_size`` (1 MiB), ``max_file_size`` (``None``: none) and ``client_options``
    for the built client. URLs: ``gridfs://<db>/<bucket>/<path>`` or ``gridfs:///<path>``.
    """

    protocol = VFS_GRIDFS_SCHEME

    def __init__(
        self,
        uri: str | None = None,
        database: str = DEFAULT_VFS_DATABASE,
        bucket: str = DEFAULT_GRIDFS_BUCKET,
        chunk_size: int = DEFAULT_GRIDFS_CHUNK_SIZE,
        max_file_size: int | None = NO_MAX_FILE_SIZE,
        client: AsyncMongoClient[Any] | None = None,
        client_options: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if client is None:
            uri = resolve_mongodb_uri(uri)
            if uri is None:
                raise ValueError(
                    f"gridfs filesystem needs a 'uri' or a 'client' (looked at {', '.join(URI_PRECEDENCE)})"
                )
        self._uri = uri
        self._client = client
        self._client_options = dict(client_options or {})
        self._settings = (database, bucket, chunk_size, max_file_size)
        self._backend: AsyncGridFSFileSystem | None = None

    async def _vfs_fs(self) -> AsyncGridFSFileSystem:
        if self._backend is None:
            database, bucket, chunk_size, max_file_size = self._settings
            if self._client is not None:
                backend = AsyncGridFSFileSystem(self._client, database, bucket, chunk_size, max_file_size)
            else:
                assert self._uri is not None
                backend = AsyncGridFSFileSystem.from_uri(
                    self._uri, database, bucket, chunk_size, max_file_size, **self._client_options
                )
            await backend.initialize()
            self._backend = backend
        return self._backend

    async def _close(self) -> None:
        if self._backend is not None:
            await self._backend.close()
            self._backend = None

    close = sync_wrapper(_close)

    @staticmethod
    def _url_parts(text: str) -> tuple[str, str, str] | None:
        """``(database, bucket, path)`` of a ``gridfs://<db>/<bucket>/<path>`` URL (``None``: other forms)."""
        rest = _split_scheme(text, VFS_GRIDFS_SCHEME)
        if rest is None or rest.startswith("/") or not rest:
            return None
        database, _, remainder = rest.partition("/")
        bucket, _, path = remainder.partition("/")
        return database, bucket, path.strip("/")

    @classmethod
    def _strip_protocol(cls, path: Any) -> Any:
        if isinstance(path, list):
            return [cls._strip_protocol(p) for p in path]
        text = stringify_path(path)
        parts = cls._url_parts(text)
        if parts is not None:
            return parts[2]
        rest = _split_scheme(text, VFS_GRIDFS_SCHEME)
        return (text if rest is None else rest).strip("/")

    @classmethod
    def _get_kwargs_from_urls(cls, path: str) -> dict[str, Any]:
        parts = cls._url_parts(stringify_path(path))
        if parts is None:
            return {}
        database, bucket, _ = parts
        return {"database": database, "bucket": bucket or DEFAULT_GRIDFS_BUCKET}

    def _local(self, path: Any) -> str:
        parts = self._url_parts(stringify_path(path))
        if parts is not None:
            database, bucket, _ = parts
            mine = self._settings[0], self._settings[1]
            if (database, bucket or DEFAULT_GRIDFS_BUCKET) != mine:
                raise ValueError(
                    f"URL {stringify_path(path)!r} names database {database!r} bucket {bucket!r}, but this "
                    f"filesystem is database {mine[0]!r} bucket {mine[1]!r}"
                )
        return super()._local(path)

    def unstrip_protocol(self, name: str) -> str:
        """The full URL of a path: ``gridfs://<db>/<bucket>/<path>``."""
        database, bucket = self._settings[0], self._settings[1]
        return f"{VFS_GRIDFS_SCHEME}://{database}/{bucket}/{self._strip_protocol(name)}"


async def _read_range(reader: AsyncFileReader, start: int | None, end: int | None) -> bytes:
    begin, stop = byte_range(start, end, reader.size)
    if stop <= begin:
        return b""
    await reader.seek(begin)
    return await reader.read(stop - begin)


def _loop_usable(loop: Any) -> bool:
    """Whether blocking on fsspec's loop can finish: it runs, on another thread, and Python is not exiting."""
    if sys.is_finalizing() or loop is None or loop.is_closed() or not loop.is_running():
        return False
    try:
        return asyncio.get_running_loop() is not loop
    except RuntimeError:
        return True


def _has_magic(path: str) -> bool:
    return any(ch in path for ch in "*?[")


class VfsBufferedFile(AbstractBufferedFile):  # type: ignore[misc]
    """A buffered fsspec file: reads one revision by range; writes stream into one upload (``ab``: after the
    file's current content, committed only if nobody changed the file meanwhile)."""

    def __init__(
        self,
        fs: AimonFileSystemSpec,
        path: str,
        mode: str,
        block_size: int | None,
        autocommit: bool,
        reader: AsyncFileReader | None = None,
        **kwargs: Any,
    ) -> None:
        self._reader = reader
        self._writer: AsyncFileWriter | None = None
        self._append = mode == "ab"
        size = reader.size if reader is not None else None
        super().__init__(fs, path, "wb" if mode == "xb" else mode, block_size, autocommit, size=size, **kwargs)

    def _fetch_range(self, start: int, end: int) -> bytes:
        assert self._reader is not None
        data: bytes = sync(self.fs.loop, _read_range, self._reader, start, end)
        return data

    def _initiate_upload(self) -> None:
        self._writer = sync(self.fs.loop, self.fs._open_writer, self.path, self._append)

    def _upload_chunk(self, final: bool = False) -> bool:
        assert self._writer is not None
        sync(self.fs.loop, self._writer.write, self.buffer.getvalue())
        if final and self.autocommit:
            self.commit()
        return True

    def commit(self) -> None:
        if self._writer is not None:
            sync(self.fs.loop, self._writer.close)
            self._writer = None

    def discard(self) -> None:
        if self._writer is not None:
            sync(self.fs.loop, self._writer.abort)
            self._writer = None

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._reader is not None:
                sync(self.fs.loop, self._reader.close)
                self._reader = None

    def __del__(self) -> None:
        """An unclosed file is closed normally while fsspec's loop can serve it; at interpreter exit (or on the
        loop's own thread) it is dropped instead: a reader holds nothing on the server, and an unfinished
        write is discarded (any chunks it sent are orphans ``fsck`` reclaims). Never blocks."""
        if getattr(self, "closed", True):
            return
        if _loop_usable(getattr(self.fs, "_loop", None)):
            self.close()
            return
        self._reader = None
        self._writer = None
        self.closed = True

    def __exit__(self, exc_type: Any, *rest: Any) -> None:
        if exc_type is not None and self.writable():
            self.discard()
            self.closed = True
            return
        self.close()


class VfsStreamedFile(AbstractAsyncStreamedFile):  # type: ignore[misc]
    """The async counterpart of :class:`VfsBufferedFile` (``open_async``)."""

    def __init__(
        self, fs: AimonFileSystemSpec, path: str, mode: str, reader: AsyncFileReader | None = None, **kwargs: Any
    ) -> None:
        self._reader = reader
        self._writer: AsyncFileWriter | None = None
        self._append = mode == "ab"
        size = reader.size if reader is not None else None
        super().__init__(fs, path, "wb" if mode == "xb" else mode, size=size, **kwargs)

    async def _fetch_range(self, start: int, end: int) -> bytes:
        assert self._reader is not None
        return await _read_range(self._reader, start, end)

    async def _initiate_upload(self) -> None:
        self._writer = await self.fs._open_writer(self.path, self._append)

    async def _upload_chunk(self, final: bool = False) -> bool:
        assert self._writer is not None
        await self._writer.write(self.buffer.getvalue())
        if final:
            await self._writer.close()
            self._writer = None
        return True

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            if self._reader is not None:
                await self._reader.close()
                self._reader = None

    async def __aexit__(self, exc_type: Any, *rest: Any) -> None:
        if exc_type is not None and self.writable():
            if self._writer is not None:
                await self._writer.abort()
                self._writer = None
            self.closed = True
            return
        await self.close()


GridFSBufferedFile = VfsBufferedFile
"""The earlier name of :class:`VfsBufferedFile`."""
GridFSStreamedFile = VfsStreamedFile
"""The earlier name of :class:`VfsStreamedFile`."""
