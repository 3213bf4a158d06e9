"""How a fenced primitive says "stale", and the one place that turns it into the refusal (pure).

The record and log-segment drivers run each fenced write as one atomic step: the per-session fence check
and the write. A primitive whose token is lower than one the session's fence already accepted writes
nothing and returns :class:`Stale`; the service passes every fenced result through :func:`accepted`, which
raises :class:`~aimon_mongo.errors.StaleFencingTokenError` naming the session and the token.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from aimon_mongo.errors import StaleFencingTokenError

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Stale:
    """A fenced primitive's refusal: nothing was written; ``highest`` is the token the session's fence
    holds (``None`` when the store could not say)."""

    highest: int | None


def accepted(result: T | Stale, session_id: str, token: int) -> T:
    """``result`` of a fenced primitive, or :class:`StaleFencingTokenError` when it is :class:`Stale`."""
    if isinstance(result, Stale):
        raise StaleFencingTokenError(session_id, token, result.highest)
    return result


def refusal(result: object) -> Stale | None:
    """The :class:`Stale` in a fenced reply, else ``None`` (for a driver whose primitive has no result)."""
    return result if isinstance(result, Stale) else None
