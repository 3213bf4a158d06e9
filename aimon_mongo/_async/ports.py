"""The contracts every session-state backend implements (async flavour; the sync twin is generated).

One Protocol per capability. The conformance suite (``tests/conformance/``) is the executable
definition of these contracts: a behaviour that is not in it does not exist. Common rules:

* Session ids, holder ids, keys and task ids must be non-empty ``str``; anything else (a dict such as
  ``{"$ne": None}``, bytes, ``None``) raises :class:`~aimon_mongo.errors.InvalidArgumentError` (a
  ``ValueError``) naming the argument before any query is sent.
* Ordering and expiry use the store's clock wherever the store has one (``$$NOW``, ``now()``,
  Redis ``TIME``/PX); the injected ``clock`` stamps what the caller sees (e.g. ``created_at``).
* A backend failure raises the capability's error family; an unreachable store raises
  :class:`~aimon_mongo.errors.BackendUnavailable`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol, Self, runtime_checkable

from pydantic import JsonValue

from aimon_mongo.exported import exported_from
from aimon_mongo.model import (
    BackgroundTask,
    ClaimedBatch,
    CollectedBatch,
    IdempotencyEntry,
    InboundMessage,
    Lease,
    Priority,
    PutResult,
    SessionPage,
    SessionSignal,
    TaskQuery,
    TaskState,
    TurnResult,
)
from aimon_mongo.model.record import (
    LogSegment,
    QuarantinedEntry,
    SegmentInfo,
    SegmentScanPage,
    SessionRecord,
    SessionTotals,
)

SignalHandler = Callable[[SessionSignal], Awaitable[None]]  # sync: SignalHandler = Callable[[SessionSignal], None]


@exported_from("aimon_mongo.ports")
@runtime_checkable
class AsyncSessionInbox(Protocol):
    """Cross-node mailbox per session, priority then FIFO by store time: at-most-once with :meth:`collect`,
    at-least-once with :meth:`claim` and :meth:`acknowledge` under a lease's fencing token.

    ``batch_limit`` declares the most entries one ``collect`` returns (``None``: no bound).
    """

    batch_limit: int | None

    async def deliver(self, message: InboundMessage) -> str:
        """Append ``message`` to its session's inbox; returns the store-assigned id (``message.id`` is
        ignored). No de-duplication happens here (that is the idempotency store's job)."""
        ...

    async def deliver_many(self, messages: Sequence[InboundMessage]) -> list[str]:
        """Append every message (any mix of sessions) in one round trip where the backend allows it (MongoDB
        one bulk write, Redis one pipeline, PostgreSQL one statement); returns the store-assigned ids in the
        order of ``messages``. Within a session, entries of one priority are collected in the order of
        ``messages``, after everything delivered before the call. Every item is validated first, as by
        :meth:`deliver`: a bad one raises :class:`~aimon_mongo.errors.InvalidArgumentError` naming it
        (``messages[3]``) and nothing of the call is stored. An empty sequence stores nothing."""
        ...

    async def collect(self, session_id: str, max_priority: Priority = Priority.LATER) -> CollectedBatch:
        """Remove and return the session's entries with priority ordinal ``<= max_priority``, ordered by
        priority then delivery order, up to the backend's batch bound (MongoDB 64, Redis 1,000 per tier,
        PostgreSQL 1,024); larger backlogs drain over later calls. An entry that cannot be decoded is
        reported in ``unreadable`` (and quarantined), never raised."""
        ...

    async def peek(self, session_id: str, limit: int = 64) -> CollectedBatch:
        """The entries ``collect(session_id)`` would return next, without removing anything."""
        ...

    async def is_empty(self, session_id: str) -> bool:
        """True when the session has no entry at any priority."""
        ...

    async def purge(self, session_id: str) -> None:
        """Delete every entry of the session."""
        ...

    async def list_quarantined(self, session_id: str | None = None, limit: int = 100) -> list[QuarantinedEntry]:
        """Quarantined entries (oldest first), of one session or of all."""
        ...

    async def replay_quarantined(self, quarantine_id: str, raw: Any = None) -> str:
        """Decode the quarantined entry (or ``raw``, its repaired form, in the shape of
        :attr:`QuarantinedEntry.raw`: a document for MongoDB, the envelope text for Redis/PostgreSQL),
        deliver it again and remove it from quarantine; returns the new inbox id. Refuses with
        ``CodecError`` (and keeps the entry) if it still cannot be decoded; an unknown id raises
        :class:`~aimon_mongo.errors.SessionInboxError`."""
        ...

    async def delete_quarantined(self, quarantine_id: str) -> bool:
        """Remove one quarantined entry; False if it was not there."""
        ...

    async def claim(
        self,
        session_id: str,
        fencing_token: int,
        *,
        max_priority: Priority = Priority.LATER,
        max_attempts: int = 5,
    ) -> ClaimedBatch:
        """Hand out, under the holder's ``fencing_token``, up to 64 of the session's entries with priority
        ordinal ``<= max_priority``, ordered by priority then delivery order, that are unclaimed, claimed
        under a lower token (their holder was superseded) or claimed under this same token (the holder
        claims again after a failed turn). Entries claimed under a higher token are skipped. Each hand-out
        records the token on the entry and counts one more attempt (``ClaimedBatch.attempts``, 1 = first
        hand-out); claimed entries stay stored until :meth:`acknowledge`. An entry already handed out
        ``max_attempts`` times is not handed out but moved to the quarantine with the reason "handed out N
        times" (its id in ``ClaimedBatch.quarantined``); an entry that cannot be decoded is reported in
        ``unreadable`` and quarantined, as by :meth:`collect`."""
        ...

    async def acknowledge(self, session_id: str, fencing_token: int, entry_ids: Sequence[str]) -> int:
        """Remove the named entries where they are still claimed under exactly ``fencing_token``; returns the
        count removed (an acknowledgement under a superseded token removes nothing)."""
        ...

    async def sessions_with_entries(self, after: str | None = None, limit: int = 256) -> SessionPage:
        """One page of the session ids, ascending, ``> after``, that have waiting or claimed entries: a
        store-wide listing for adoption scans (a periodic scatter on a sharded cluster, never a hot path)."""
        ...

    async def quarantine_entries(self, session_id: str, entry_ids: Sequence[str], reason: str) -> int:
        """Move the named, readable entries of the session (claimed or not) to the quarantine with
        ``reason`` (the poison path); returns the count moved. They replay with :meth:`replay_quarantined`."""
        ...


@exported_from("aimon_mongo.ports")
@runtime_checkable
class AsyncSessionLeaseStore(Protocol):
    """Holder election with fencing tokens that strictly increase per session, across release and expiry.

    ``resurrects_lapsed`` declares whether ``extend`` revives a lapsed lease nobody has taken over yet
    (every backend does; Redis keeps the token in its fence counter to allow it).
    ``holder_id_forbidden_chars`` lists characters a holder id may not contain (Redis: ``":"``, because its
    lock value is ``<holder>:<token>``); such ids are refused with ``InvalidArgumentError``.
    """

    resurrects_lapsed: bool
    holder_id_forbidden_chars: str

    async def try_acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Lease | None:
        """Take the lease if nobody else holds a live one (a holder re-acquiring its own live lease gets a new,
        higher token, fencing its older process; the session's write fence is raised to it at once); ``None``
        when another holder does. ``ttl`` must be positive."""
        ...

    async def extend(self, lease: Lease, ttl: timedelta) -> bool:
        """Push the expiry of ``lease`` to store-now + ``ttl`` if holder and token still match (a token CAS,
        not a liveness check). False when a newer lease exists."""
        ...

    async def release(self, lease: Lease) -> None:
        """Give the lease up if holder and token still match. Best effort: backend errors are logged at
        WARN, never raised. The token counter survives."""
        ...

    async def find_holder(self, session_id: str) -> Lease | None:
        """The live lease of the session, or ``None``."""
        ...


@exported_from("aimon_mongo.ports")
@runtime_checkable
class AsyncSubscription(Protocol):
    """Handle of one ``subscribe`` call."""

    async def unsubscribe(self) -> None:
        """Stop delivering to this handler. Idempotent."""
        ...


@exported_from("aimon_mongo.ports")
@runtime_checkable
class AsyncSessionSignalBus(Protocol):
    """Cross-node pub/sub of :class:`SessionSignal`. A node never receives its own signals.

    ``delivers_missed_signals`` declares whether signals published while a subscriber's node was
    disconnected are delivered after it reconnects (false for Redis pub/sub).
    """

    node_id: str
    delivers_missed_signals: bool

    async def publish(self, signal: SessionSignal) -> None:
        """Publish one signal (at-least-once to live subscribers of other nodes)."""
        ...

    async def publish_all(self, signals: Sequence[SessionSignal]) -> None:
        """Publish several signals; order is kept within one session and kind."""
        ...

    async def subscribe(self, session_id: str, handler: SignalHandler) -> AsyncSubscription:
        """Call ``handler`` for every signal of the session published by another node. A handler that
        raises is logged and keeps receiving."""
        ...

    async def close(self) -> None:
        """Stop every watcher; publishing afterwards raises. Idempotent."""
        ...


@exported_from("aimon_mongo.ports")
@runtime_checkable
class AsyncIdempotencyStore(Protocol):
    """Client-key de-duplication and holder-loss detection.

    ``IN_FLIGHT`` + holder: a turn runs there now (``find_stale_in_flight`` may report it);
    ``IN_FLIGHT`` without holder: reserved, waiting in an inbox (never stale); ``DONE``: result cached for
    the done TTL (24 h by default).
    """

    async def put_if_absent(self, entry: IdempotencyEntry, ttl: timedelta) -> PutResult:
        """Insert ``entry`` expiring after ``ttl`` unless a live entry has the key (then ``EXISTING`` with
        it)."""
        ...

    async def mark_done(self, key: str, result: TurnResult) -> None:
        """Record the result: ``DONE``, holder cleared, expiry = now + done TTL. Missing key: WARN only."""
        ...

    async def touch(self, key: str, holder_id: str) -> bool:
        """Refresh ``last_touched_at`` and slide the entry's own TTL span, if it is ``IN_FLIGHT`` with
        ``holder_id``."""
        ...

    async def release_holder(self, key: str, expected_holder: str, ttl: timedelta) -> bool:
        """``IN_FLIGHT`` + holder match → clear the holder (reserved, waiting) and expire after ``ttl``."""
        ...

    async def acquire_holder(self, key: str, holder_id: str, ttl: timedelta) -> bool:
        """``IN_FLIGHT`` without holder → take it for ``holder_id`` and expire after ``ttl``."""
        ...

    async def discard_reservation(self, key: str) -> bool:
        """Delete an ``IN_FLIGHT`` entry that has no holder."""
        ...

    async def compare_and_reset(self, key: str, expected_holder: str) -> bool:
        """Delete the entry if it is ``IN_FLIGHT`` with ``expected_holder`` (exactly one caller wins)."""
        ...

    async def find_stale_in_flight(self, cutoff: datetime, limit: int = 256) -> list[IdempotencyEntry]:
        """``IN_FLIGHT`` entries with a holder whose ``last_touched_at`` is before ``cutoff``."""
        ...

    async def find(self, key: str) -> IdempotencyEntry | None:
        """The live entry of ``key``, or ``None``."""
        ...


@exported_from("aimon_mongo.ports")
@runtime_checkable
class AsyncBackgroundTaskStore(Protocol):
    """Background task records; a task never leaves a terminal state (atomically enforced)."""

    async def put(self, task: BackgroundTask) -> None:
        """Create or fully overwrite the task."""
        ...

    async def find(self, task_id: str) -> BackgroundTask | None: ...

    async def remove(self, task_id: str) -> bool: ...

    async def transition(self, task_id: str, to: TaskState) -> BackgroundTask | None:
        """Move a non-terminal task to ``to`` (a terminal ``to`` also sets ``end_time``); ``None`` when the
        task is unknown or already terminal."""
        ...

    async def heartbeat(self, task_id: str, at: datetime) -> BackgroundTask | None:
        """Set ``last_heartbeat`` of a non-terminal task; ``None`` when unknown or terminal."""
        ...

    async def list(self, query: TaskQuery | None = None) -> list[BackgroundTask]:
        """Tasks matching ``query`` (all when ``None``), served by indexes where the store has them."""
        ...


@exported_from("aimon_mongo.ports")
@runtime_checkable
class AsyncSessionRecordStore(Protocol):
    """Session records, written by partial, atomic, fenced writes (no whole-record write exists).

    Every write takes the writer's ``fencing_token`` (from its :class:`Lease`); the store keeps the highest
    token it accepted per session and refuses a lower one with
    :class:`~aimon_mongo.errors.StaleFencingTokenError`, atomically with the write. The record store and the
    log-segment store of one backend share that per-session fence: once a write with token ``T`` was
    accepted by either, writes below ``T`` are refused by both. An equal token is accepted (one holder
    writes many times). Reads are not fenced; deleting a record keeps its fence.
    """

    async def merge_transcript(self, session_id: str, transcript: str, fencing_token: int) -> None:
        """Write the encoded transcript, preserving the side fields; creates the record if missing."""
        ...

    async def provision(self, session_id: str, agent_ref: str | None, fencing_token: int) -> SessionRecord:
        """Ensure the record exists and, when it has no agent binding yet, bind ``agent_ref``; an existing
        binding is never overwritten. Returns the record as it stands afterwards."""
        ...

    async def set_totals_and_budget_override(
        self,
        session_id: str,
        totals: SessionTotals,
        budget_override: dict[str, JsonValue] | None,
        fencing_token: int,
    ) -> None:
        """Write both fields absolutely (``None`` clears the override). No-op when no record exists."""
        ...

    async def increment_compaction_failure_count(self, session_id: str, fencing_token: int) -> int:
        """Atomically add one and return the new count; 0 (no-op) when no record exists."""
        ...

    async def reset_compaction_failure_count(self, session_id: str, fencing_token: int) -> None:
        """Set the count back to 0. No-op when no record exists."""
        ...

    async def load(self, session_id: str) -> SessionRecord | None: ...

    async def load_many(self, session_ids: Sequence[str]) -> dict[str, SessionRecord]:
        """The records of ``session_ids`` that exist, by session id, read in one request."""
        ...

    async def exists(self, session_id: str) -> bool: ...

    async def list_session_ids(self) -> list[str]: ...

    async def delete(self, session_id: str, fencing_token: int) -> None:
        """Delete the record (no-op when missing)."""
        ...


@exported_from("aimon_mongo.ports")
@runtime_checkable
class AsyncSessionLogSegmentStore(Protocol):
    """Sealed session-log segments. Ids are new per ``put`` (a duplicate is refused, never overwritten);
    ``get``/``list``/``delete`` see only the given session's segments. Writes are fenced like records."""

    async def put(self, segment: LogSegment, fencing_token: int) -> None: ...

    async def get(self, session_id: str, segment_id: str) -> LogSegment | None: ...

    async def get_many(self, session_id: str, segment_ids: Sequence[str]) -> list[LogSegment]:
        """The session's segments among ``segment_ids`` in the order asked for, missing ones left out, read
        in one request."""
        ...

    async def list_page(self, session_id: str, after: str | None, limit: int) -> list[SegmentInfo]:
        """The session's segments whose id is above ``after`` (all when ``None``), in code-point order of
        the id, at most ``limit``; one request."""
        ...

    async def list(self, session_id: str) -> list[SegmentInfo]: ...

    async def delete(self, session_id: str, segment_id: str, fencing_token: int) -> None: ...

    async def delete_all(self, session_id: str, fencing_token: int) -> None: ...

    async def scan_sessions(self, created_before: datetime, cursor: str | None, limit: int) -> SegmentScanPage:
        """Sessions having a segment created before ``created_before``, a page at a time."""
        ...


@exported_from("aimon_mongo.ports")
@runtime_checkable
class AsyncSessionBackends(Protocol):
    """All seven stores of one backend, built from one connection and one ``node_id``.

    ``close()`` stops what the bundle started (signal watchers, owned pools); a borrowed client or
    database stays open.
    """

    node_id: str

    @property
    def inbox(self) -> AsyncSessionInbox: ...

    @property
    def leases(self) -> AsyncSessionLeaseStore: ...

    @property
    def signals(self) -> AsyncSessionSignalBus: ...

    @property
    def idempotency(self) -> AsyncIdempotencyStore: ...

    @property
    def tasks(self) -> AsyncBackgroundTaskStore: ...

    @property
    def records(self) -> AsyncSessionRecordStore: ...

    @property
    def segments(self) -> AsyncSessionLogSegmentStore: ...

    async def close(self) -> None: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc: object) -> None:
        """Close the bundle (``async with Backends(...) as node:``)."""
        ...
