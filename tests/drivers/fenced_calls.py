"""Timing of concurrent fenced driver calls, and the fencing property they must keep (shared by the record
and segment driver tests)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aimon_mongo.services.fencing import Stale


@dataclass(frozen=True)
class Call:
    """One fenced primitive call: its token, when it started and returned, and its result."""

    token: int
    started: float
    returned: float
    result: Any

    @property
    def accepted(self) -> bool:
        return not isinstance(self.result, Stale)


async def timed(token: int, primitive: Callable[..., Awaitable[Any]], *args: Any) -> Call:
    """Run ``primitive(*args)`` (a fenced primitive, ``token`` among ``args``) noting when it started and
    returned."""
    started = time.monotonic()
    result = await primitive(*args)
    return Call(token, started, time.monotonic(), result)


def late_lower_writes(calls: list[Call]) -> list[Call]:
    """The accepted calls that started after a call with a higher token had returned accepted: a lower
    token that landed after a higher one was accepted (must be none)."""
    accepted = [call for call in calls if call.accepted]
    return [
        late
        for late in accepted
        if any(earlier.token > late.token and earlier.returned < late.started for earlier in accepted)
    ]
