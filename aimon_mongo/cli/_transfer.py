"""Streaming copies between the local disk and the filesystem, with a progress bar over 1 MiB.

The bar (bytes, rate, ETA) goes to stderr, so stdout stays clean for scripts. Downloads land in a
temporary file next to the destination and are renamed into place at the end: an interrupted ``get``
never leaves a truncated file under the destination name. A new local file gets the mode ``cp`` would give
it (``0666`` less the umask); a replaced one keeps its mode.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from aimon_mongo.cli._errors import CommandFailed
from aimon_mongo.errors import VirtualFileSystemError
from aimon_mongo.model.vfs import FileInfo
from aimon_mongo.vfs.protocol import FileSystem

PROGRESS_THRESHOLD = 1024 * 1024
"""Transfers larger than this many bytes show a progress bar."""
CHUNK_SIZE = 256 * 1024


@contextlib.contextmanager
def _progress(label: str, total: int, console: Console) -> Iterator[Callable[[int], None]]:
    """Yields ``advance(n)``; shows a bar only when ``total`` is over the threshold."""
    if total <= PROGRESS_THRESHOLD:
        yield lambda _n: None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(binary_units=True),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


def _pump(read: Callable[[int], bytes], write: Callable[[bytes], Any], advance: Callable[[int], None]) -> int:
    copied = 0
    while chunk := read(CHUNK_SIZE):
        write(chunk)
        copied += len(chunk)
        advance(len(chunk))
    return copied


def download(fs: FileSystem, source: str, destination: Path, console: Console) -> int:
    """Copy the filesystem file ``source`` to the local ``destination`` (replacing it); returns the bytes
    copied."""
    try:
        kept_mode: int | None = stat.S_IMODE(destination.stat().st_mode)
    except FileNotFoundError:
        kept_mode = None
    with fs.open_input(source) as reader:
        temp = destination.with_name(f".{destination.name}.{secrets.token_hex(4)}.part")
        try:
            # 0o666 here: the umask then decides, as it does for cp and mongofiles
            handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except OSError as exc:
            raise _local_failure(exc, destination) from None
        try:
            with os.fdopen(handle, "wb") as out, _progress(f"get {source}", reader.size, console) as advance:
                copied = _pump(reader.read, out.write, advance)
            if kept_mode is not None:
                os.chmod(temp, kept_mode)
            os.replace(temp, destination)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            if isinstance(exc, OSError) and not isinstance(exc, VirtualFileSystemError):
                raise _local_failure(exc, destination) from None
            raise
    return copied


def _local_failure(exc: OSError, destination: Path) -> CommandFailed:
    """A local write failure naming the destination, never the temporary file it was written through."""
    return CommandFailed(f"cannot write {destination}: {exc.strerror or type(exc).__name__}")


def upload(fs: FileSystem, source: Path | IO[bytes], destination: str, console: Console) -> FileInfo:
    """Copy the local file ``source`` (a path, or an open binary stream such as stdin) to ``destination``
    in the filesystem (replacing it on success)."""
    with contextlib.ExitStack() as stack:
        local = stack.enter_context(open(source, "rb")) if isinstance(source, Path) else source
        total = os.fstat(local.fileno()).st_size if isinstance(source, Path) else 0
        writer = fs.open_output(destination)
        try:
            with _progress(f"put {destination}", total, console) as advance:
                _pump(local.read, writer.write, advance)
            return writer.close()
        except BaseException:
            writer.abort()
            raise


def read_all(fs: FileSystem, path: str, write: Callable[[bytes], Any]) -> int:
    """Stream a file to ``write`` in chunks (no whole-file buffer); returns the bytes written."""
    with fs.open_input(path) as reader:
        return _pump(reader.read, write, lambda _n: None)
