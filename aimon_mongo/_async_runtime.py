"""Concurrency primitives for the async sources (asyncio flavour).

Async sources import these names instead of ``asyncio`` directly; ``scripts/gen_sync.py`` maps this
module to :mod:`aimon_mongo._sync_runtime`, which offers the same names for threads. Only primitives
live here — never logic.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

Lock = asyncio.Lock
Event = asyncio.Event
monotonic = time.monotonic


async def sleep(seconds: float) -> None:
    """Sleep without blocking the event loop."""
    await asyncio.sleep(seconds)


async def wait_event(event: asyncio.Event, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``event``; True when it is set."""
    try:
        await asyncio.wait_for(event.wait(), timeout)
    except TimeoutError:
        pass
    return event.is_set()


class Worker:
    """A background activity started by :func:`spawn` (an asyncio task; a daemon thread in the sync runtime)."""

    def __init__(self, task: asyncio.Task[None]) -> None:
        self._task = task

    def is_alive(self) -> bool:
        return not self._task.done()

    async def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the activity to end; True when it ended. A task still running
        then is cancelled (a thread cannot be)."""
        if self._task is asyncio.current_task():
            return False
        done, _ = await asyncio.wait({self._task}, timeout=timeout)
        if done:
            return True
        self._task.cancel()
        await asyncio.wait({self._task})
        return False


def spawn(target: Callable[[], Coroutine[Any, Any, None]], name: str) -> Worker:
    """Run ``target()`` in the background (a task on the running loop); it must catch its own errors."""
    return Worker(asyncio.get_running_loop().create_task(target(), name=name))
