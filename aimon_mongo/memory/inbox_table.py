"""In-memory inbox: per-session entries ordered by (priority, delivery sequence), with the claim state of
acknowledged delivery on each entry and a quarantine for entries moved out (poison or handed out too
often)."""

from __future__ import annotations

import itertools
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from aimon_mongo.clock import Clock
from aimon_mongo.model import InboundMessage, Priority
from aimon_mongo.model.record import QuarantinedEntry

Reason = Callable[[int], str]
"""The quarantine reason of an entry handed out the given number of times."""


@dataclass(slots=True)
class _Entry:
    priority: int
    seq: int
    entry_id: str
    message: InboundMessage
    claim_token: int | None = None
    """The fencing token of the last claim that handed the entry out (``None``: never claimed)."""
    attempts: int = 0
    """How many times a claim handed the entry out."""


class InboxTable:
    """Entries are kept as objects, so nothing is ever unreadable; the quarantine keeps the message object."""

    def __init__(self, lock: threading.Lock, clock: Clock) -> None:
        self._lock = lock
        self._clock = clock
        self._sessions: dict[str, list[_Entry]] = {}
        self._seq = itertools.count(1)
        self._quarantine: dict[str, tuple[QuarantinedEntry, InboundMessage]] = {}

    def deliver_many(self, messages: list[InboundMessage]) -> list[str]:
        """Append every message under one lock, in order; the new ids in the same order."""
        entry_ids = [str(uuid.uuid4()) for _ in messages]
        with self._lock:
            self._append(messages, entry_ids)
        return entry_ids

    def _append(self, messages: list[InboundMessage], entry_ids: list[str]) -> None:
        for message, entry_id in zip(messages, entry_ids, strict=True):
            entry = _Entry(message.priority.ordinal, next(self._seq), entry_id, message.with_id(entry_id))
            self._sessions.setdefault(message.session_id, []).append(entry)

    def take(self, session_id: str, max_priority: Priority, limit: int | None, remove: bool) -> list[InboundMessage]:
        """The next entries up to ``max_priority`` in (priority, FIFO) order; ``remove`` deletes them."""
        with self._lock:
            chosen = self._next(session_id, max_priority, limit, None)
            if remove:
                self._remove(session_id, chosen)
        return [e.message for e in chosen]

    def _next(self, session_id: str, max_priority: Priority, limit: int | None, token: int | None) -> list[_Entry]:
        """Entries in (priority, FIFO) order; ``token``: only those unclaimed or claimed under a token <= it."""
        entries = self._sessions.get(session_id, [])
        eligible = (
            e
            for e in entries
            if e.priority <= max_priority.ordinal and (token is None or e.claim_token is None or e.claim_token <= token)
        )
        return sorted(eligible, key=lambda e: (e.priority, e.seq))[:limit]

    def _remove(self, session_id: str, chosen: list[_Entry]) -> None:
        if not chosen:
            return
        taken = {id(e) for e in chosen}
        rest = [e for e in self._sessions.get(session_id, []) if id(e) not in taken]
        if rest:
            self._sessions[session_id] = rest
        else:
            self._sessions.pop(session_id, None)

    def claim(
        self, session_id: str, token: int, max_priority: Priority, limit: int, max_attempts: int, reason_of: Reason
    ) -> tuple[list[tuple[InboundMessage, int]], list[str]]:
        """Hand out (token recorded, attempt counted) or quarantine (handed out ``max_attempts`` times) the
        next ``limit`` eligible entries, under one lock."""
        with self._lock:
            chosen = self._next(session_id, max_priority, limit, token)
            exhausted = [e for e in chosen if e.attempts >= max_attempts]
            handed: list[tuple[InboundMessage, int]] = []
            for entry in chosen:
                if entry.attempts < max_attempts:
                    entry.claim_token = token
                    entry.attempts += 1
                    handed.append((entry.message, entry.attempts))
            self._move(session_id, [(e, reason_of(e.attempts)) for e in exhausted])
        return handed, [e.entry_id for e in exhausted]

    def acknowledge(self, session_id: str, token: int, entry_ids: list[str]) -> int:
        wanted = set(entry_ids)
        with self._lock:
            done = [e for e in self._sessions.get(session_id, []) if e.entry_id in wanted and e.claim_token == token]
            self._remove(session_id, done)
        return len(done)

    def quarantine(self, session_id: str, reasons: list[tuple[str, str]]) -> list[str]:
        """Move the named entries of the session to the quarantine, each with its reason; the ids moved."""
        why = dict(reasons)
        with self._lock:
            chosen = [e for e in self._sessions.get(session_id, []) if e.entry_id in why]
            self._move(session_id, [(e, why[e.entry_id]) for e in chosen])
        return [e.entry_id for e in chosen]

    def _move(self, session_id: str, entries: list[tuple[_Entry, str]]) -> None:
        if not entries:
            return
        at = self._clock()
        for entry, reason in entries:
            qid = str(uuid.uuid4())
            message = entry.message
            kept = QuarantinedEntry(
                id=qid, session_id=session_id, entry_id=entry.entry_id, error=reason, raw=message, quarantined_at=at
            )
            self._quarantine[qid] = (kept, message)
        self._remove(session_id, [entry for entry, _ in entries])

    def sessions_with_entries(self, after: str | None, limit: int) -> list[str]:
        with self._lock:
            found = sorted(sid for sid, entries in self._sessions.items() if entries and (after is None or sid > after))
        return found[:limit]

    def list_quarantined(self, session_id: str | None, limit: int) -> list[QuarantinedEntry]:
        with self._lock:
            kept = [entry for entry, _ in self._quarantine.values()]
        return [entry for entry in kept if session_id is None or entry.session_id == session_id][:limit]

    def find_quarantined(self, quarantine_id: str) -> InboundMessage | None:
        with self._lock:
            found = self._quarantine.get(quarantine_id)
        return None if found is None else found[1]

    def restore(self, quarantine_id: str, message: InboundMessage) -> str | None:
        """Drop the quarantined entry and deliver ``message`` again under one lock; ``None`` when it was gone."""
        entry_id = str(uuid.uuid4())
        with self._lock:
            if self._quarantine.pop(quarantine_id, None) is None:
                return None
            self._append([message], [entry_id])
        return entry_id

    def delete_quarantined(self, quarantine_id: str) -> bool:
        with self._lock:
            return self._quarantine.pop(quarantine_id, None) is not None

    def is_empty(self, session_id: str) -> bool:
        with self._lock:
            return not self._sessions.get(session_id)

    def purge(self, session_id: str) -> None:
        with self._lock:
            self._sessions.pop(session_id, None)
