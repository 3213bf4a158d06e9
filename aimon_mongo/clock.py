"""The injectable clock (stamps what callers see; ordering and expiry use the store's own clock)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """Now, timezone-aware UTC."""
    return datetime.now(UTC)
