"""``AsyncVfsTaskOutputStore``: a task's output text as append-only segments in a filesystem.

Layout: ``<base_dir>/<task_id>/<start>.seg``, ``<start>`` the segment's first offset (UTF-16 code units,
see :mod:`aimon_mongo.snapshots.output`) zero-padded to 20 digits. Segments are contiguous, so file names
alone map offsets to segments; there is no index object. Each append writes one new segment at the
current length and advances the length only after the write succeeded, so a failed append is retried at
the same offset by the next one. The length is kept per task in memory and rebuilt from the listing the
first time a task is touched (last start + length of the last segment), so appends continue at the right
offset after a restart. One writer per task is assumed (the task's own runner), as in the reference.

Best-effort: ``append`` and ``evict`` log failures and never raise; ``read`` answers what it can.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from aimon_mongo._async.snapshots.objects import FirstUse
from aimon_mongo._async_runtime import Lock
from aimon_mongo.errors import InvalidArgumentError, InvalidPathError, VfsFileNotFoundError
from aimon_mongo.exported import exported_from
from aimon_mongo.snapshots.envelope import failure_text
from aimon_mongo.snapshots.layout import (
    DEFAULT_OUTPUT_BASE_DIR,
    segment_path,
    segment_start,
    task_dir,
    validate_base_dir,
)
from aimon_mongo.snapshots.output import (
    DEFAULT_MAX_CHARS,
    OutputSlice,
    OutputWindow,
    encode_chunk,
    utf16_length,
)
from aimon_mongo.vfs.protocol import AsyncFileSystem

log = logging.getLogger("aimon_mongo.snapshots")

Segments = list[tuple[int, str]]


@dataclass
class _Cursor:
    """A task's output length (``None`` until rebuilt from the listing), guarded by its own lock."""

    lock: Lock = field(default_factory=Lock)
    length: int | None = None


@exported_from("aimon_mongo.snapshots")
class AsyncVfsTaskOutputStore:
    """Task output in a filesystem (see the module docstring)."""

    def __init__(self, fs: AsyncFileSystem, base_dir: str = DEFAULT_OUTPUT_BASE_DIR) -> None:
        if fs is None:
            raise InvalidArgumentError("fs cannot be None")
        self.fs = fs
        self._opened = FirstUse(fs)  # initialised on first use
        self.base_dir = validate_base_dir(base_dir)
        self._cursors: dict[str, _Cursor] = {}

    def dir_of(self, task_id: str) -> str:
        """The directory holding a task's segments (validates the task id)."""
        return task_dir(self.base_dir, task_id)

    async def append(self, task_id: str, chunk: str | None) -> None:
        """Append ``chunk`` as a new segment; ``None`` and ``""`` are ignored. Never raises for a backend
        failure (logged; the next append retries at the same offset)."""
        directory = self.dir_of(task_id)
        if chunk is None or chunk == "":
            return
        data = encode_chunk(chunk)
        while True:
            cursor = self._cursors.setdefault(task_id, _Cursor())
            async with cursor.lock:
                if self._cursors.get(task_id) is not cursor:  # evicted while we waited
                    continue
                try:
                    if cursor.length is None:
                        cursor.length = await self._rebuild(directory)
                    fs = await self._opened()
                    await fs.write(segment_path(directory, cursor.length), data)
                    cursor.length += utf16_length(chunk)
                except Exception as exc:
                    log.warning("Failed to append output for task %s: %s", task_id, failure_text(exc))
                return

    async def read(self, task_id: str, from_offset: int = 0, max_chars: int = DEFAULT_MAX_CHARS) -> OutputSlice:
        """Up to ``max_chars`` UTF-16 units of output from ``from_offset`` (negative reads as 0).

        Segments wholly before the window are skipped without being read; the total length comes from the
        last segment (read once more if the window ended earlier). Never raises for a backend failure: an
        unreadable listing reads as no output, an unreadable segment as empty (both logged).
        """
        directory = self.dir_of(task_id)
        for name, value in (("from_offset", from_offset), ("max_chars", max_chars)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidArgumentError(f"{name} must be an int, got {type(value).__name__}")
        start = max(0, from_offset)
        try:
            segments = await self._segments(directory)
        except Exception as exc:
            log.warning("Failed to list output of task %s: %s", task_id, failure_text(exc))
            segments = []
        if not segments:
            return OutputSlice.empty(start)
        window = OutputWindow(start, max(1, max_chars))
        total: int | None = None
        for index, (seg_start, path) in enumerate(segments):
            seg_end = segments[index + 1][0] if index + 1 < len(segments) else None
            if window.skips(seg_end):
                continue
            if not window.reaches(seg_start):
                break
            text = await self._read_segment(task_id, path)
            window.take(seg_start, text, seg_end)
            if seg_end is None:
                total = seg_start + utf16_length(text)
        if total is None:
            last_start, last_path = segments[-1]
            total = last_start + utf16_length(await self._read_segment(task_id, last_path))
        return window.slice(total)

    async def length(self, task_id: str) -> int:
        """The output's length in UTF-16 units (0 when there is none, or when it cannot be listed: logged)."""
        directory = self.dir_of(task_id)
        cursor = self._cursors.setdefault(task_id, _Cursor())
        async with cursor.lock:
            if cursor.length is None:
                try:
                    cursor.length = await self._rebuild(directory)
                except Exception as exc:
                    log.warning("Failed to measure output of task %s: %s", task_id, failure_text(exc))
                    return 0
            return cursor.length

    async def evict(self, task_id: str) -> None:
        """Forget the task's length and delete its directory with every segment (failures logged)."""
        directory = self.dir_of(task_id)
        self._cursors.pop(task_id, None)
        try:
            fs = await self._opened()
            await fs.delete_recursive(directory)
        except VfsFileNotFoundError:
            pass
        except Exception as exc:
            log.warning("Failed to evict output of task %s: %s", task_id, failure_text(exc))

    async def _segments(self, directory: str) -> Segments:
        """The task's segments by start offset; none when the directory does not exist. Raises otherwise."""
        try:
            fs = await self._opened()
            names = await fs.ls(directory)
        except VfsFileNotFoundError:
            return []
        except InvalidPathError:  # a file where the directory should be: no segments
            return []
        found = [(start, name) for name in names if (start := segment_start(name)) is not None]
        found.sort()
        return found

    async def _rebuild(self, directory: str) -> int:
        """The output length from the listing; raises rather than guess (a wrong length would overwrite)."""
        segments = await self._segments(directory)
        if not segments:
            return 0
        last_start, last_path = segments[-1]
        fs = await self._opened()
        return last_start + utf16_length((await fs.read(last_path)).decode("utf-8"))

    async def _read_segment(self, task_id: str, path: str) -> str:
        try:
            fs = await self._opened()
            return (await fs.read(path)).decode("utf-8")
        except Exception as exc:
            log.warning("Failed to read output segment %s of task %s: %s", path, task_id, failure_text(exc))
            return ""
