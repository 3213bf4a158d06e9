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
Worker = asyncio.Task[None]
"""A background activity started by :func:`spawn`."""


async def sleep(seconds: float) -> None:
    """Sleep without blocking the event loop."""
    await asyncio.sleep(seconds)


def spawn(target: Callable[[], Coroutine[Any, Any, None]], name: str) -> Worker:
    """Run ``target()`` in the background: a task on the running loop."""
    return asyncio.get_running_loop().create_task(target(), name=name)


async def join(worker: Worker, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``worker`` to finish (never cancels it); True if it did."""
    done, _ = await asyncio.wait({worker}, timeout=timeout)
    return bool(done)


async def wait_event(event: Event, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``event``; True if it is set."""
    try:
        await asyncio.wait_for(event.wait(), timeout)
    except TimeoutError:
        return False
    return True
