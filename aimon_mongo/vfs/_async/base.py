"""What every backend derives the same way: lifecycle, status, whole-file read and write, find."""

from __future__ import annotations

import collections.abc as cabc
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterable
from datetime import UTC, datetime
from types import TracebackType
from typing import ClassVar, Self

from aimon_mongo._async_runtime import Lock
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model.vfs import BackendState, BackendStatus, BackendType, FileInfo
from aimon_mongo.vfs._async.protocol import AsyncFileReader, AsyncFileWriter, Content
from aimon_mongo.vfs.lifecycle import CLOSED, Lifecycle
from aimon_mongo.vfs.paths import base_name, validate_dir_path
from aimon_mongo.vfs.patterns import check_max_results, matcher, matches
from aimon_mongo.vfs.sizecap import check_max_file_size

READ_CHUNK = 1024 * 1024


def _as_bytes(chunk: object) -> bytes | bytearray | memoryview:
    if isinstance(chunk, bytes | bytearray | memoryview):
        return chunk
    raise InvalidArgumentError(f"content chunks must be bytes, got {type(chunk).__name__}")


async def write_content(writer: AsyncFileWriter, content: Content) -> None:
    """Feed ``content`` (bytes, text, a readable binary file, or an iterable of byte chunks) to ``writer``."""
    read = getattr(content, "read", None)
    if isinstance(content, str):
        await writer.write(content.encode("utf-8"))
    elif isinstance(content, bytes | bytearray | memoryview):
        await writer.write(content)
    elif callable(read):
        while chunk := read(READ_CHUNK):
            await writer.write(_as_bytes(chunk))
    elif isinstance(content, AsyncIterable):
        async for chunk in content:
            await writer.write(_as_bytes(chunk))
    elif isinstance(content, cabc.Iterable):  # sync: drop
        for chunk in content:  # sync: drop
            await writer.write(_as_bytes(chunk))  # sync: drop
    else:
        raise InvalidArgumentError(f"cannot write content of type {type(content).__name__}")


async def copy_stream(reader: AsyncFileReader, writer: AsyncFileWriter) -> None:
    """Pump every byte of ``reader`` into ``writer``."""
    while chunk := await reader.read(READ_CHUNK):
        await writer.write(chunk)


class AsyncFileSystemBase(ABC):
    """Lifecycle and the operations that need nothing but the backend's own primitives."""

    backend_type: ClassVar[BackendType]

    def __init__(self, max_file_size: int) -> None:
        self._max_file_size = check_max_file_size(max_file_size)
        self._life = Lifecycle()
        self._lifecycle_lock = Lock()

    @property
    def max_file_size(self) -> int:
        """The per-file cap in bytes (``-1``: none)."""
        return self._max_file_size

    @property
    @abstractmethod
    def working_directory(self) -> str:
        """Where the root lives."""

    @abstractmethod
    async def _initialize(self) -> None:
        """Backend part of :meth:`initialize`."""

    @abstractmethod
    async def _release(self) -> None:
        """Backend part of :meth:`close`."""

    @abstractmethod
    async def _ping(self) -> None:
        """Raise unless the backend answers."""

    @abstractmethod
    async def open_input(self, path: str) -> AsyncFileReader:
        """Open a file for streaming reads."""

    @abstractmethod
    async def open_output(self, path: str) -> AsyncFileWriter:
        """Open a file for a streaming write."""

    @abstractmethod
    def walk(self, path: str = ".") -> AsyncGenerator[FileInfo, None]:
        """Every file under ``path`` with its info, in name order."""

    async def initialize(self) -> None:
        """Connect and prepare storage; idempotent; refused after :meth:`close`."""
        async with self._lifecycle_lock:
            if self._life.require_initializable():
                await self._initialize()
                self._life.initialized = True

    async def close(self) -> None:
        """Release resources; idempotent. The instance is unusable afterwards."""
        async with self._lifecycle_lock:
            if not self._life.closed:
                self._life.closed = True
                await self._release()

    async def status(self) -> BackendStatus:
        """Health of the backend (never raises)."""
        now = datetime.now(UTC)
        if self._life.closed:
            return BackendStatus(
                type=self.backend_type, state=BackendState.DISCONNECTED, last_checked=now, error_message=CLOSED
            )
        if not self._life.initialized:
            return BackendStatus(type=self.backend_type, state=BackendState.UNKNOWN, last_checked=now)
        try:
            await self._ping()
        except Exception as exc:
            return BackendStatus(
                type=self.backend_type,
                state=BackendState.DISCONNECTED,
                last_checked=now,
                error_message=f"Connection error: {exc}",
            )
        return BackendStatus(type=self.backend_type, state=BackendState.CONNECTED, last_checked=now)

    async def __aenter__(self) -> Self:
        await self.initialize()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def write(self, path: str, content: Content) -> FileInfo:
        """Create or replace a file; a refused or failed write leaves the previous content."""
        writer = await self.open_output(path)
        try:
            await write_content(writer, content)
        except BaseException:
            await writer.abort()
            raise
        return await writer.close()

    async def read(self, path: str) -> bytes:
        """The whole content of a file."""
        async with await self.open_input(path) as reader:
            return await reader.read()

    async def read_text(self, path: str, encoding: str = "utf-8") -> str:
        """The whole content decoded as text."""
        return (await self.read(path)).decode(encoding)

    async def ls_recursive(self, path: str = ".") -> list[str]:
        """Every file at any depth, in name order."""
        return [info.path async for info in self.walk(path)]

    async def find(self, path: str, pattern: str, max_results: int | None = None) -> list[str]:
        """Files under ``path`` whose base name matches ``pattern``; at most ``max_results``."""
        self._life.require_open()
        validate_dir_path(path)
        check_max_results(max_results)
        compiled = matcher(pattern)
        if compiled is None:
            return []
        found: list[str] = []
        walker = self.walk(path)
        try:
            async for info in walker:
                if matches(compiled, base_name(info.path)):
                    found.append(info.path)
                    if max_results is not None and len(found) >= max_results:
                        break
        finally:
            await walker.aclose()
        return found
