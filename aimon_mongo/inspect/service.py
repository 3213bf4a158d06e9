"""The inspection service: read-only operator views over any backend, written once over a driver per backend.

The service holds the policy — argument checks, how waiting entries are counted per session and priority,
how a page of sessions is assembled, the shapes every front end shows — and a driver (one per backend, in
this package) answers the store's own questions: which sessions have something stored, how many entries
wait per priority, the lease records on the server's clock, pages of quarantined entries and task records.
Peeking at a session's waiting entries goes through the bundle's inbox (every backend has it).

Nothing here writes: replay and delete stay with the inbox store. The console and the ``aimon-mongo``
command read through :class:`Inspector`; :func:`aimon_mongo.inspect.inspector_for` builds one for a bundle.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Literal, Protocol, TypedDict

from aimon_mongo.model import BackgroundTask, CollectedBatch, Priority, TaskQuery
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.validate import require_id, require_limit

PRIORITY_NAMES = {p.ordinal: p.name for p in Priority}
"""Stored priority ordinal -> name (an unknown ordinal counts as ``other``)."""

LeaseStateName = Literal["held", "expired", "released"]


class LeaseState(TypedDict):
    """A session's lease record, its state decided on the server's clock: ``held`` (a holder whose lease
    runs), ``expired`` (a holder whose lease ran out; MongoDB and PostgreSQL keep such a record, Redis lets
    the key expire), ``released`` (no holder; the fencing counter remains). ``fencing_token`` is the last
    token issued: it only ever grows. ``acquired_at`` is ``None`` where the store does not keep it (Redis)."""

    session_id: str
    state: LeaseStateName
    holder_id: str | None
    fencing_token: int | None
    acquired_at: datetime | None
    expires_at: datetime | None


class InboxStats(TypedDict):
    """A session's waiting entries per priority (``NOW``, ``NEXT``, ``LATER``, ``other`` for an unknown
    stored priority), their total, the oldest delivery, and the session's quarantined entries."""

    session_id: str
    NOW: int
    NEXT: int
    LATER: int
    other: int
    total: int
    oldest: datetime | None
    quarantined: int
    claimed: int


class ClaimedEntry(TypedDict):
    """A stored entry a holder claimed (acknowledged delivery) and has not acknowledged yet: its session,
    its entry id, the fencing token of the claim that last handed it out, how many claims handed it out
    (``attempts``) and when the last one did (server time; ``None`` where the store does not keep it:
    Redis). No payload: an operator reads the entry through ``peek``."""

    session_id: str
    entry_id: str
    claim_token: int
    attempts: int
    claimed_at: datetime | None


class SessionRow(InboxStats):
    """A row of the session list: the inbox figures and the lease (``None``: never leased)."""

    lease: LeaseState | None


class SessionDetail(SessionRow):
    """One session: its row, its claimed entries (oldest claim first) and the first waiting entries in
    collect order (claimed entries are still stored, so they are among them)."""

    claimed_entries: list[ClaimedEntry]
    waiting: CollectedBatch


Waiting = tuple[str, Any, int, datetime | None]
"""What a driver reports of waiting entries: ``(session id, stored priority ordinal, count, oldest
delivery)``, one tuple per session and priority (a session may appear once per priority)."""


