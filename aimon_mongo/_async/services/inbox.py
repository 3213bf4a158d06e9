"""The session inbox, written once (async source; the sync twin is generated): :class:`AsyncInbox` over
an :class:`AsyncInboxDriver`.

The service holds the policy of every backend's inbox:

* every argument is checked here, once, and every message encoded before any I/O (a bad item of a
  ``deliver_many`` stores nothing);
* ``collect`` takes a batch with the driver's one atomic ``take`` (entries are removed before they are
  decoded: at-most-once), decodes each entry on its own — one that cannot be decoded becomes an
  :class:`UnreadableEntry` (one WARN naming session and entry id, never the payload) and is moved to the
  quarantine, never raised. A driver that can quarantine inside the transaction that removes the batch
  does (PostgreSQL: an entry is delivered or quarantined, never lost); otherwise the service quarantines
  right after the take, and a failed quarantine is logged at ERROR and never fails the collect (the
  batch is already removed);
* a replay decodes the quarantined (or repaired) form first and refuses with ``CodecError``, keeping the
  entry, while it still cannot be decoded;
* every driver call runs in ``driver.failures(SessionInboxError, ...)``: the error family and the words
  of every message are these.

A driver returns entries in delivery order within a tier; one that cannot also guarantee the order of the
tiers within one batch (``takes_in_order`` False) gets its messages sorted here, once.

Acknowledged delivery (``claim`` / ``acknowledge``): the driver's one atomic ``claim`` hands out up to
:data:`CLAIM_LIMIT` entries that are unclaimed or claimed under a token ``<=`` the caller's (a new holder
after a failover, or the same holder again), records the token and counts the hand-out on each entry, and
moves an entry already handed out ``max_attempts`` times to the quarantine with the reason
:func:`handed_out` names, in the same step. The service decodes what was handed out; an entry that cannot
be decoded is moved to the quarantine right after (it stays stored and claimed until then, so a failure
there hands it out again: never lost). ``acknowledge`` removes entries only while they are still claimed
under exactly the caller's token.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Generic, Protocol, TypeVar

from aimon_mongo.errors import InvalidArgumentError, SessionInboxError
from aimon_mongo.exported import exported_from
from aimon_mongo.model import ClaimedBatch, CollectedBatch, InboundMessage, Priority, SessionPage, UnreadableEntry
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.services.composed import composed_repr
from aimon_mongo.services.failures import Failures
from aimon_mongo.telemetry.capabilities import traced
from aimon_mongo.validate import (
    delivery_action,
    optional_id,
    require_id,
    require_instance,
    require_limit,
    require_message,
    require_messages,
    require_token,
)

log = logging.getLogger(__name__)

E = TypeVar("E")
"""A message encoded for the store (a MongoDB document, an envelope text, the object itself)."""
R = TypeVar("R")
"""One stored entry as the driver read it (a document, a stream entry, a row)."""
K = TypeVar("K")
"""What the quarantine keeps of one entry (the quarantine document, the raw envelope)."""

Triage = Callable[[Sequence[R]], Sequence[tuple[R, UnreadableEntry]]]
"""Decodes the entries a take removed; returns the ones to quarantine, each with its report."""

CLAIM_LIMIT: Final = 64
"""The most entries one ``claim`` examines (hands out or quarantines) on every backend."""
HANDED_OUT_PREFIX: Final = "handed out "
HANDED_OUT_SUFFIX: Final = " times"
"""The quarantine reason of an entry handed out too often is ``prefix + count + suffix``; a driver that
builds it in the server (a script, a statement) joins these two parts around the count."""


def handed_out(count: int) -> str:
    """The quarantine reason of an entry handed out ``count`` times without being acknowledged."""
    return f"{HANDED_OUT_PREFIX}{count}{HANDED_OUT_SUFFIX}"


@dataclass(frozen=True)
class Claimed(Generic[R]):
    """What one driver ``claim`` did: the entries handed out (in collect order) each with its attempt
    number after this hand-out, and the ids it moved to the quarantine for exceeding ``max_attempts``."""

    handed: Sequence[tuple[R, int]] = ()
    exhausted: Sequence[str] = field(default_factory=list)


class AsyncInboxDriver(Protocol[E, R, K]):
    """The atomic primitives of one store's inbox; no argument checks, no policy (see the module text).

    ``batch_limit``: the most entries one ``take`` removes (``None``: no bound).
    ``quarantines_in_take``: ``take`` moves the entries its ``triage`` names to the quarantine in the
    transaction that removes the batch (then :meth:`quarantine` is never called after a take).
    ``takes_in_order``: a batch of ``take`` is in priority order too (else the service sorts it by tier).
    """

    failures: Failures
    batch_limit: int | None
    quarantines_in_take: bool
    takes_in_order: bool

    def encode(self, message: InboundMessage) -> E:
        """The stored form of ``message`` (pure: no I/O)."""
        ...

    def decode(self, raw: R, session_id: str) -> InboundMessage | UnreadableEntry:
        """One entry decoded on its own: the message with its store id, or the report of an entry that
        cannot be decoded (:mod:`aimon_mongo.codec.inbox_entry`); never raises."""
        ...

    def decode_replay(self, kept: K, repaired: Any, quarantine_id: str) -> InboundMessage:
        """The message a replay delivers: ``repaired`` decoded when given, else ``kept``'s raw form;
        raises :class:`~aimon_mongo.errors.CodecError` while it cannot be decoded."""
        ...

    async def append(self, entries: Sequence[tuple[InboundMessage, E]]) -> list[str]:
        """Store every entry in one round trip, in order; the store-assigned ids in the same order."""
        ...

    async def take(self, session_id: str, ceiling: Priority, triage: Triage[R]) -> Sequence[R]:
        """Remove and return, atomically against other takers, up to ``batch_limit`` entries of the session
        with priority up to ``ceiling`` (every stored entry when ``ceiling`` is ``LATER``), in delivery order
        within a tier (and tier by tier when ``takes_in_order``).
        A failure after some entries were removed for good returns those (never lost); a failure before
        raises. ``triage`` is called only by a driver that ``quarantines_in_take``."""
        ...

    async def quarantine(self, session_id: str, entries: Sequence[tuple[R, UnreadableEntry]]) -> None:
        """Keep the raw forms of removed, unreadable entries in the quarantine."""
        ...

    async def peek(self, session_id: str, limit: int) -> Sequence[R]:
        """Up to ``limit`` entries in collect order (a driver may cap it at ``batch_limit``), none removed."""
        ...

    async def is_empty(self, session_id: str) -> bool: ...

    async def purge(self, session_id: str) -> None: ...

    async def list_quarantined(self, session_id: str | None, limit: int) -> list[QuarantinedEntry]:
        """Up to ``limit`` quarantined entries, oldest first, of one session or of all."""
        ...

    async def find_quarantined(self, quarantine_id: str) -> K | None:
        """The quarantined entry ``quarantine_id`` names; ``None`` when there is none (or the id cannot name
        one in this store)."""
        ...

    async def restore(self, quarantine_id: str, message: InboundMessage, encoded: E) -> str | None:
        """Deliver ``message`` again and remove the quarantined entry (in one atomic step where the store
        can); the new inbox id, ``None`` when the quarantined entry was already gone."""
        ...

    async def delete_quarantined(self, quarantine_id: str) -> bool:
        """Remove one quarantined entry; False when it was not there (or the id cannot name one)."""
        ...

    async def claim(self, session_id: str, token: int, ceiling: Priority, limit: int, max_attempts: int) -> Claimed[R]:
        """Atomically against other claims, acknowledgements and takes: up to ``limit`` of the session's
        entries up to ``ceiling`` (every entry when ``LATER``) in collect order that are unclaimed or claimed
        under a token ``<= token``; of those, the ones handed out ``max_attempts`` times already are moved to
        the quarantine (reason :func:`handed_out` of their count), the others get ``token`` and one more
        hand-out recorded and are returned, still stored."""
        ...

    async def acknowledge(self, session_id: str, token: int, entry_ids: Sequence[str]) -> int:
        """Remove the named entries of the session that are claimed under exactly ``token``; the count
        removed (an id that cannot name an entry of this store removes nothing)."""
        ...

    async def move_to_quarantine(self, session_id: str, reasons: Sequence[tuple[str, str]]) -> list[str]:
        """Move the named entries of the session (stored, claimed or not) to the quarantine, each with its
        reason, atomically per entry; the ids moved."""
        ...

    async def sessions_with_entries(self, after: str | None, limit: int) -> list[str]:
        """Up to ``limit`` session ids ``> after`` (ascending) that have at least one stored entry."""
        ...


class _Decoded(Generic[R]):
    """The entries of one collect or peek, each decoded on its own, in the order given."""

    def __init__(self, decode: Callable[[R, str], InboundMessage | UnreadableEntry], session_id: str) -> None:
        self._decode = decode
        self._session_id = session_id
        self.messages: list[InboundMessage] = []
        self.unreadable: list[tuple[R, UnreadableEntry]] = []

    def add(self, raws: Sequence[R]) -> Sequence[tuple[R, UnreadableEntry]]:
        """Decode ``raws``; the unreadable ones among them, each with its report (a :data:`Triage`)."""
        bad: list[tuple[R, UnreadableEntry]] = []
        for raw in raws:
            decoded = self._decode(raw, self._session_id)
            if isinstance(decoded, UnreadableEntry):
                bad.append((raw, decoded))
            else:
                self.messages.append(decoded)
        self.unreadable += bad
        return bad

    def batch(self, in_order: bool = True) -> CollectedBatch:
        """The batch; ``in_order`` False: the messages sorted by priority (stable: FIFO within a tier)."""
        messages = self.messages if in_order else sorted(self.messages, key=lambda m: m.priority.ordinal)
        return CollectedBatch(messages=tuple(messages), unreadable=tuple(entry for _, entry in self.unreadable))


@exported_from("aimon_mongo.services")
@traced("inbox")
class AsyncInbox(Generic[E, R, K]):
    """:class:`~aimon_mongo.ports.AsyncSessionInbox` over one store's :class:`AsyncInboxDriver`."""

    def __init__(self, driver: AsyncInboxDriver[E, R, K]) -> None:
        self._driver = driver
        self.batch_limit: int | None = driver.batch_limit
        """The most entries one ``collect`` returns (``None``: no bound), as the driver declares."""

    __repr__ = composed_repr

    @property
    def driver(self) -> AsyncInboxDriver[E, R, K]:
        """The store primitives under this inbox (for driver-level tests)."""
        return self._driver

    async def deliver(self, message: InboundMessage) -> str:
        checked = require_message(message)
        encoded = self._driver.encode(checked)
        with self._driver.failures(SessionInboxError, f"inbox deliver to session {checked.session_id!r}"):
            (entry_id,) = await self._driver.append([(checked, encoded)])
        return entry_id

    async def deliver_many(self, messages: Sequence[InboundMessage]) -> list[str]:
        checked = require_messages(messages)
        if not checked:
            return []
        entries = [(message, self._driver.encode(message)) for message in checked]  # all before any I/O
        with self._driver.failures(SessionInboxError, delivery_action(checked)):
            return await self._driver.append(entries)

    async def collect(self, session_id: str, max_priority: Priority = Priority.LATER) -> CollectedBatch:
        sid = require_id(session_id, "session_id")
        ceiling = require_instance(max_priority, Priority, "max_priority")
        found = _Decoded(self._driver.decode, sid)
        with self._driver.failures(SessionInboxError, f"inbox collect of session {sid!r}"):
            taken = await self._driver.take(sid, ceiling, found.add)  # decoded only once removed
        if self._driver.quarantines_in_take:
            kept = bool(found.unreadable)
        else:
            kept = bool(found.add(taken)) and await self._quarantine(sid, found.unreadable)
        if kept:
            log.warning("moved %d unreadable inbox entries of session %s to quarantine", len(found.unreadable), sid)
        return found.batch(self._driver.takes_in_order)

    async def _quarantine(self, sid: str, entries: Sequence[tuple[R, UnreadableEntry]]) -> bool:
        """Best effort: the batch is already removed, so a failure is reported, never raised."""
        try:
            with self._driver.failures(SessionInboxError, f"inbox quarantine of session {sid!r}"):
                await self._driver.quarantine(sid, entries)
        except Exception as exc:
            ids = ", ".join(entry.id for _, entry in entries)
            log.error("unreadable inbox entries %s of session %s could not be quarantined: %s", ids, sid, exc)
            return False
        return True

    async def peek(self, session_id: str, limit: int = 64) -> CollectedBatch:
        sid = require_id(session_id, "session_id")
        count = require_limit(limit)
        with self._driver.failures(SessionInboxError, f"inbox peek of session {sid!r}"):
            raws = await self._driver.peek(sid, count)
        found = _Decoded(self._driver.decode, sid)
        found.add(raws)
        return found.batch()

    async def is_empty(self, session_id: str) -> bool:
        sid = require_id(session_id, "session_id")
        with self._driver.failures(SessionInboxError, f"inbox emptiness check of session {sid!r}"):
            return await self._driver.is_empty(sid)

    async def purge(self, session_id: str) -> None:
        sid = require_id(session_id, "session_id")
        with self._driver.failures(SessionInboxError, f"inbox purge of session {sid!r}"):
            await self._driver.purge(sid)

    async def list_quarantined(self, session_id: str | None = None, limit: int = 100) -> list[QuarantinedEntry]:
        sid = optional_id(session_id, "session_id")
        count = require_limit(limit)
        scope = "every session" if sid is None else f"session {sid!r}"
        with self._driver.failures(SessionInboxError, f"listing of the quarantined inbox entries of {scope}"):
            return await self._driver.list_quarantined(sid, count)

    async def replay_quarantined(self, quarantine_id: str, raw: Any = None) -> str:
        qid = require_id(quarantine_id, "quarantine_id")
        action = f"replay of quarantined inbox entry {qid!r}"
        with self._driver.failures(SessionInboxError, action):
            kept = await self._driver.find_quarantined(qid)
        if kept is None:
            raise SessionInboxError(f"no quarantined entry {qid!r}")
        message = require_message(self._driver.decode_replay(kept, raw, qid))  # CodecError: the entry stays
        encoded = self._driver.encode(message)
        with self._driver.failures(SessionInboxError, action):
            new_id = await self._driver.restore(qid, message, encoded)
        if new_id is None:
            raise SessionInboxError(f"no quarantined entry {qid!r}")
        log.info("quarantined inbox entry %s of session %s replayed as %s", qid, message.session_id, new_id)
        return new_id

    async def delete_quarantined(self, quarantine_id: str) -> bool:
        qid = require_id(quarantine_id, "quarantine_id")
        with self._driver.failures(SessionInboxError, f"delete of quarantined inbox entry {qid!r}"):
            return await self._driver.delete_quarantined(qid)

    async def claim(
        self,
        session_id: str,
        fencing_token: int,
        *,
        max_priority: Priority = Priority.LATER,
        max_attempts: int = 5,
    ) -> ClaimedBatch:
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        ceiling = require_instance(max_priority, Priority, "max_priority")
        most = require_limit(max_attempts, "max_attempts")
        with self._driver.failures(SessionInboxError, f"inbox claim of session {sid!r} under token {token}"):
            claimed = await self._driver.claim(sid, token, ceiling, CLAIM_LIMIT, most)
        found = _Decoded(self._driver.decode, sid)
        counts: dict[str, int] = {}
        for raw, count in claimed.handed:
            bad = found.add([raw])
            if not bad:  # Redis stream ids are unique per tier only: two entries may share one (keep the higher)
                entry_id = found.messages[-1].id or ""  # a decoded entry always carries its store id
                counts[entry_id] = max(count, counts.get(entry_id, 0))
        if claimed.exhausted:
            log.warning(
                "moved %d inbox entries of session %s handed out at least %d times to quarantine",
                len(claimed.exhausted),
                sid,
                most,
            )
        if found.unreadable:
            reasons = [(entry.id, entry.reason) for _, entry in found.unreadable]
            if await self._move(sid, reasons):
                log.warning("moved %d unreadable inbox entries of session %s to quarantine", len(reasons), sid)
        batch = found.batch(self._driver.takes_in_order)
        return ClaimedBatch(
            messages=list(batch.messages),
            attempts=counts,
            unreadable=list(batch.unreadable),
            quarantined=list(claimed.exhausted),
            fencing_token=token,
        )

    async def _move(self, sid: str, reasons: Sequence[tuple[str, str]]) -> bool:
        """Best effort: an unreadable claimed entry that could not be moved stays claimed (handed out again
        by a later claim, then quarantined), so a failure is reported, never raised."""
        try:
            with self._driver.failures(SessionInboxError, f"inbox quarantine of session {sid!r}"):
                await self._driver.move_to_quarantine(sid, reasons)
        except Exception as exc:
            ids = ", ".join(entry_id for entry_id, _ in reasons)
            log.error("unreadable inbox entries %s of session %s could not be quarantined: %s", ids, sid, exc)
            return False
        return True

    async def acknowledge(self, session_id: str, fencing_token: int, entry_ids: Sequence[str]) -> int:
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        ids = _entry_ids(entry_ids)
        if not ids:
            return 0
        with self._driver.failures(SessionInboxError, f"inbox acknowledge of session {sid!r} under token {token}"):
            return await self._driver.acknowledge(sid, token, ids)

    async def quarantine_entries(self, session_id: str, entry_ids: Sequence[str], reason: str) -> int:
        sid = require_id(session_id, "session_id")
        ids = _entry_ids(entry_ids)
        why = require_id(reason, "reason")
        if not ids:
            return 0
        with self._driver.failures(SessionInboxError, f"inbox quarantine of entries of session {sid!r}"):
            moved = await self._driver.move_to_quarantine(sid, [(entry_id, why) for entry_id in ids])
        if moved:
            log.warning("moved %d inbox entries of session %s to quarantine on request", len(moved), sid)
        return len(moved)

    async def sessions_with_entries(self, after: str | None = None, limit: int = 256) -> SessionPage:
        cursor = optional_id(after, "after")
        count = require_limit(limit)
        with self._driver.failures(SessionInboxError, "listing of the sessions with inbox entries"):
            found = await self._driver.sessions_with_entries(cursor, count)
        ids = sorted(found)[:count]
        return SessionPage(session_ids=ids, next_after=ids[-1] if len(ids) == count else None)


def _entry_ids(entry_ids: object) -> list[str]:
    """The ids of an ``acknowledge`` or ``quarantine_entries`` call, checked, duplicates dropped (order kept)."""
    if isinstance(entry_ids, (str, bytes)) or not isinstance(entry_ids, Sequence):
        raise InvalidArgumentError(
            f"entry_ids must be a sequence of entry id strings, got {type(entry_ids).__name__}: {entry_ids!r:.60}"
        )
    return list(dict.fromkeys(require_id(entry_id, f"entry_ids[{i}]") for i, entry_id in enumerate(entry_ids)))
