"""What the nodes of the lease-safety scenarios do, written once for every backend.

Each script drives one bundle (async-facing: an async bundle, or a sync one in
:class:`~tests.conformance.backends.AsyncFacade`) and reports what happened as JSON-able events through
``emit``. The worker process (:mod:`tests.reliability.lease_worker`) runs them for MongoDB, Redis and
PostgreSQL; the in-memory backend, whose storage cannot be shared between processes, runs the same
scripts in threads of the test process.

Times that matter for safety are the store's: a lease's start is ``expires_at - ttl`` (every backend
computes the expiry as its own "now" + ttl), each acquisition is followed and each release preceded by a
read of the store's clock (:class:`StoreClock`). Local ``time.monotonic()`` stamps (system-wide on Linux, so
comparable with the test process) only place writes relative to SIGSTOP / SIGCONT.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TextIO

from aimon_mongo.errors import AimonStorageError, StaleFencingTokenError
from aimon_mongo.model.record import LogSegment
from tests.conformance.helpers import now_ms

Emit = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class StoreClock:
    """The store's clock as one node reads it."""

    now: Callable[[], Awaitable[int]]
    """Now, in microseconds since the epoch, floored to the precision of the store's lease times."""
    exact_start: bool = True
    """Whether ``expires_at - ttl`` is the moment the store granted the lease. Not on PostgreSQL: there it is
    ``now()``, the acquiring transaction's start, and the statement can wait (for the fence row, for a CPU)
    while another lease is granted and released; the grant itself comes later, before the call returns."""


WRITE_KINDS = ("record", "segment")
CONTEST_TTLS_MS = (40, 60, 80, 120)
"""Lease lengths the contenders draw from: short, so that lapses happen often."""


def line_writer(stream: TextIO) -> Emit:
    """An ``emit`` that writes each event as one JSON line and flushes it (a log file, or stdout)."""

    def emit(event: dict[str, Any]) -> None:
        stream.write(json.dumps(event) + "\n")
        stream.flush()

    return emit


def micros(moment: datetime) -> int:
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def segment(session_id: str, segment_id: str) -> LogSegment:
    return LogSegment(
        session_id=session_id, segment_id=segment_id, from_seq=0, to_seq=0, entry_count=1, payload="[]",
        created_at=now_ms(),
    )  # fmt: skip


async def fenced_write(bundle: Any, kind: str, session_id: str, label: str, token: int) -> None:
    """One fenced write: the session record's transcript, or a new log segment named ``label``."""
    if kind == "record":
        await bundle.records.merge_transcript(session_id, label, token)
    else:
        await bundle.segments.put(segment(session_id, label), token)


async def acquire(bundle: Any, session_id: str, holder: str, ttl_ms: int, deadline_s: float) -> Any:
    """Poll ``try_acquire`` every 10 ms until the lease is taken; fails after ``deadline_s`` seconds."""
    give_up = time.monotonic() + deadline_s
    while True:
        lease = await bundle.leases.try_acquire(session_id, holder, timedelta(milliseconds=ttl_ms))
        if lease is not None:
            return lease
        if time.monotonic() > give_up:
            raise TimeoutError(f"{holder} could not acquire the lease of {session_id} in {deadline_s} s")
        await asyncio.sleep(0.01)


async def hold(
    bundle: Any, session_id: str, holder: str, ttl_ms: int, emit: Emit, pace: Callable[[], Awaitable[None]]
) -> None:
    """The old holder: acquire, then write a record and a segment per round (``pace`` between rounds)
    with the token it got, never checking the lease again, until both kinds of write were refused.

    Events: ``acquired`` (token, store-time start and expiry), ``holding`` after the first round, one
    ``write`` per write (kind, label, local monotonic start/end, outcome ``ok`` / ``stale``), ``done``.
    """
    lease = await acquire(bundle, session_id, holder, ttl_ms, deadline_s=30)
    expires = micros(lease.expires_at)
    emit({"event": "acquired", "token": lease.fencing_token, "start": expires - ttl_ms * 1000, "expires": expires})
    refused: set[str] = set()
    give_up = time.monotonic() + 20
    for round_no in range(1_000_000):
        for kind in WRITE_KINDS:
            label = f"{holder}-{round_no}"
            started = time.monotonic()
            try:
                await fenced_write(bundle, kind, session_id, label, lease.fencing_token)
                outcome = "ok"
            except StaleFencingTokenError:
                outcome = "stale"
                refused.add(kind)
            emit({"event": "write", "kind": kind, "label": label, "start": started, "end": time.monotonic(),
                  "outcome": outcome})  # fmt: skip
        if round_no == 0:
            emit({"event": "holding", "token": lease.fencing_token})
        if refused == set(WRITE_KINDS) or time.monotonic() > give_up:
            break
        await pace()
    emit({"event": "done", "refused": sorted(refused)})