class InspectionDriver(Protocol):
    """The store's answers to the inspection service (one implementation per backend)."""

    backend: str
    """The backend's name as shown to an operator (``MongoDB``, ``Redis``, ``PostgreSQL``)."""

    def server_time(self) -> datetime | None:
        """The store's clock (which decides lease expiry), UTC; ``None`` when it cannot be read."""
        ...

    def sessions_after(self, after: str, limit: int) -> list[str]:
        """Up to ``limit`` session ids above ``after``, in order, that have a waiting or quarantined entry
        or a lease record."""
        ...

    def waiting(self, sessions: Sequence[str] | None) -> Iterable[Waiting]:
        """Waiting entries of ``sessions`` (or of every session) grouped by session and priority."""
        ...

    def quarantined(self, sessions: Sequence[str] | None) -> Iterable[tuple[str, int]]:
        """``(session id, quarantined entries)`` of ``sessions`` (or every session with any)."""
        ...

    def claimed(self, sessions: Sequence[str] | None) -> Iterable[ClaimedEntry]:
        """The claimed, not yet acknowledged entries of ``sessions`` (or of every session)."""
        ...

    def leases(self, sessions: Sequence[str] | None) -> list[LeaseState]:
        """The lease records of ``sessions`` (or all), sorted by session id."""
        ...

    def quarantine_page(
        self, session_id: str | None, after: str | None, limit: int
    ) -> tuple[list[QuarantinedEntry], str | None]:
        """Quarantined entries oldest first (of one session or all) after the entry ``after``: at most
        ``limit`` and the cursor of the next page (``None`` on the last)."""
        ...

    def find_quarantined(self, quarantine_id: str) -> QuarantinedEntry | None:
        """One quarantined entry with its raw stored form, or ``None`` (also for an id of another form)."""
        ...

    def tasks_page(self, query: TaskQuery | None, offset: int, limit: int) -> tuple[list[BackgroundTask], bool]:
        """Task records matching ``query`` by task id, ``limit`` from ``offset``; and whether more follow."""
        ...

    def close(self) -> None:
        """Release what the driver opened itself (most borrow the bundle's connection)."""
        ...


class _Peek(Protocol):
    def peek(self, session_id: str, limit: int = ...) -> CollectedBatch: ...


def empty_stats(session_id: str) -> InboxStats:
    """The figures of a session with nothing waiting and nothing quarantined."""
    return InboxStats(
        session_id=session_id, NOW=0, NEXT=0, LATER=0, other=0, total=0, oldest=None, quarantined=0, claimed=0
    )


