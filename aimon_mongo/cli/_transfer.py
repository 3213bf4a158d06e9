"""Streaming copies between the local disk and the filesystem, with a progress bar over 1 MiB.

The bar (bytes, rate, ETA) goes to stderr, so stdout stays clean for scripts. Downloads land in a
temporary file next to the destination and are renamed into place at the end: an interrupted ``get``
never leaves a truncated file under the destination name.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

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
    """Copy the filesystem file ``source`` to the local ``destination``; returns the bytes copied."""
    with fs.open_input(source) as reader:
        handle, temp = tempfile.mkstemp(prefix=f".{destination.name}.", suffix=".part", dir=destination.parent)
        try:
            with os.fdopen(handle, "wb") as out, _progress(f"get {source}", reader.size, console) as advance:
                copied = _pump(reader.read, out.write, advance)
            os.replace(temp, destination)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
    return copied


def upload(fs: FileSystem, source: Path, destination: str, console: Console) -> FileInfo:
    """Copy the local file ``source`` to ``destination`` in the filesystem (replacing it on success)."""
    with open(source, "rb") as local:
        total = os.fstat(local.fileno()).st_size
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
