"""Stream plumbing every backend shares: the writer's state machine and size cap, context managers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self

from aimon_mongo.errors import VfsStateError, display_path
from aimon_mongo.model.vfs import FileInfo
from aimon_mongo.vfs.sizecap import SizeCap


class AsyncReaderBase(ABC):
    """An input stream usable as ``async with``."""

    @abstractmethod
    async def close(self) -> None:
        """Release the stream."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


class AsyncWriterBase(ABC):
    """An output stream: ``open`` until :meth:`close` (commit) or :meth:`abort` (discard).

    Every byte passes the size cap before it reaches the backend; a refused or failed write aborts the
    whole stream, so nothing of it becomes visible.
    """

    def __init__(self, path: str, max_file_size: int) -> None:
        self._path = path
        self._cap = SizeCap(max_file_size, path)
        self._state = "open"

    def _require_open(self) -> None:
        if self._state != "open":
            raise VfsStateError(f"output stream is {self._state}: {display_path(self._path)}", self._path)

    def _finish(self) -> None:
        """Mark the stream closed (the commit is under way); refuses if it is not open."""
        self._require_open()
        self._state = "closed"

    @abstractmethod
    async def _write(self, chunk: bytes) -> None:
        """Pass admitted bytes to the backend."""

    @abstractmethod
    async def _discard(self) -> None:
        """Throw away everything written (must not raise for routine failures)."""

    @abstractmethod
    async def close(self) -> FileInfo:
        """Commit: the content replaces the file's previous content."""

    async def write(self, data: bytes | bytearray | memoryview) -> int:
        """Append bytes; returns how many were accepted (all, or it raises and aborts)."""
        self._require_open()
        chunk = data if isinstance(data, bytes) else bytes(data)
        try:
            self._cap.admit(len(chunk))
            await self._write(chunk)
        except BaseException:
            await self.abort()
            raise
        return len(chunk)

    async def abort(self) -> None:
        """Discard the stream; the previous content stays. Idempotent."""
        if self._state == "open":
            self._state = "aborted"
            await self._discard()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            await self.close()
        else:
            await self.abort()
