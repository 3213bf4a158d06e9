"""The async filesystem contract: every backend (memory, local directory, GridFS) implements it.

Paths are ``/``-separated and relative to the filesystem root (``"."``); see :mod:`aimon_mongo.vfs.paths`.
Returned paths are relative to the root too, never to the listed directory. Errors are the
:class:`~aimon_mongo.errors.VirtualFileSystemError` family.
"""

from __future__ import annotations

import collections.abc as cabc
from collections.abc import AsyncGenerator, AsyncIterable, Mapping
from datetime import datetime
from types import TracebackType
from typing import IO, Protocol, Self, runtime_checkable

from aimon_mongo.exported import exported_from
from aimon_mongo.model.vfs import BackendStatus, FileInfo, GrepResult, LineWindow, Usage
from aimon_mongo.vfs.textscan import DEFAULT_GREP_MAX_BYTES

Content = bytes | bytearray | memoryview | str | IO[bytes] | AsyncIterable[bytes] | cabc.Iterable[bytes]
"""What ``write`` accepts: bytes, text (UTF-8 encoded), a readable binary file object (read to EOF), or
an iterable of byte chunks (async or not)."""


@runtime_checkable
class AsyncFileReader(Protocol):
    """An open input stream on one revision of a file (the one that was newest at open)."""

    @property
    def size(self) -> int:
        """Length of the file in bytes."""
        ...

    @property
    def etag(self) -> str:
        """The etag of the revision being read: a conditional write with ``if_revision=reader.etag`` replaces
        exactly what was read."""
        ...

    async def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (everything left when ``size`` is negative or ``None``); ``b""`` at the end."""
        ...

    async def seek(self, offset: int, whence: int = 0) -> int:
        """Move the position (``whence`` 0 = start, 1 = current, 2 = end); return the new position.

        As :mod:`io` does: ``ValueError`` for another ``whence`` or a negative resulting position; a
        position past the end is allowed (reads there return ``b""``).
        """
        ...

    def tell(self) -> int:
        """The current position."""
        ...

    async def close(self) -> None:
        """Release the stream (idempotent)."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


