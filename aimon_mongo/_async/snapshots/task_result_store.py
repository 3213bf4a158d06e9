"""``AsyncVfsTaskResultStore``: a background task's result as ``<base_dir>/<task_id>.json`` in a filesystem.

The object is the :class:`~aimon_mongo.snapshots.JsonTaskResultCodec` document itself, with no envelope
(the codec's ``version`` is the version of record). Like the snapshot store it is best-effort: ``save``
and ``evict`` log failures and never raise; ``load`` answers ``None`` for a missing or unreadable result.
A save is one write that replaces the object whole (the reference deleted first, then wrote).
"""

from __future__ import annotations

import logging

from aimon_mongo import names as n
from aimon_mongo._async.snapshots.objects import FirstUse, delete_quietly, read_or_none, write_best_effort
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.exported import exported_from
from aimon_mongo.snapshots.envelope import failure_text
from aimon_mongo.snapshots.layout import DEFAULT_RESULT_BASE_DIR, object_path, validate_base_dir
from aimon_mongo.snapshots.task_result import JsonTaskResultCodec, TaskResult
from aimon_mongo.vfs.protocol import AsyncFileSystem

log = logging.getLogger("aimon_mongo.snapshots")
_WHAT = "task result"


@exported_from("aimon_mongo.snapshots")
class AsyncVfsTaskResultStore:
    """Task results in a filesystem (see the module docstring)."""

    def __init__(
        self,
        fs: AsyncFileSystem,
        codec: JsonTaskResultCodec | None = None,
        base_dir: str = DEFAULT_RESULT_BASE_DIR,
    ) -> None:
        if fs is None:
            raise InvalidArgumentError("fs cannot be None")
        self.fs = fs
        self._opened = FirstUse(fs)  # initialised on first use
        self.codec = JsonTaskResultCodec() if codec is None else codec
        self.base_dir = validate_base_dir(base_dir)

    def path_of(self, task_id: str) -> str:
        """The object path of a task's result (validates the task id)."""
        return object_path(self.base_dir, task_id, n.TASKRES_SUFFIX)

    async def save(self, task_id: str, result: TaskResult) -> None:
        """Store the result, replacing any previous one; never raises for a backend failure."""
        path = self.path_of(task_id)
        if not isinstance(result, TaskResult):
            raise InvalidArgumentError(f"result must be a TaskResult, got {type(result).__name__}")
        await write_best_effort(self._opened, path, lambda: self.codec.encode(result), _WHAT, task_id)

    async def load(self, task_id: str) -> TaskResult | None:
        """The stored result, or ``None`` (a failure to read or decode it is logged at WARN)."""
        data = await read_or_none(self._opened, self.path_of(task_id), _WHAT, task_id)
        if data is None:
            return None
        try:
            return self.codec.decode(data.decode("utf-8"))
        except Exception as exc:
            log.warning("Failed to load task result for task %s: %s", task_id, failure_text(exc))
            return None

    async def evict(self, task_id: str) -> None:
        """Remove a task's result; quiet when there is none, failures logged at DEBUG only."""
        await delete_quietly(self._opened, self.path_of(task_id), _WHAT, task_id)
