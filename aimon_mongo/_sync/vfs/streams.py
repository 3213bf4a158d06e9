# GENERATED from aimon_mongo/_async/vfs/streams.py by scripts/gen_sync.py; do not edit.
"""Stream plumbing every backend shares: the writer's state machine and size cap, context managers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self

from aimon_mongo.errors import VfsStateError, display_path
from aimon_mongo.model.vfs import FileInfo
from aimon_mongo.vfs.positions import read_size, resolve_seek
from aimon_mongo.vfs.sizecap import SizeCap


class ReaderBase(ABC):
    """An input stream usable as ``with``: one ``read``/``seek``/``tell`` behaviour for every backend.

    Backends supply :meth:`_read` (a byte count, ``-1`` for all that is left), :meth:`_seek` (an absolute,
    already validated position), :meth:`tell` and :meth:`_release`. Using the stream after :meth:`close`
    raises ``ValueError``, as :mod:`io` does.
    """

    _closed = False

    @property
    @abstractmethod
    def size(self) -> int:
        """Length of the file in bytes."""

    @property
    @abstractmethod
    def etag(self) -> str:
        """The etag of the revision being read (what ``write(..., if_revision=...)`` takes)."""

    @abstractmethod
    def _read(self, size: int) -> bytes:
        """Up to ``size`` bytes from the position (``-1``: everything left)."""

    @abstractmethod
    def _seek(self, position: int) -> None:
        """Move to an absolute position (``>= 0``, possibly past the end)."""

    @abstractmethod
    def tell(self) -> int:
        """The current position."""

    @abstractmethod
    def _release(self) -> None:
        """Free what the stream holds (idempotent)."""

    def _require_open(self) -> None:
        if self._closed:
            raise ValueError("I/O operation on closed file")

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (everything left when ``size`` is negative or ``None``); ``b""`` at the end."""
        self._require_open()
        return self._read(read_size(size))

    def seek(self, offset: int, whence: int = 0) -> int:
        """Move the position (``ValueError`` for an invalid ``whence`` or a negative position); return it."""
        self._require_open()
        target = resolve_seek(offset, whence, self.tell(), self.size)
        self._seek(target)
        return target

    def close(self) -> None:
        """Release the stream (idempotent)."""
        if not self._closed:
            self._closed = True
            self._release()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class WriterBase(ABC):
    """An output stream: ``open`` until :meth:`close` (commit) or :meth:`abort` (discard).

    Every byte passes the size cap before it reaches the backend; a refused or failed write aborts the
    whole stream, so nothing of it becomes visible.
    """

    def __init__(self, path: str, max_file_size: int | None) -> None:
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

    def tell(self) -> int:
        """Bytes in the file so far (in append mode, the previous content included)."""
        return self._cap.written

    @abstractmethod
    def _write(self, chunk: bytes) -> None:
        """Pass admitted bytes to the backend."""

    @abstractmethod
    def _discard(self) -> None:
        """Throw away everything written (must not raise for routine failures)."""

    @abstractmethod
    def close(self) -> FileInfo:
        """Commit: the content replaces the file's previous content."""

    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Append bytes; returns how many were accepted (all, or it raises and aborts)."""
        self._require_open()
        chunk = data if isinstance(data, bytes) else bytes(data)
        try:
            self._cap.admit(len(chunk))
            self._write(chunk)
        except BaseException:
            self.abort()
            raise
        return len(chunk)

    def abort(self) -> None:
        """Discard the stream; the previous content stays. Idempotent."""
        if self._state == "open":
            self._state = "aborted"
            self._discard()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()
