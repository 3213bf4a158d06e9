"""Priority tiers of the inbox. Declaration order is priority order; ordinals are persisted."""

from __future__ import annotations

from enum import IntEnum


class Priority(IntEnum):
    """``NOW`` (0, highest) < ``NEXT`` (1, the default of a routed submission) < ``LATER`` (2).

    The ordinal is what MongoDB and PostgreSQL store; the name is what the JSON envelope stores.
    "Collect up to priority X" means every tier whose ordinal is ``<= X``.
    """

    NOW = 0
    NEXT = 1
    LATER = 2

    @property
    def ordinal(self) -> int:
        return int(self)
