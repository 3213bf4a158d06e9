"""What every backend derives the same way: lifecycle, status, whole-file and ranged reads, conditional
and appending writes, find, glob, grep, touch."""

from __future__ import annotations

import codecs
import collections.abc as cabc
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterable, Mapping
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, ClassVar, Self

from aimon_mongo._async.vfs.protocol import AsyncFileReader, AsyncFileWriter, Content
from aimon_mongo._async.vfs.retry import retry_conflicts
from aimon_mongo._async_runtime import Lock
from aimon_mongo.errors import InvalidArgumentError, InvalidPathError, VfsFileNotFoundError
from aimon_mongo.model.vfs import BackendState, BackendStatus, BackendType, FileInfo, GrepResult, LineWindow
from aimon_mongo.telemetry.capabilities import instrument
from aimon_mongo.vfs.globbing import CompiledGlob, compile_glob
from aimon_mongo.vfs.lifecycle import CLOSED, Lifecycle
from aimon_mongo.vfs.messages import NOT_A_DIRECTORY
from aimon_mongo.vfs.paths import ROOT, base_name, dir_prefix, validate_dir_path, validate_file_path, validate_path
from aimon_mongo.vfs.patterns import check_max_results, matcher, matches
from aimon_mongo.vfs.positions import byte_range
from aimon_mongo.vfs.sizecap import check_max_file_size
from aimon_mongo.vfs.textscan import DEFAULT_GREP_MAX_BYTES, GrepScanner, LineCollector

READ_CHUNK = 1024 * 1024


def _as_bytes(chunk: object) -> bytes | bytearray | memoryview:
    if isinstance(chunk, bytes | bytearray | memoryview):
        return chunk
    raise InvalidArgumentError(f"content chunks must be bytes, got {type(chunk).__name__}")


def appended_bytes(content: object) -> bytes:
    """What :meth:`append` adds: bytes as given, text as UTF-8 (no streams: a retry must resend it)."""
    if isinstance(content, str):
        return content.encode("utf-8")
    if isinstance(content, bytes | bytearray | memoryview):
        return bytes(content)
    raise InvalidArgumentError(f"append takes bytes or str, got {type(content).__name__}")


def check_conditions(if_revision: object, if_absent: object) -> None:
    """Refuse malformed write conditions: ``if_revision`` is an etag string, ``if_absent`` a bool, not both."""
    if if_revision is not None and (not isinstance(if_revision, str) or not if_revision):
        raise InvalidArgumentError(f"if_revision must be a non-empty etag string or None, got {if_revision!r}")
    if not isinstance(if_absent, bool):
        raise InvalidArgumentError(f"if_absent must be a bool, got {type(if_absent).__name__}")
    if if_absent and if_revision is not None:
        raise InvalidArgumentError("if_revision and if_absent cannot both be given")


def check_attributes(attributes: object, kept: bool, path: str) -> dict[str, str] | None:
    """Refuse malformed file attributes (text to text), and any where the backend keeps none."""
    if attributes is None:
        return None
    if not isinstance(attributes, Mapping) or not all(
        isinstance(key, str) and key and isinstance(value, str) for key, value in attributes.items()
    ):
        raise InvalidArgumentError(f"attributes must map non-empty text keys to text, got {attributes!r}")
    if attributes and not kept:
        raise InvalidArgumentError(f"this filesystem keeps no file attributes (given for {path!r})")
    return dict(attributes)


