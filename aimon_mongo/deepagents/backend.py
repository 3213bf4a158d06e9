"""The deepagents backend class :class:`AimonBackend` (exported by :mod:`aimon_mongo.deepagents`)."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from deepagents.backends.protocol import (
    BackendProtocol,
    DeleteResult,
    EditResult,
    FileDownloadResponse,
    FileUploadResponse,
    GlobResult,
    GrepResult,
    LsResult,
    ReadResult,
    WriteResult,
)

from aimon_mongo._async.deepagents.files import AsyncDeepAgentsFiles
from aimon_mongo._async.vfs.retry import CONFLICT_ATTEMPTS
from aimon_mongo._sync.deepagents.files import DeepAgentsFiles
from aimon_mongo.deepagents.roots import DEFAULT_ROOT, Root
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.exported import exported_from
from aimon_mongo.vfs.protocol import AsyncFileSystem, FileSystem


def _is_async(filesystem: object) -> bool:
    return inspect.iscoroutinefunction(getattr(type(filesystem), "read", None))


@exported_from("aimon_mongo.deepagents")
class AimonBackend(BackendProtocol):
    """deepagents ``BackendProtocol`` over an aimon-mongo VFS (GridFS, local directory or memory).

    ``filesystem`` is a sync :class:`~aimon_mongo.vfs.FileSystem` or an async
    :class:`~aimon_mongo.vfs.AsyncFileSystem`; pass the other flavour as ``async_filesystem`` /
    ``sync_filesystem`` to serve both ``agent.invoke`` and ``agent.ainvoke`` natively. With only a sync
    filesystem the async methods run the sync ones in a worker thread (deepagents' default); with only an
    async one the sync methods refuse, naming the fix. The VFS is borrowed: initialised on first use,
    never closed here.

    ``root`` places each thread's files (see :mod:`aimon_mongo.deepagents.roots`); ``conflict_attempts``
    bounds how often an ``edit`` is recomputed after losing a race to another writer.
    """

    def __init__(
        self,
        filesystem: FileSystem | AsyncFileSystem,
        *,
        async_filesystem: AsyncFileSystem | None = None,
        sync_filesystem: FileSystem | None = None,
        root: Root = DEFAULT_ROOT,
        conflict_attempts: int = CONFLICT_ATTEMPTS,
    ) -> None:
        if not callable(root) and not isinstance(root, str):
            raise InvalidArgumentError(f"root must be a str template or a callable, got {type(root).__name__}")
        sync_fs: Any = sync_filesystem
        async_fs: Any = async_filesystem
        if _is_async(filesystem):
            async_fs = async_fs or filesystem
        else:
            sync_fs = sync_fs or filesystem
        for given, wanted in ((sync_fs, False), (async_fs, True)):
            if given is not None and _is_async(given) is not wanted:
                raise InvalidArgumentError(
                    f"{'async_filesystem' if wanted else 'sync_filesystem'} got a "
                    f"{'sync' if wanted else 'async'} filesystem ({type(given).__name__})"
                )
        self.root = root
        self._sync = DeepAgentsFiles(sync_fs, root, conflict_attempts=conflict_attempts) if sync_fs else None
        self._async = AsyncDeepAgentsFiles(async_fs, root, conflict_attempts=conflict_attempts) if async_fs else None

    def _ops(self) -> DeepAgentsFiles:
        if self._sync is None:
            raise RuntimeError(
                "AimonBackend was given only an async filesystem: run the agent with ainvoke/astream, or pass a "
                "sync filesystem too (AimonBackend(async_fs, sync_filesystem=sync_fs))"
            )
        return self._sync

    # --- sync ----------------------------------------------------------------------------------

    def ls(self, path: str) -> LsResult:
        """Files and directories directly in ``path``."""
        return self._ops().ls(path)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """A window of a text file's lines, or a binary file (base64)."""
        return self._ops().read(file_path, offset, limit)

    def write(self, file_path: str, content: str) -> WriteResult:
        """Create or overwrite a file."""
        return self._ops().write(file_path, content)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """Replace a string atomically (conditional write, retried on conflict)."""
        return self._ops().edit(file_path, old_string, new_string, replace_all)

    def delete(self, file_path: str) -> DeleteResult:
        """Remove a file or a directory tree."""
        return self._ops().delete(file_path)

    def grep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        """Lines holding a literal."""
        return self._ops().grep(pattern, path, glob, max_count=max_count)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Files matching a glob."""
        return self._ops().glob(pattern, path)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Store files as given."""
        return self._ops().upload_files(files)

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Fetch files' bytes."""
        return self._ops().download_files(paths)

    # --- async ---------------------------------------------------------------------------------

    async def als(self, path: str) -> LsResult:
        """Async :meth:`ls`."""
        if self._async is None:
            return await asyncio.to_thread(self.ls, path)
        return await self._async.ls(path)

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Async :meth:`read`."""
        if self._async is None:
            return await asyncio.to_thread(self.read, file_path, offset, limit)
        return await self._async.read(file_path, offset, limit)

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """Async :meth:`write`."""
        if self._async is None:
            return await asyncio.to_thread(self.write, file_path, content)
        return await self._async.write(file_path, content)

    async def aedit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """Async :meth:`edit`."""
        if self._async is None:
            return await asyncio.to_thread(self.edit, file_path, old_string, new_string, replace_all)
        return await self._async.edit(file_path, old_string, new_string, replace_all)

    async def adelete(self, file_path: str) -> DeleteResult:
        """Async :meth:`delete`."""
        if self._async is None:
            return await asyncio.to_thread(self.delete, file_path)
        return await self._async.delete(file_path)

    async def agrep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        """Async :meth:`grep` (streams file contents; no worker thread, so no thread timeout)."""
        if self._async is None:
            return await asyncio.to_thread(self.grep, pattern, path, glob, max_count=max_count)
        return await self._async.grep(pattern, path, glob, max_count=max_count)

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Async :meth:`glob`."""
        if self._async is None:
            return await asyncio.to_thread(self.glob, pattern, path)
        return await self._async.glob(pattern, path)

    async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Async :meth:`upload_files`."""
        if self._async is None:
            return await asyncio.to_thread(self.upload_files, files)
        return await self._async.upload_files(files)

    async def adownload_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Async :meth:`download_files`."""
        if self._async is None:
            return await asyncio.to_thread(self.download_files, paths)
        return await self._async.download_files(paths)
