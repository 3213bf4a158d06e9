"""Concurrency primitives for the async sources (asyncio flavour).

Async sources import these names instead of ``asyncio`` directly; ``scripts/gen_sync.py`` maps this
module to :mod:`aimon_mongo._sync_runtime`, which offers the same names for threads. Only primitives
live here — never logic.
"""

from __future__ import annotations

import asyncio
import contextlib
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
    """Wait until ``event`` is set or ``timeout`` seconds passed; True when it is set."""
    if event.is_set():
        return True
    try:
        await asyncio.wait_for(event.wait(), timeout)
    except TimeoutError:
        return False
    return True


class Worker:
    """A background activity: an asyncio task here (a daemon thread in the sync flavour)."""

    def __init__(self, target: Callable[[], Coroutine[Any, Any, None]], name: str) -> None:
        self._task: asyncio.Task[None] = asyncio.get_running_loop().create_task(target(), name=name)

    async def join(self, timeout: float) -> None:
        """Wait for the activity to end; after ``timeout`` seconds cancel it."""
        done, _ = await asyncio.wait({self._task}, timeout=timeout)
        if not done:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def is_alive(self) -> bool:
        return not self._task.done()

    def is_current(self) -> bool:
        """True when called from inside the activity itself."""
        return asyncio.current_task() is self._task


def spawn(target: Callable[[], Coroutine[Any, Any, None]], name: str) -> Worker:
    """Start ``target`` in the background (on the running event loop)."""
    return Worker(target, name)