def check_instant(value: object) -> datetime:
    """A modified time to set: an aware :class:`datetime` (naive ones are ambiguous)."""
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise InvalidArgumentError(f"modified must be a timezone-aware datetime, got {value!r}")
    return value.astimezone(UTC)


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
    """Lifecycle and the operations that need nothing but the backend's own primitives.

    Every public operation records spans and metrics through ``opentelemetry-api`` (the rules of the
    ``vfs`` capability, :mod:`aimon_mongo.telemetry.capabilities`): this class's and every subclass's own.
    """

    backend_type: ClassVar[BackendType]
    sets_modified: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        instrument(cls, "vfs")  # the operations this subclass defines or overrides

    def __init__(self, max_file_size: int | None) -> None:
        self._max_file_size = check_max_file_size(max_file_size)
        self._life = Lifecycle()
        self._lifecycle_lock = Lock()

    @property
    def max_file_size(self) -> int | None:
        """The per-file cap in bytes (``None``: none)."""
        return self._max_file_size

    @property
    def supports_set_modified(self) -> bool:
        """Whether :meth:`touch` can set a file's modified time to a given instant."""
        return self.sets_modified

    keeps_attributes: ClassVar[bool] = False

    @property
    def supports_attributes(self) -> bool:
        """Whether files keep the ``attributes`` given to :meth:`write`."""
        return self.keeps_attributes

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
    async def open_output(
        self,
        path: str,
        *,
        append: bool = False,
        if_revision: str | None = None,
        if_absent: bool = False,
        attributes: Mapping[str, str] | None = None,
    ) -> AsyncFileWriter:
        """Open a file for a streaming write."""

    @abstractmethod
    def walk(self, path: str = ".") -> AsyncGenerator[FileInfo, None]:
        """Every file under ``path`` with its info, in name order."""

    @abstractmethod
    async def info(self, path: str) -> FileInfo:
        """Info of a file or directory."""

    @abstractmethod
    async def is_file(self, path: str) -> bool:
        """True only for a file."""

    @abstractmethod
    async def _set_modified(self, path: str, modified: datetime) -> FileInfo:
        """Set an existing file's modified time; return its info."""

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

    async def ensure_schema(self) -> None:
        """Create what writes rely on (GridFS: the indexes); idempotent. Writes do it on first use, so
        read-only use never creates a database, collection or index."""
        self._life.require_open()

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

    # --- writing -------------------------------------------------------------------------------

    async def write(
        self,
        path: str,
        content: Content,
        *,
        if_revision: str | None = None,
        if_absent: bool = False,
        attributes: Mapping[str, str] | None = None,
    ) -> FileInfo:
        """Create or replace a file; a refused or failed write leaves the previous content.

        With ``if_revision`` / ``if_absent`` the write happens only if the file is still at that revision
        / still absent, else :class:`~aimon_mongo.errors.RevisionMismatchError`. ``attributes`` are kept
        with the new revision where :attr:`supports_attributes`.
        """
        writer = await self.open_output(path, if_revision=if_revision, if_absent=if_absent, attributes=attributes)
        try:
            await write_content(writer, content)
        except BaseException:
            await writer.abort()
            raise
        return await writer.close()

    async def append(self, path: str, content: bytes | bytearray | memoryview | str) -> FileInfo:
        """Add ``content`` at the end of a file (created if missing): copy-on-write, retried on conflict."""
        data = appended_bytes(content)

        async def attempt() -> FileInfo:
            writer = await self.open_output(path, append=True)
            try:
                await writer.write(data)
            except BaseException:
                await writer.abort()
                raise
            return await writer.close()

        return await retry_conflicts(attempt)

    async def touch(self, path: str, modified: datetime | None = None) -> FileInfo:
        """Create an empty file if missing; set its modified time to ``modified`` (default: now)."""
        self._life.require_open()
        p = validate_file_path(path)
        when = datetime.now(UTC) if modified is None else check_instant(modified)
        if not await self.is_file(p):
            await self.write(p, b"")
        return await self._set_modified(p, when)

    # --- reading -------------------------------------------------------------------------------

    async def read(self, path: str) -> bytes:
        """The whole content of a file."""
        async with await self.open_input(path) as reader:
            return await reader.read()

    async def read_text(self, path: str, encoding: str = "utf-8") -> str:
        """The whole content decoded as text."""
        return (await self.read(path)).decode(encoding)

    async def read_range(self, path: str, start: int | None = None, end: int | None = None) -> bytes:
        """Bytes ``[start, end)`` of a file (fsspec's conventions: ``None`` = start/end, negative = from the end)."""
        async with await self.open_input(path) as reader:
            begin, stop = byte_range(start, end, reader.size)
            if stop <= begin:
                return b""
            await reader.seek(begin)
            return await reader.read(stop - begin)

    async def read_lines(self, path: str, offset: int = 0, limit: int | None = None) -> LineWindow:
        """Lines ``[offset, offset + limit)`` of a UTF-8 text file (line ends kept); reads only as far as needed.

        Raises ``UnicodeDecodeError`` when the bytes read are not UTF-8.
        """
        collector = LineCollector(offset, limit)
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        async with await self.open_input(path) as reader:
            while not collector.done:
                chunk = await reader.read(READ_CHUNK)
                if not chunk:
                    collector.feed(decoder.decode(b"", final=True))
                    collector.finish()
                    break
                collector.feed(decoder.decode(chunk))
        return collector.window()

    # --- searching -----------------------------------------------------------------------------

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

    async def _candidates(self, root: str, pattern: CompiledGlob | None) -> AsyncGenerator[tuple[FileInfo, Any], None]:
        """The files under the directory ``root`` that ``pattern`` matches (every file without one), each with
        a backend reference (for batched reads).

        The default walks the whole subtree; a store with an ordered name index narrows it to the pattern's
        literal prefix.
        """
        prefix = dir_prefix(root)
        walker = self.walk(root)
        try:
            async for info in walker:
                if pattern is None or pattern.matches(info.path[len(prefix) :]):
                    yield info, None
        finally:
            await walker.aclose()

    async def _targets(self, path: str, pattern: CompiledGlob | None) -> list[tuple[FileInfo, Any]]:
        """The files a glob or grep looks at: ``path`` itself when it is a file, else the matching files under it."""
        candidates = self._candidates(path, pattern)
        try:
            found = [item async for item in candidates]
        except InvalidPathError as exc:
            if exc.reason != NOT_A_DIRECTORY or path.endswith("/"):
                raise
            info = await self.info(path)
            return [(info, None)] if pattern is None or pattern.matches(base_name(path)) else []
        finally:
            await candidates.aclose()
        return found

    async def glob(self, pattern: str, path: str = ROOT, max_results: int | None = None) -> list[FileInfo]:
        """Files under ``path`` matching a path glob (bare pattern: base name at any depth), in name order."""
        self._life.require_open()
        p = validate_dir_path(path)
        check_max_results(max_results)
        compiled = compile_glob(pattern)
        infos = [info for info, _ in await self._targets(p, compiled)]
        return infos if max_results is None else infos[:max_results]

    async def _grep_sources(
        self, path: str, pattern: CompiledGlob | None
    ) -> AsyncGenerator[tuple[str, bytes | None], None]:
        """The files a grep reads, in name order, each with its whole content when the backend fetched it along
        with the listing (``None``: :meth:`_grep_file` streams it). The default fetches no content this way."""
        for info, _ in await self._targets(path, pattern):
            yield info.path, None

    async def grep(
        self,
        literal: str,
        path: str = ROOT,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        max_bytes: int | None = DEFAULT_GREP_MAX_BYTES,
    ) -> GrepResult:
        """Lines holding ``literal`` (a plain substring, not a regex) in files under ``path`` (or the file
        ``path``), optionally only in files matching ``glob``.

        Contents are streamed; at most ``max_bytes`` are read (``None``: no cap) and at most ``max_count``
        matches kept; ``truncated`` / ``truncation_reason`` say when a cap stopped the search early. Files
        holding a NUL byte or bytes that are not UTF-8 are binary and skipped.
        """
        self._life.require_open()
        p = validate_path(path)
        scanner = GrepScanner(literal, max_count, max_bytes)
        compiled = compile_glob(glob) if glob is not None else None
        sources = self._grep_sources(p, compiled)
        try:
            async for name, content in sources:
                if scanner.stopped:
                    break
                await self._grep_file(scanner, name, content)
        finally:
            await sources.aclose()
        return scanner.result()

    async def _grep_file(self, scanner: GrepScanner, name: str, content: bytes | None) -> None:
        if content is not None:
            if scanner.admits(len(content)):
                scanner.whole_file(name, content)
            return
        scanner.start_file(name)
        try:
            reader = await self.open_input(name)
        except (VfsFileNotFoundError, InvalidPathError):  # deleted or replaced by a directory meanwhile
            scanner.end_file(complete=False)
            return
        async with reader:
            while chunk := await reader.read(READ_CHUNK):
                if not scanner.admits(len(chunk)):
                    scanner.end_file(complete=False)
                    return
                scanner.feed(chunk)
        scanner.end_file()


instrument(AsyncFileSystemBase, "vfs")
