"""The idempotency service (async source; the sync twin is generated): the policy of
:class:`~aimon_mongo._async.ports.AsyncIdempotencyStore` written once, over a driver of one store's atomic
primitives (:class:`AsyncIdempotencyDriver`).

The service checks every argument, holds the done TTL, names every failure (:class:`IdempotencyStoreError`,
messages naming the key, never a payload), retries a primitive that lost a race (``put`` against an expiry,
a Redis compare-and-set against another writer), decodes each stored entry on its own with the driver's
codec, and decides which entries are stale: a driver may return more candidates than are stale (Redis
can only scan them all); the service keeps the live ``IN_FLIGHT`` entries with a holder touched before the
cutoff, least recently touched first, and skips an unreadable one with a WARN.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any, Protocol

from aimon_mongo.errors import IdempotencyStoreError
from aimon_mongo.exported import exported_from
from aimon_mongo.model import IdempotencyEntry, IdempotencyStatus, PutOutcome, PutResult, TurnResult
from aimon_mongo.services.composed import composed_repr
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.readable import readable
from aimon_mongo.telemetry.capabilities import traced
from aimon_mongo.validate import (
    require_aware,
    require_holder,
    require_id,
    require_instance,
    require_limit,
    require_positive,
)

log = logging.getLogger(__name__)

DEFAULT_DONE_TTL = timedelta(hours=24)
PUT_ATTEMPTS = 3
MARK_DONE_ATTEMPTS = 16


class AsyncIdempotencyDriver(Protocol):
    """One store's atomic primitives over idempotency entries. ``raw`` is the store's own form of an entry
    (a document, a JSON text, a row, a model), read by :meth:`decode`; "live" is "not expired" by the
    store's clock; "held by ``h``" is ``IN_FLIGHT`` with holder ``h`` (``None``: no holder)."""

    failures: Failures
    holder_id_forbidden_chars: str
    """Characters a holder id may not contain in this store (``""``: none)."""

    def decode(self, raw: Any) -> IdempotencyEntry:
        """The entry ``raw`` holds (:class:`CodecError` when it is unreadable)."""
        ...

    async def put(self, entry: IdempotencyEntry, ttl: timedelta) -> tuple[bool, Any]:
        """One attempt to insert ``entry`` expiring after ``ttl`` unless a live entry has its key (a lapsed one
        is replaced): ``(True, None)`` inserted, ``(False, raw)`` the live entry, ``(False, None)`` neither
        (the holder lapsed or was deleted between the store's steps: the service tries again)."""
        ...

    async def mark_done(self, key: str, result: TurnResult, ttl: timedelta) -> bool | None:
        """One attempt to make the live entry ``DONE`` with ``result``, no holder, touched now, expiring after
        ``ttl``: whether there was one, or ``None`` when another writer changed it meanwhile."""
        ...

    async def touch(self, key: str, holder_id: str) -> bool:
        """Stamp the entry held by ``holder_id`` touched now and re-arm its own span."""
        ...

    async def rehold(self, key: str, expected: str | None, holder_id: str | None, ttl: timedelta) -> bool:
        """The entry held by ``expected`` becomes held by ``holder_id``, touched now, expiring after ``ttl``."""
        ...

    async def delete_held(self, key: str, expected: str | None) -> bool:
        """Delete the entry held by ``expected`` (exactly one of racing callers sees ``True``)."""
        ...

    async def stale_candidates(self, cutoff: datetime, limit: int) -> list[tuple[str, Any]]:
        """``(key, raw)`` of live entries among which are, least recently touched first, the first ``limit``
        held ones touched before ``cutoff`` (a store that cannot select them returns every entry)."""
        ...

    async def find(self, key: str) -> Any | None:
        """The live entry of ``key`` as stored, or ``None``."""
        ...


