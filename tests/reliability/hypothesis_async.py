"""Run a hypothesis property whose body is async, from an async test, on the test's own event loop.

Hypothesis calls the property synchronously, so it runs in a worker thread and every example's body is
scheduled on the test's loop (where the cluster's async clients live) and awaited from that thread.
Shrinking works as usual; the examples run one after another.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


async def run_property(
    strategy: st.SearchStrategy[Any], body: Callable[[Any], Awaitable[None]], *, max_examples: int
) -> None:
    loop = asyncio.get_running_loop()

    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(strategy)
    def check(example: Any) -> None:
        asyncio.run_coroutine_threadsafe(body(example), loop).result()

    await asyncio.to_thread(check)