async def take_over(bundle: Any, session_id: str, holder: str, emit: Emit) -> None:
    """The new holder: poll until the lease is free, then write a record and a segment with its token."""
    ttl_ms = 30_000
    lease = await acquire(bundle, session_id, holder, ttl_ms, deadline_s=30)
    expires = micros(lease.expires_at)
    label = f"{holder}-0"
    for kind in WRITE_KINDS:
        await fenced_write(bundle, kind, session_id, label, lease.fencing_token)
    emit({"event": "took-over", "token": lease.fencing_token, "start": expires - ttl_ms * 1000, "expires": expires,
          "label": label})  # fmt: skip


async def contend(
    bundle: Any, session_id: str, holder: str, acquisitions: int, seed: int, emit: Emit, clock: StoreClock
) -> None:
    """One of the contenders: take the lease ``acquisitions`` times, each time with a short random TTL.

    After each acquisition: one fenced record write with the new token; sometimes a renewal (``extend``,
    then ``find_holder`` for the expiry the store set); then either a release (preceded by a read of the
    store's clock) or nothing at all, letting the lease lapse. Between refused attempts it sleeps 1-4 ms.

    Events (one per line of the contender's log): ``acquire`` (token, ttl, store-time start and expiry,
    whether that start is exact, and the store's clock read right after the call returned: a start later
    than that read means the store reported an expiry later than the one it enforces),
    ``write`` (token, outcome), ``renew`` (token, the new expiry or ``null`` when the lease was already
    someone else's when read back), ``lost`` (a refused renewal), ``release`` (token, store time just
    before the call), ``lapse``, ``error`` (a storage error), and ``done`` with the refused attempts.
    """
    rng = random.Random(seed)
    refused_attempts = 0
    taken = 0
    while taken < acquisitions:
        ttl_ms = rng.choice(CONTEST_TTLS_MS)
        try:
            lease = await bundle.leases.try_acquire(session_id, holder, timedelta(milliseconds=ttl_ms))
        except AimonStorageError as exc:
            emit({"event": "error", "during": "acquire", "error": type(exc).__name__})
            continue
        if lease is None:
            refused_attempts += 1
            await asyncio.sleep(rng.uniform(0.001, 0.004))
            continue
        taken += 1
        token = lease.fencing_token
        expires = micros(lease.expires_at)
        read_after = await clock.now()
        emit({"event": "acquire", "token": token, "holder": holder, "ttl_ms": ttl_ms, "start": expires - ttl_ms * 1000,
              "exact_start": clock.exact_start, "expires": expires, "read_after": read_after})  # fmt: skip
        try:
            await _after_acquire(bundle, lease, ttl_ms, rng, emit, clock)
        except AimonStorageError as exc:
            emit({"event": "error", "during": "hold", "token": token, "error": type(exc).__name__})
    emit({"event": "done", "refused_attempts": refused_attempts})


async def _after_acquire(
    bundle: Any, lease: Any, ttl_ms: int, rng: random.Random, emit: Emit, clock: StoreClock
) -> None:
    token = lease.fencing_token
    try:
        await fenced_write(bundle, "record", lease.session_id, f"{lease.holder_id} {token}", token)
        emit({"event": "write", "token": token, "outcome": "ok"})
    except StaleFencingTokenError:  # paused past its lease before writing, and a successor wrote
        emit({"event": "write", "token": token, "outcome": "stale"})
    if rng.random() < 0.3:
        if not await bundle.leases.extend(lease, timedelta(milliseconds=ttl_ms)):
            emit({"event": "lost", "token": token})
            return
        held = await bundle.leases.find_holder(lease.session_id)
        mine = held is not None and (held.holder_id, held.fencing_token) == (lease.holder_id, token)
        emit({"event": "renew", "token": token, "expires": micros(held.expires_at) if mine else None})
    if rng.random() < 0.5:
        before = await clock.now()
        await bundle.leases.release(lease)
        emit({"event": "release", "token": token, "not_before": before})
    else:
        emit({"event": "lapse", "token": token})