@exported_from("aimon_mongo.services")
@traced("idempotency")
class AsyncIdempotency:
    """Client-key de-duplication and holder-loss detection over a driver (see the module text)."""

    def __init__(self, driver: AsyncIdempotencyDriver, done_ttl: timedelta = DEFAULT_DONE_TTL) -> None:
        self._driver = driver
        self._done_ttl = require_positive(done_ttl, "done_ttl")

    __repr__ = composed_repr

    @property
    def driver(self) -> AsyncIdempotencyDriver:
        """The store's primitives (driver-level tests use them)."""
        return self._driver

    @property
    def holder_id_forbidden_chars(self) -> str:
        """Characters a holder id may not contain in this store (``""``: none)."""
        return self._driver.holder_id_forbidden_chars

    async def put_if_absent(self, entry: IdempotencyEntry, ttl: timedelta) -> PutResult:
        """Insert ``entry`` expiring after ``ttl`` unless a live entry has the key (then ``EXISTING`` with it)."""
        require_instance(entry, IdempotencyEntry, "entry")
        require_positive(ttl, "ttl")
        if entry.holder_id is not None and self.holder_id_forbidden_chars:
            self._holder(entry.holder_id, "entry.holder_id")
        for _ in range(PUT_ATTEMPTS):
            with self._driver.failures(IdempotencyStoreError, _action("put_if_absent", entry.key)):
                inserted, raw = await self._driver.put(entry, ttl)
            if inserted:
                return PutResult(outcome=PutOutcome.INSERTED)
            if raw is not None:
                return PutResult(outcome=PutOutcome.EXISTING, existing=self._driver.decode(raw))
        raise IdempotencyStoreError(f"{_action('put_if_absent', entry.key)} kept racing with expiry; try again")

    async def mark_done(self, key: str, result: TurnResult) -> None:
        """Record the result: ``DONE``, holder cleared, expiry = now + done TTL. Missing key: WARN only."""
        require_id(key, "key")
        require_instance(result, TurnResult, "result")
        for _ in range(MARK_DONE_ATTEMPTS):
            with self._driver.failures(IdempotencyStoreError, _action("mark_done", key)):
                done = await self._driver.mark_done(key, result, self._done_ttl)
            if done is not None:
                if not done:
                    log.warning("mark_done: no live idempotency entry %r", key)
                return
        raise IdempotencyStoreError(f"{_action('mark_done', key)} kept racing with other writers")

    async def touch(self, key: str, holder_id: str) -> bool:
        """Refresh ``last_touched_at`` and slide the entry's own TTL span, if it is ``IN_FLIGHT`` with
        ``holder_id``."""
        require_id(key, "key")
        holder = self._holder(holder_id, "holder_id")
        with self._driver.failures(IdempotencyStoreError, _action("touch", key)):
            return await self._driver.touch(key, holder)

    async def release_holder(self, key: str, expected_holder: str, ttl: timedelta) -> bool:
        """``IN_FLIGHT`` + holder match → clear the holder (reserved, waiting) and expire after ``ttl``."""
        require_id(key, "key")
        expected = self._holder(expected_holder, "expected_holder")
        return await self._rehold("release_holder", key, expected, None, ttl)

    async def acquire_holder(self, key: str, holder_id: str, ttl: timedelta) -> bool:
        """``IN_FLIGHT`` without holder → take it for ``holder_id`` and expire after ``ttl``."""
        require_id(key, "key")
        return await self._rehold("acquire_holder", key, None, self._holder(holder_id, "holder_id"), ttl)

    async def discard_reservation(self, key: str) -> bool:
        """Delete an ``IN_FLIGHT`` entry that has no holder."""
        require_id(key, "key")
        return await self._delete("discard_reservation", key, None)

    async def compare_and_reset(self, key: str, expected_holder: str) -> bool:
        """Delete the entry if it is ``IN_FLIGHT`` with ``expected_holder`` (exactly one caller wins)."""
        require_id(key, "key")
        return await self._delete("compare_and_reset", key, self._holder(expected_holder, "expected_holder"))

    async def find_stale_in_flight(self, cutoff: datetime, limit: int = 256) -> list[IdempotencyEntry]:
        """``IN_FLIGHT`` entries with a holder whose ``last_touched_at`` is before ``cutoff``, least recently
        touched first (an unreadable entry is skipped with a WARN)."""
        cutoff = require_aware(cutoff, "cutoff")
        require_limit(limit)
        with self._driver.failures(IdempotencyStoreError, "find_stale_in_flight of idempotency entries"):
            candidates = await self._driver.stale_candidates(cutoff, limit)
        stale = [
            entry
            for entry in readable(candidates, self._driver.decode, "idempotency entry", log)
            if entry.status is IdempotencyStatus.IN_FLIGHT
            and entry.holder_id is not None
            and entry.last_touched_at < cutoff
        ]
        stale.sort(key=lambda e: e.last_touched_at)
        return stale[:limit]

    async def find(self, key: str) -> IdempotencyEntry | None:
        """The live entry of ``key``, or ``None``."""
        require_id(key, "key")
        with self._driver.failures(IdempotencyStoreError, _action("find", key)):
            raw = await self._driver.find(key)
        return None if raw is None else self._driver.decode(raw)

    async def _rehold(self, what: str, key: str, expected: str | None, holder: str | None, ttl: timedelta) -> bool:
        require_positive(ttl, "ttl")
        with self._driver.failures(IdempotencyStoreError, _action(what, key)):
            return await self._driver.rehold(key, expected, holder, ttl)

    async def _delete(self, what: str, key: str, expected: str | None) -> bool:
        with self._driver.failures(IdempotencyStoreError, _action(what, key)):
            return await self._driver.delete_held(key, expected)

    def _holder(self, value: object, argument: str) -> str:
        """A holder id: :func:`require_id`, and none of the store's forbidden characters."""
        return require_holder(value, argument, self.holder_id_forbidden_chars, "its scripts match holder ids as text")


def _action(what: str, key: str) -> str:
    return f"{what} of idempotency key {key!r}"
