"""What a signal listener fetches next, and which ids it still waits for (pure: no I/O, no threads).

Signal rows get their ids from a sequence when their transaction *inserts*, but become visible when it
*commits*, so a fetch of ``id > last_seen`` can see id 7 while id 6 is still uncommitted. The feed
remembers such holes for :data:`GAP_GRACE_SECONDS` and asks for them again on every fetch until they
appear (a late commit: delivered then, after higher ids) or expire (a rolled-back insert, or a
transaction open longer than the grace: lost for this node). Bounds keep memory flat: at most the
highest :data:`MAX_HOLE_SPAN` ids of one hole and :data:`MAX_TRACKED` ids overall (the oldest are
dropped first), with one WARN per :data:`OVERFLOW_WARN_INTERVAL` seconds when a bound drops ids.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from aimon_mongo._async.services.signals import next_backoff

__all__ = ["SignalFeed", "next_backoff"]

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5
"""How long one wait for a doorbell lasts before the listener checks whether it should stop or poll."""
SELF_POLL_SECONDS = 5.0
"""Fetch at least this often even without a doorbell (a lost NOTIFY costs at most this much latency)."""
RECONNECT_BACKOFF_SECONDS = 0.5
"""First wait before reconnecting a dropped LISTEN connection; the watcher doubles it up to
:data:`~aimon_mongo._async.services.signals.RETRY_BACKOFF_MAX` (:func:`next_backoff`)."""
FETCH_LIMIT = 10_000
GAP_GRACE_SECONDS = 60.0
MAX_HOLE_SPAN = 4096
MAX_TRACKED = 16_384
OVERFLOW_WARN_INTERVAL = 10.0


class SignalFeed:
    """The listener's position (``last_seen``) and the tracked gaps below it."""

    def __init__(
        self,
        last_seen: int,
        *,
        grace: float = GAP_GRACE_SECONDS,
        max_hole_span: int = MAX_HOLE_SPAN,
        max_tracked: int = MAX_TRACKED,
    ) -> None:
        self.last_seen = last_seen
        self._grace = grace
        self._max_hole_span = max_hole_span
        self._max_tracked = max_tracked
        self._gaps: dict[int, float] = {}  # id -> monotonic deadline (insertion order = ascending ids)
        self._last_overflow_warning = float("-inf")

    def gaps(self, now: float) -> list[int]:
        """The ids still awaited (expired ones are forgotten first)."""
        expired = [gap for gap, deadline in self._gaps.items() if deadline <= now]
        for gap in expired:
            del self._gaps[gap]
        return sorted(self._gaps)

    def observe(self, ids: Iterable[int], now: float) -> None:
        """Account for the ids one fetch returned: filled gaps are forgotten, holes between new ids (and
        between ``last_seen`` and the first new id) are tracked, and ``last_seen`` advances."""
        previous = self.last_seen
        for row_id in sorted(ids):
            if row_id <= self.last_seen:
                self._gaps.pop(row_id, None)
                continue
            if row_id > previous + 1:
                self._track(previous + 1, row_id - 1, now)
            previous = row_id
        self.last_seen = previous

    def _track(self, low: int, high: int, now: float) -> None:
        dropped = max(0, high - low + 1 - self._max_hole_span)
        low += dropped
        deadline = now + self._grace
        for gap in range(low, high + 1):
            self._gaps[gap] = deadline
        excess = len(self._gaps) - self._max_tracked
        if excess > 0:
            for gap in sorted(self._gaps)[:excess]:
                del self._gaps[gap]
            dropped += excess
        if dropped and now - self._last_overflow_warning >= OVERFLOW_WARN_INTERVAL:
            self._last_overflow_warning = now
            log.warning(
                "signal gap tracking is full: %d uncommitted signal ids will not be waited for; "
                "a late commit among them is lost on this node",
                dropped,
            )
