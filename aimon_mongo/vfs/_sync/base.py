# GENERATED from aimon_mongo/vfs/_async/base.py by scripts/gen_sync.py; do not edit.
"""What every backend derives the same way: lifecycle, status, whole-file read and write, find."""

from __future__ import annotations

import collections.abc as cabc
from abc import ABC, abstractmethod
from collections.abc import Generator, Iterable
from datetime import UTC, datetime
from types import TracebackType
from typing import ClassVar, Self

from aimon_mongo._sync_runtime import Lock
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model.vfs import BackendState, BackendStatus, BackendType, FileInfo
from aimon_mongo.vfs._sync.protocol import FileReader, FileWriter, Content
from aimon_mongo.vfs.lifecycle import CLOSED, Lifecycle
from aimon_mongo.vfs.paths import base_name, validate_dir_path
from aimon_mongo.vfs.patterns import check_max_results, matcher, matches
from aimon_mongo.vfs.sizecap import check_max_file_size

READ_CHUNK = 1024 * 1024


def _as_bytes(chunk: object) -> bytes | bytearray | memoryview:
    if isinstance(chunk, bytes | bytearray | memoryview):
        return chunk
    raise InvalidArgumentError(f"content chunks must be bytes, got {type(chunk).__name__}")


def write_content(writer: FileWriter, content: Content) -> None:
    """Feed ``content`` (bytes, text, a readable binary file, or an iterable of byte chunks) to ``writer``."""
    read = getattr(content, "read", None)
    if isinstance(content, str):
        writer.write(content.encode("utf-8"))
    elif isinstance(content, bytes | bytearray | memoryview):
        writer.write(content)
    elif callable(read):
        while chunk := read(READ_CHUNK):
            writer.write(_as_bytes(chunk))
    elif isinstance(content, Iterable):
        for chunk in content:
            writer.write(_as_bytes(chunk))
    else:
        raise InvalidArgumentError(f"cannot write content of type {type(content).__name__}")


def copy_stream(reader: FileReader, writer: FileWriter) -> None:
    """Pump every byte of ``reader`` into ``writer``."""
    while chunk := reader.read(READ_CHUNK):
        writer.write(chunk)


class FileSystemBase(ABC):
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
    def _initialize(self) -> None:
        """Backend part of :meth:`initialize`."""

    @abstractmethod
    def _release(self) -> None:
        """Backend part of :meth:`close`."""

    @abstractmethod
    def _ping(self) -> None:
        """Raise unless the backend answers."""

    @abstractmethod
    def open_input(self, path: str) -> FileReader:
        """Open a file for streaming reads."""

    @abstractmethod
    def open_output(self, path: str) -> FileWriter:
        """Open a file for a streaming write."""

    @abstractmethod
    def walk(self, path: str = ".") -> Generator[FileInfo, None]:
        """Every file under ``path`` with its info, in name order."""

    def initialize(self) -> None:
        """Connect and prepare storage; idempotent; refused after :meth:`close`."""
        with self._lifecycle_lock:
            if self._life.require_initializable():
                self._initialize()
                self._life.initialized = True

    def close(self) -> None:
        """Release resources; idempotent. The instance is unusable afterwards."""
        with self._lifecycle_lock:
            if not self._life.closed:
                self._life.closed = True
                self._release()

    def status(self) -> BackendStatus:
        """Health of the backend (never raises)."""
        now = datetime.now(UTC)
        if self._life.closed:
            return BackendStatus(
                type=self.backend_type, state=BackendState.DISCONNECTED, last_checked=now, error_message=CLOSED
            )
        if not self._life.initialized:
            return BackendStatus(type=self.backend_type, state=BackendState.UNKNOWN, last_checked=now)
        try:
            self._ping()
        except Exception as exc:
            return BackendStatus(
                type=self.backend_type,
                state=BackendState.DISCONNECTED,
                last_checked=now,
                error_message=f"Connection error: {exc}",
            )
        return BackendStatus(type=self.backend_type, state=BackendState.CONNECTED, last_checked=now)

    def __enter__(self) -> Self:
        self.initialize()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def write(self, path: str, content: Content) -> FileInfo:
        """Create or replace a file; a refused or failed write leaves the previous content."""
        writer = self.open_output(path)
        try:
            write_content(writer, content)
        except BaseException:
            writer.abort()
            raise
        return writer.close()

    def read(self, path: str) -> bytes:
        """The whole content of a file."""
        with self.open_input(path) as reader:
            return reader.read()

    def read_text(self, path: str, encoding: str = "utf-8") -> str:
        """The whole content decoded as text."""
        return (self.read(path)).decode(encoding)

    def ls_recursive(self, path: str = ".") -> list[str]:
        """Every file at any depth, in name order."""
        return [info.path for info in self.walk(path)]

    def find(self, path: str, pattern: str, max_results: int | None = None) -> list[str]:
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
            for info in walker:
                if matches(compiled, base_name(info.path)):
                    found.append(info.path)
                    if max_results is not None and len(found) >= max_results:
                        break
        finally:
            walker.close()
        return found
