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
Worker = threading.Thread
"""A background activity started by :func:`spawn`."""


def sleep(seconds: float) -> None:
    """Sleep the calling thread."""
    time.sleep(seconds)


def spawn(target: Callable[[], None], name: str) -> Worker:
    """Run ``target()`` in the background: a daemon thread."""
    worker = threading.Thread(target=target, name=name, daemon=True)
    worker.start()
    return worker


def join(worker: Worker, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``worker`` to finish; True if it did."""
    worker.join(timeout)
    return not worker.is_alive()


def wait_event(event: Event, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``event``; True if it is set."""
    return event.wait(timeout)
