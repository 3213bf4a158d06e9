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
    """Wait until ``event`` is set or ``timeout`` seconds passed; True when it is set."""
    return event.wait(timeout)


class Worker:
    """A background activity: a daemon thread here (an asyncio task in the async flavour)."""

    def __init__(self, target: Callable[[], None], name: str) -> None:
        self._thread = threading.Thread(target=target, name=name, daemon=True)
        self._thread.start()

    def join(self, timeout: float) -> None:
        """Wait for the activity to end, at most ``timeout`` seconds (a thread cannot be cancelled; the
        target must watch its stop event)."""
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def is_current(self) -> bool:
        """True when called from inside the activity itself."""
        return self._thread is threading.current_thread()


def spawn(target: Callable[[], None], name: str) -> Worker:
    """Start ``target`` on a daemon thread."""
    return Worker(target, name)
