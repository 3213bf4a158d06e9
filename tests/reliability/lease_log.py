"""Merging the contenders' event logs into leases, and checking them: never two live holders, tokens
strictly increasing in acquisition order.

Every time here is the store's own clock in microseconds (see :mod:`tests.reliability.lease_scripts`).

* **Grant.** The store granted a lease at ``expires_at - ttl`` (its "now" when it decided) where that is
  exact (MongoDB ``$$NOW``, Redis ``TIME``, the memory storage's clock). On PostgreSQL that value is the
  acquiring transaction's start, and the grant came at some point up to the store-clock read taken right
  after the call returned (``read_after``): the grant lies in ``[grant_lo, grant_hi]``.
* **End.** A lease ends at its last known expiry (the acquisition's, or the one a renewal set, read back
  from the store), or earlier if it was released: a release takes effect at some store time at or after
  the clock read taken just before the call, so ``end`` = ``min(expiry, that read)`` is a *lower bound*.
* A holder re-acquiring its own live lease gets the next token and replaces that lease: the replaced
  lease ends at the successor's grant (``grant_lo`` of the next token's lease, when it has the same holder).
* A lease is therefore certainly live over ``[grant_hi, end)``. Two leases overlap for certain when
  those intervals intersect; token order is broken for certain when a higher token's grant window lies
  entirely before a lower token's.

Where a start is exact, this is exact for lapsed leases (the case decided by the store's expiry clock);
an acquisition during a release call cannot be told apart from one just after it and counts as after.
Every start is also checked against ``read_after``: a start later than that read means the store reported
an expiry later than the one it enforces, which would shift a lease out of an overlap unseen.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class LeaseSpan:
    token: int
    holder: str
    start: int
    """``expires_at - ttl`` of the acquisition: the grant time if ``exact_start``, else its earliest bound."""
    exact_start: bool
    read_after: int
    """The store's clock read just after the acquisition returned."""
    end: int
    """A lower bound of when the lease stopped being live."""
    released: bool = False
    write: str | None = None
    """Outcome of the fenced write made with this lease's token (``ok`` / ``stale``)."""

    @property
    def grant_lo(self) -> int:
        return self.start

    @property
    def grant_hi(self) -> int:
        return self.start if self.exact_start else self.read_after


@dataclass
class ContestReport:
    leases: list[LeaseSpan]
    """In the order the store granted them (by the latest possible grant time)."""
    overlaps: list[tuple[LeaseSpan, LeaseSpan]]
    token_regressions: list[tuple[LeaseSpan, LeaseSpan]]
    future_starts: list[LeaseSpan]
    after_release: int
    after_lapse: int
    refused_attempts: int
    errors: int


def read_events(paths: Iterable[Path]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for path in paths:
        events.extend(json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return events


def merge(events: Iterable[dict[str, Any]]) -> ContestReport:
    leases: dict[int, LeaseSpan] = {}
    refused_attempts = errors = 0
    regressions: list[tuple[LeaseSpan, LeaseSpan]] = []
    for event in events:
        kind = event["event"]
        if kind == "acquire":
            span = LeaseSpan(
                event["token"], event["holder"], event["start"], event["exact_start"], event["read_after"],
                event["expires"],
            )  # fmt: skip
            if span.token in leases:  # one token granted twice
                regressions.append((leases[span.token], span))
            leases[span.token] = span
        elif kind == "renew" and event["expires"] is not None:
            leases[event["token"]].end = event["expires"]
        elif kind == "release":
            span = leases[event["token"]]
            span.end, span.released = min(span.end, event["not_before"]), True
        elif kind == "write":
            leases[event["token"]].write = event["outcome"]
        elif kind == "error":
            errors += 1
        elif kind == "done":
            refused_attempts += event["refused_attempts"]
    by_token = sorted(leases.values(), key=lambda s: s.token)
    regressions += _token_regressions(by_token)
    for earlier, later in itertools.pairwise(by_token):
        if later.holder == earlier.holder:  # re-acquired by its own holder: the store replaced it then
            earlier.end = min(earlier.end, later.grant_lo)
    ordered = sorted(leases.values(), key=lambda s: (s.grant_hi, s.token))
    certain = [s for s in ordered if s.grant_hi < s.end]  # live for certain over a non-empty span
    return ContestReport(
        leases=ordered,
        overlaps=[(a, b) for a, b in itertools.pairwise(certain) if b.grant_hi < a.end],
        token_regressions=regressions,
        future_starts=[s for s in ordered if s.start > s.read_after],
        after_release=sum(1 for a, _ in itertools.pairwise(ordered) if a.released),
        after_lapse=sum(1 for a, _ in itertools.pairwise(ordered) if not a.released),
        refused_attempts=refused_attempts,
        errors=errors,
    )


def _token_regressions(by_token: list[LeaseSpan]) -> list[tuple[LeaseSpan, LeaseSpan]]:
    """Pairs (lower token, higher token) where the higher one was certainly granted first."""
    found: list[tuple[LeaseSpan, LeaseSpan]] = []
    latest: LeaseSpan | None = None  # among lower tokens, the one with the latest earliest-grant
    for span in by_token:
        if latest is not None and span.grant_hi < latest.grant_lo:
            found.append((latest, span))
        if latest is None or span.grant_lo > latest.grant_lo:
            latest = span
    return found
