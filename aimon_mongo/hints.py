"""A bounded map of hints: what a process last saw under a key, kept only to skip a lookup next time.

A hint may be missing or out of date, so its users check it against the store; the map only has to stay small
and safe to share between threads (no iteration over it: when full it starts over).
"""

from __future__ import annotations

from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Hints(Generic[K, V]):
    """At most ``limit`` keys, each with the value last put under it; when full, a new key clears the map."""

    def __init__(self, limit: int) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be an int >= 1, got {limit!r}")
        self._limit = limit
        self._values: dict[K, V] = {}

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` as ``key``'s latest hint."""
        if key not in self._values and len(self._values) >= self._limit:
            self._values.clear()
        self._values[key] = value

    def get(self, key: K) -> V | None:
        """``key``'s hint, if one is kept."""
        return self._values.get(key)

    def forget(self, key: K) -> None:
        """Drop ``key``'s hint, if one is kept."""
        self._values.pop(key, None)

    def __len__(self) -> int:
        return len(self._values)