@runtime_checkable
class AsyncFileWriter(Protocol):
    """An open output stream; the file materialises on :meth:`close`, replacing any previous content.

    The size cap is enforced on :meth:`write` and :meth:`close`, never at open; a refused write discards
    the upload and leaves the previous content in place. Leaving a ``with`` block by an exception aborts.
    A writer opened in append mode starts with the file's content and commits only if nobody changed the
    file meanwhile (else :class:`~aimon_mongo.errors.RevisionMismatchError`, nothing written).
    """

    async def write(self, data: bytes | bytearray | memoryview) -> int:
        """Append bytes; returns how many were accepted (all of them, or it raises)."""
        ...

    def tell(self) -> int:
        """Bytes in the file so far (in append mode, the previous content included). Writers do not seek."""
        ...

    async def close(self) -> FileInfo:
        """Finish the upload and make it the file's content; returns the new file's info."""
        ...

    async def abort(self) -> None:
        """Discard everything written; the previous content (if any) stays. Idempotent."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


@exported_from("aimon_mongo.vfs")
@runtime_checkable
class AsyncFileSystem(Protocol):
    """The virtual filesystem contract (async flavour; :class:`~aimon_mongo.vfs.protocol.FileSystem` is
    the sync one). ``initialize()`` must precede every operation; ``close()`` ends the instance."""

    @property
    def working_directory(self) -> str:
        """Where the root lives: an absolute directory (local), ``gridfs://<db>/<bucket>``, ``memory://``."""
        ...

    async def initialize(self) -> None:
        """Connect and prepare storage (idempotent); raises after :meth:`close`."""
        ...

    async def close(self) -> None:
        """Release resources (idempotent); a borrowed client is never closed."""
        ...

    async def status(self) -> BackendStatus:
        """Health of the backend; never raises."""
        ...

    @property
    def supports_set_modified(self) -> bool:
        """Whether :meth:`touch` can set a file's modified time to a given instant on this store."""
        ...

    @property
    def supports_attributes(self) -> bool:
        """Whether files keep the ``attributes`` given to :meth:`write` (GridFS and memory do)."""
        ...

    async def write(
        self,
        path: str,
        content: Content,
        *,
        if_revision: str | None = None,
        if_absent: bool = False,
        attributes: Mapping[str, str] | None = None,
    ) -> FileInfo:
        """Create or replace a file (parents need not exist); returns the new file's info.

        ``if_revision=<etag>`` writes only if the file is still at that revision, ``if_absent=True`` only if
        nothing exists at the path; otherwise :class:`~aimon_mongo.errors.RevisionMismatchError` and the
        file is unchanged. The check and the replacement are one atomic step, across nodes on GridFS.
        ``attributes`` (text to text) are kept with this revision and reported in
        :attr:`~aimon_mongo.model.vfs.FileInfo.custom_metadata` (only where :attr:`supports_attributes`).
        """
        ...

    async def append(self, path: str, content: bytes | bytearray | memoryview | str) -> FileInfo:
        """Add ``content`` at the end of a file (created if missing); never a torn file, no lost append.

        Copy-on-write: the new revision holds the old content plus ``content`` and replaces the old one
        through a conditional write, retried when a concurrent writer got there first.
        """
        ...

    async def read(self, path: str) -> bytes:
        """The whole content of a file (always one complete revision)."""
        ...

    async def read_range(self, path: str, start: int | None = None, end: int | None = None) -> bytes:
        """Bytes ``[start, end)`` of a file (``None``: its start / end; negative: from the end), read
        without fetching the rest of the file."""
        ...

    async def read_lines(self, path: str, offset: int = 0, limit: int | None = None) -> LineWindow:
        """Lines ``[offset, offset + limit)`` of a UTF-8 text file, as :meth:`str.splitlines` cuts them
        (line ends kept); reads only as far as the window needs."""
        ...

    async def read_text(self, path: str, encoding: str = "utf-8") -> str:
        """The content decoded as text."""
        ...

    async def open_input(self, path: str) -> AsyncFileReader:
        """Open a file for streaming reads."""
        ...

    async def open_output(
        self,
        path: str,
        *,
        append: bool = False,
        if_revision: str | None = None,
        if_absent: bool = False,
        attributes: Mapping[str, str] | None = None,
    ) -> AsyncFileWriter:
        """Open a file for a streaming write that replaces it on close.

        ``append=True`` starts from the file's current content (and commits only if the file did not change
        meanwhile); ``if_revision`` / ``if_absent`` are the conditions of :meth:`write`, checked at open and
        again, atomically, at close; ``attributes`` as for :meth:`write`.
        """
        ...

    async def exists(self, path: str) -> bool:
        """True for a file or a directory (explicit or implied)."""
        ...

    async def is_dir(self, path: str) -> bool:
        """True only for a directory."""
        ...

    async def is_file(self, path: str) -> bool:
        """True only for a file."""
        ...

    async def info(self, path: str) -> FileInfo:
        """Size, timestamps, kind, mime, etag and custom metadata of a file or directory."""
        ...

    async def ls(self, path: str = ".") -> list[str]:
        """Files and immediate subdirectories (empty ones too), in name order."""
        ...

    async def ls_info(self, path: str = ".") -> list[FileInfo]:
        """Like :meth:`ls`, with each entry's info."""
        ...

    async def ls_recursive(self, path: str = ".") -> list[str]:
        """Every file at any depth (files only), in name order."""
        ...

    def walk(self, path: str = ".") -> AsyncGenerator[FileInfo, None]:
        """Every file at any depth with its info, in name order, streamed."""
        ...

    async def find(self, path: str, pattern: str, max_results: int | None = None) -> list[str]:
        """Files under ``path`` whose base name matches the glob ``pattern`` (``*``, ``?``)."""
        ...

    async def glob(self, pattern: str, path: str = ".", max_results: int | None = None) -> list[FileInfo]:
        """Files under ``path`` matching a path glob (:mod:`aimon_mongo.vfs.globbing`), in name order."""
        ...

    async def grep(
        self,
        literal: str,
        path: str = ".",
        glob: str | None = None,
        *,
        max_count: int | None = None,
        max_bytes: int | None = DEFAULT_GREP_MAX_BYTES,
    ) -> GrepResult:
        """Lines holding ``literal`` in the files under ``path`` (or in the file ``path``), optionally only
        in files matching ``glob``; contents are streamed, at most ``max_bytes`` read, at most
        ``max_count`` matches kept (``truncated`` says when a cap stopped the search)."""
        ...

    async def touch(self, path: str, modified: datetime | None = None) -> FileInfo:
        """Create an empty file if missing; set the file's modified time (now, or ``modified`` where
        :attr:`supports_set_modified`)."""
        ...

    async def mkdir(self, path: str) -> None:
        """Create a directory and every missing parent (``mkdir -p``); idempotent."""
        ...

    async def delete(self, path: str) -> None:
        """Remove a file or an empty directory."""
        ...

    async def delete_recursive(self, path: str) -> None:
        """Remove a file, or a directory with everything under it."""
        ...

    async def copy(self, source: str, destination: str, overwrite: bool = False) -> FileInfo:
        """Copy a file; the source is unchanged."""
        ...

    async def move(self, source: str, destination: str, overwrite: bool = False) -> FileInfo:
        """Move a file (copy, then delete the source, with compensation on failure)."""
        ...

    async def usage(self, path: str | None = None) -> Usage:
        """Totals of the whole filesystem, or of one directory's subtree."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...
