"""Concurrency primitives for the generated sync twins (threading flavour).

Same names as :mod:`aimon_mongo._async_runtime`; see there.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

Lock = threading.Lock
Event = threading.Event
monotonic = time.monotonic


def sleep(seconds: float) -> None:
    """Sleep the calling thread."""
    time.sleep(seconds)


def wait_event(event: threading.Event, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``event``; True when it is set."""
    return event.wait(timeout)


class Worker:
    """A background activity started by :func:`spawn` (a daemon thread)."""

    def __init__(self, thread: threading.Thread) -> None:
        self._thread = thread

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the thread to end; True when it ended."""
        if self._thread is threading.current_thread():
            return False
        self._thread.join(timeout)
        return not self._thread.is_alive()


def spawn(target: Callable[[], None], name: str) -> Worker:
    """Run ``target()`` in a daemon thread; it must catch its own errors."""
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return Worker(thread)
