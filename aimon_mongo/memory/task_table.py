"""In-memory background tasks; the terminal guard is atomic (one lock)."""

from __future__ import annotations

import threading
from datetime import datetime

from aimon_mongo.model import BackgroundTask, TaskQuery, TaskState

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

    def transition(self, task_id: str, to: TaskState, now: datetime) -> BackgroundTask | None:
        update: dict[str, object] = {"state": to}
        if to.is_terminal:
            update["end_time"] = now
        return self._update_live(task_id, update)

    def heartbeat(self, task_id: str, at: datetime) -> BackgroundTask | None:
        return self._update_live(task_id, {"last_heartbeat": at})

    def list(self, query: TaskQuery | None) -> list[BackgroundTask]:
        with self._lock:
            tasks = list(self._tasks.values())
        return tasks if query is None else [t for t in tasks if query.matches(t)]

    def _update_live(self, task_id: str, update: dict[str, object]) -> BackgroundTask | None:
        with self._lock:
            task = self._tasks.get(task_id)
            if task is None or task.state.is_terminal:
                return None
            task = task.model_copy(update=update)
            self._tasks[task_id] = task
            self._evict()
            return task

    def _evict(self) -> None:
        terminal = [t for t in self._tasks.values() if t.state.is_terminal]
        excess = len(terminal) - self._max_terminal
        if excess > 0:
            terminal.sort(key=lambda t: t.end_time or t.start_time)
            for task in terminal[:excess]:
                del self._tasks[task.task_id]
