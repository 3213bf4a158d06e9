"""Concurrency primitives for the generated sync twins (threading flavour).

Same names as :mod:`aimon_mongo._async_runtime`; see there.
"""

from __future__ import annotations

import threading
import time

Lock = threading.Lock
Event = threading.Event
monotonic = time.monotonic


def sleep(seconds: float) -> None:
    """Sleep the calling thread."""
    time.sleep(seconds)
