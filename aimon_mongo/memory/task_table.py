"""In-memory background tasks; the terminal guard is atomic (one lock)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from aimon_mongo.model import BackgroundTask, TaskState

DEFAULT_MAX_TERMINAL_TASKS = 1000
"""Terminal tasks kept; beyond it the oldest (by end time, else start time) are evicted. Non-terminal
tasks are never evicted."""


class TaskTable:
    def __init__(self, lock: threading.Lock, max_terminal: int) -> None:
        self._lock = lock
        self._max_terminal = max_terminal
        self._tasks: dict[str, BackgroundTask] = {}

    def put(self, task: BackgroundTask) -> None:
        with self._lock:
            self._tasks[task.task_id] = task
            self._evict()

    def find(self, task_id: str) -> BackgroundTask | None:
        with self._lock:
            return self._tasks.get(task_id)

    def remove(self, task_id: str) -> bool:
        with self._lock:
            return self._tasks.pop(task_id, None) is not None

    def change(
        self, task_id: str, keep: frozenset[TaskState], change: Callable[[BackgroundTask], BackgroundTask]
    ) -> BackgroundTask | None:
        """Replace the task by ``change(task)`` unless it is unknown or its state is in ``keep``."""
        with self._lock:
            task = self._tasks.get(task_id)
            if task is None or task.state in keep:
                return None
            task = change(task)
            self._tasks[task_id] = task
            self._evict()
            return task

    def list(self) -> list[BackgroundTask]:
        with self._lock:
            return list(self._tasks.values())

    def _evict(self) -> None:
        terminal = [t for t in self._tasks.values() if t.state.is_terminal]
        excess = len(terminal) - self._max_terminal
        if excess > 0:
            terminal.sort(key=lambda t: t.end_time or t.start_time)
            for task in terminal[:excess]:
                del self._tasks[task.task_id]
