"""Concurrency primitives for the async sources (asyncio flavour).

Async sources import these names instead of ``asyncio`` directly; ``scripts/gen_sync.py`` maps this
module to :mod:`aimon_mongo._sync_runtime`, which offers the same names for threads. Only primitives
live here — never logic.
"""

from __future__ import annotations

import asyncio
import time

Lock = asyncio.Lock
Event = asyncio.Event
monotonic = time.monotonic


async def sleep(seconds: float) -> None:
    """Sleep without blocking the event loop."""
    await asyncio.sleep(seconds)