class Inspector:
    """Read-only operator views over one backend: ``driver`` answers the store's questions, ``inbox`` (the
    bundle's) peeks at waiting entries."""

    def __init__(self, driver: InspectionDriver, inbox: _Peek) -> None:
        self.driver = driver
        self._inbox = inbox

    @property
    def backend(self) -> str:
        """The backend's name (``MongoDB``, ``Redis``, ``PostgreSQL``)."""
        return self.driver.backend

    def server_time(self) -> datetime | None:
        """The store's clock, which decides lease expiry."""
        return self.driver.server_time()

    def inbox_stats(self, sessions: Sequence[str] | None = None) -> list[InboxStats]:
        """Per session (of ``sessions``, or all): entries per priority, total, oldest delivery, quarantined
        entries, claimed entries (counted in ``total`` too: they stay stored until acknowledged); sorted by
        session id. Only sessions with a waiting or quarantined entry appear."""
        scope = _scope(sessions)
        rows: dict[str, InboxStats] = {}

        def row(session: object) -> InboxStats:
            key = str(session)
            return rows.setdefault(key, empty_stats(key))

        for session, ordinal, count, oldest in self.driver.waiting(scope):
            entry = row(session)
            name = PRIORITY_NAMES.get(ordinal, "other")
            entry[name] += count  # type: ignore[literal-required]
            entry["total"] += count
            if isinstance(oldest, datetime) and (entry["oldest"] is None or oldest < entry["oldest"]):
                entry["oldest"] = oldest
        for session, count in self.driver.quarantined(scope):
            if count:
                row(session)["quarantined"] += count
        for claimed in self.driver.claimed(scope):
            row(claimed["session_id"])["claimed"] += 1
        return [rows[key] for key in sorted(rows)]

    def claimed_entries(self, sessions: Sequence[str] | None = None) -> list[ClaimedEntry]:
        """The claimed, not yet acknowledged entries (of ``sessions``, or all): by session, then oldest
        claim first (then entry id). Their holder is the session's lease holder (:meth:`lease_states`)."""
        found = list(self.driver.claimed(_scope(sessions)))
        return sorted(found, key=_claim_order)

    def lease_states(self, sessions: Sequence[str] | None = None) -> list[LeaseState]:
        """The lease records (of ``sessions``, or all) sorted by session id, each with its state on the
        server's clock; a session never leased has none."""
        return self.driver.leases(_scope(sessions))

    def lease_state(self, session_id: str) -> LeaseState | None:
        """One session's lease record, or ``None`` when it was never leased."""
        found = self.lease_states([session_id])
        return found[0] if found else None

    def session_page(self, after: str = "", limit: int = 50) -> tuple[list[SessionRow], str | None]:
        """Sessions whose id sorts after ``after`` that have a waiting entry, a quarantined entry or a lease
        record: at most ``limit`` rows, and the cursor of the next page (``None`` on the last)."""
        if not isinstance(after, str):
            raise TypeError(f"after must be a str, got {type(after).__name__}")
        limit = require_limit(limit)
        ordered = self.driver.sessions_after(after, limit + 1)
        page, more = ordered[:limit], len(ordered) > limit
        stats = {row["session_id"]: row for row in self.inbox_stats(page)} if page else {}
        leases = {row["session_id"]: row for row in self.lease_states(page)} if page else {}
        rows = [SessionRow(**(stats.get(s) or empty_stats(s)), lease=leases.get(s)) for s in page]
        return rows, (page[-1] if more and page else None)

    def session(self, session_id: str, waiting: int = 100) -> SessionDetail:
        """One session's row (zeros and no lease when nothing is stored for it) and its first ``waiting``
        entries in collect order."""
        sid = require_id(session_id, "session_id")
        stats = self.inbox_stats([sid])
        row = stats[0] if stats else empty_stats(sid)
        return SessionDetail(
            **row,
            lease=self.lease_state(sid),
            claimed_entries=self.claimed_entries([sid]),
            waiting=self.peek(sid, waiting),
        )

    def peek(self, session_id: str, limit: int = 64) -> CollectedBatch:
        """A session's waiting entries in collect order, without consuming them (the bundle's inbox)."""
        return self._inbox.peek(session_id, limit)

    def quarantine_page(
        self, session_id: str | None = None, after: str | None = None, limit: int = 100
    ) -> tuple[list[QuarantinedEntry], str | None]:
        """Quarantined entries oldest first, of one session or of all, after the entry ``after``."""
        sid = None if session_id is None else require_id(session_id, "session_id")
        return self.driver.quarantine_page(sid, after or None, require_limit(limit))

    def find_quarantined(self, quarantine_id: str) -> QuarantinedEntry | None:
        """One quarantined entry with its raw stored form, or ``None``."""
        if not isinstance(quarantine_id, str) or not quarantine_id:
            return None
        return self.driver.find_quarantined(quarantine_id)

    def tasks_page(
        self, query: TaskQuery | None = None, offset: int = 0, limit: int = 50
    ) -> tuple[list[BackgroundTask], bool]:
        """Task records matching ``query`` by task id, ``limit`` from ``offset``; and whether more follow."""
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise ValueError(f"offset must be an int >= 0, got {offset!r}")
        return self.driver.tasks_page(query, offset, require_limit(limit))

    def close(self) -> None:
        """Close what the driver opened (the bundle stays the caller's)."""
        self.driver.close()


def page_after(
    entries: list[QuarantinedEntry], after: str | None, limit: int
) -> tuple[list[QuarantinedEntry], str | None]:
    """The ``limit`` entries of an ordered list that follow the one with id ``after`` (none when no entry
    has that id), and the cursor of the next page."""
    if after is not None:
        ids = [entry.id for entry in entries]
        if after not in ids:
            return [], None
        entries = entries[ids.index(after) + 1 :]
    page = entries[:limit]
    return page, (page[-1].id if len(entries) > limit and page else None)


def listed_page(tasks: Sequence[BackgroundTask], offset: int, limit: int) -> tuple[list[BackgroundTask], bool]:
    """``limit`` tasks from ``offset`` of ``tasks`` ordered by task id, and whether more follow."""
    ordered = sorted(tasks, key=lambda task: task.task_id)
    return ordered[offset : offset + limit], len(ordered) > offset + limit


def _claim_order(entry: ClaimedEntry) -> tuple[str, float, str]:
    at = entry["claimed_at"]
    return entry["session_id"], (at.timestamp() if at is not None else 0.0), entry["entry_id"].rjust(40, "0")


def _scope(sessions: Sequence[str] | None) -> list[str] | None:
    return None if sessions is None else [require_id(s, "session_id") for s in sessions]
