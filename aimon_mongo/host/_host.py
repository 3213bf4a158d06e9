"""The session host: the holder loop, written once, over any bundle (:class:`AsyncSessionHost`).

One host runs on each node. Per session it holds, one task (a :class:`_SessionRunner`) owns the lease and
runs the turns one after another:

1. the lease is taken with ``leases.try_acquire`` (the session's next fencing token), and kept alive by a
   background extension every ``lease_ttl / 3``; an extension refused (a newer lease exists) or not
   confirmed before the lease would have lapsed marks the lease lost;
2. a batch is claimed under the token (``inbox.claim``: priority, then arrival order; entries claimed by an
   older token are handed out again with their attempt count; entries handed out ``max_attempts`` times are
   moved to the quarantine by the inbox);
3. the handler runs on a :class:`Turn`; a turn whose lease is lost is cancelled (its fenced writes would be
   refused anyway); a NOW message or an INTERRUPT signal arriving meanwhile sets ``turn.interrupted``;
4. a handler that returns acknowledges the batch under the token (``inbox.acknowledge``); one that raises
   leaves it claimed, so the next claim hands it out again (attempt + 1) after a short backoff;
5. at the next boundary an EVICT or YIELD signal, ``drain()``, or ``idle_release`` without entries ends the
   runner: the lease is released, and sessions that still have entries are announced on the host channel so
   another host adopts them at once.

Sessions without a live holder are adopted by a paged scan (``inbox.sessions_with_entries``) every
``scan_interval``, by a hint on the host channel, or by the host a message is submitted to. Nothing here
knows a backend: the host uses the bundle's port Protocols only.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, Self

from aimon_mongo._async.ports import AsyncSessionBackends, AsyncSubscription
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model import (
    CompletionReason,
    IdempotencyEntry,
    IdempotencyStatus,
    InboundMessage,
    Lease,
    Priority,
    SessionSignal,
    SignalKind,
    TurnResult,
)
from aimon_mongo.names import (
    HOST_PAYLOAD_ENTRY_ID,
    HOST_PAYLOAD_PRIORITY,
    HOST_PAYLOAD_SESSIONS,
    HOST_SIGNAL_SESSION,
)
from aimon_mongo.telemetry.capabilities import traced
from aimon_mongo.validate import require_id, require_instance, require_message

log = logging.getLogger(__name__)

TurnOutcome = Literal["acknowledged", "failed", "cancelled"]
"""How a turn ended: its batch acknowledged, its handler raised (the batch comes again), or its lease was
lost and the handler cancelled."""

Handler = Callable[["Turn"], Awaitable[None]]
"""What a host runs per turn: ``async def handle(turn: Turn) -> None``."""

SCAN_PAGE = 256
"""Sessions one ``sessions_with_entries`` page lists."""
CANCEL_GRACE = 5.0
"""Seconds a cancelled handler is given to end before the host stops waiting for it."""


@dataclass(eq=False)
class Turn:
    """One turn of one session, handed to the handler.

    ``messages`` are in priority, then arrival order, each with its inbox ``id``; ``attempt`` is how often
    the most handed-out entry of the batch has been handed out (1 = first time); ``fencing_token`` is the
    token of the lease the turn runs under (pass it to every fenced write: ``records``/``segments``).
    ``interrupted`` is set when a NOW message or an INTERRUPT signal arrives during the turn: finish early,
    the next turn gets the NOW message first.
    """

    session_id: str
    fencing_token: int
    attempt: int
    messages: Sequence[InboundMessage]
    interrupted: asyncio.Event
    lease: Lease
    """The lease the turn runs under (its ``expires_at`` is the one at acquisition; the host extends it)."""
    attempts: Mapping[str, int] = field(default_factory=dict)
    """Per entry id, how often it has been handed out."""
    backends: AsyncSessionBackends | None = None
    """The bundle of the host (its ``records`` and ``segments`` take ``fencing_token``)."""


def _seconds(value: timedelta, argument: str, *, allow_zero: bool = False) -> float:
    checked = require_instance(value, timedelta, argument)
    seconds = checked.total_seconds()
    if seconds < 0 or (seconds == 0 and not allow_zero):
        raise InvalidArgumentError(f"{argument} must be {'>= 0' if allow_zero else 'positive'}, got {checked!r}")
    return seconds


def input_hash(message: InboundMessage) -> str:
    """What a retried submit must repeat for its idempotency key: a digest of the message without its id and
    stamp (never the payload itself)."""
    text = message.model_dump_json(exclude={"id", "delivered_at"})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class AsyncSessionHost:
    """Runs every session it holds on this node, one turn at a time, and adopts sessions nobody holds.

    ``backends``: any async bundle (memory, MongoDB, Redis, PostgreSQL); one host per bundle (the signal bus
    never delivers a node's own signals, so two hosts sharing a node id would not wake each other).
    ``handler``: ``async def handle(turn: Turn) -> None``. ``lease_ttl``: the lease's time to live (extended
    every third of it). ``max_sessions``: the most sessions this host holds at once; 0 makes a pure client
    (``submit`` only, nothing adopted). ``idle_release``: a held session without entries for that long is
    released. ``max_attempts``: hand-outs of one entry before the inbox quarantines it. ``scan_interval``:
    how often the store is scanned for sessions without a holder (default ``lease_ttl``): a session whose
    holder died is adopted within ``lease_ttl + scan_interval``. ``retry_backoff``: the pause before a
    failed batch is claimed again. ``holder_id``: the lease holder id (default the bundle's ``node_id``).
    ``idempotency_ttl``: how long a submitted idempotency key is remembered.

    Use as ``async with AsyncSessionHost(...) as host:``; leaving the block drains (:meth:`drain`).
    """

    def __init__(
        self,
        backends: AsyncSessionBackends,
        *,
        handler: Handler,
        lease_ttl: timedelta = timedelta(seconds=30),
        max_sessions: int = 64,
        idle_release: timedelta = timedelta(seconds=30),
        max_attempts: int = 5,
        scan_interval: timedelta | None = None,
        retry_backoff: timedelta = timedelta(milliseconds=200),
        holder_id: str | None = None,
        idempotency_ttl: timedelta = timedelta(hours=24),
    ) -> None:
        if not callable(handler):
            raise InvalidArgumentError(f"handler must be callable, got {type(handler).__name__}")
        if not isinstance(max_sessions, int) or isinstance(max_sessions, bool) or max_sessions < 0:
            raise InvalidArgumentError(f"max_sessions must be an int >= 0, got {max_sessions!r}")
        if not isinstance(max_attempts, int) or isinstance(max_attempts, bool) or max_attempts < 1:
            raise InvalidArgumentError(f"max_attempts must be an int >= 1, got {max_attempts!r}")
        self.backends = backends
        self.handler = handler
        self.lease_ttl = lease_ttl
        self._ttl = _seconds(lease_ttl, "lease_ttl")
        self.max_sessions = max_sessions
        self._idle = _seconds(idle_release, "idle_release", allow_zero=True)
        self.max_attempts = max_attempts
        self._scan = _seconds(scan_interval if scan_interval is not None else lease_ttl, "scan_interval")
        self._backoff = _seconds(retry_backoff, "retry_backoff", allow_zero=True)
        self.holder_id = require_id(holder_id if holder_id is not None else backends.node_id, "holder_id")
        self._idem_ttl = idempotency_ttl
        _seconds(idempotency_ttl, "idempotency_ttl")
        self._runners: dict[str, _SessionRunner] = {}
        self._adopting: set[str] = set()
        self._cooldown: dict[str, float] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._scan_wake = asyncio.Event()
        self._scanner: asyncio.Task[None] | None = None
        self._channel: AsyncSubscription | None = None
        self._accepting = False
        self._started = False
        self._closed = False

    # --- life cycle -----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Subscribe to the host channel and start the adoption scan (nothing for a pure client)."""
        if self._started:
            return
        self._started = True
        if self.max_sessions == 0:
            return
        self._accepting = True
        self._channel = await self.backends.signals.subscribe(HOST_SIGNAL_SESSION, self._on_host_signal)
        self._scanner = asyncio.get_running_loop().create_task(self._scan_loop(), name=f"aimon-host-scan-{self}")

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.drain()

    async def drain(self) -> None:
        """Stop adopting; let every held session finish its turn (acknowledged), release its lease, and
        announce the sessions that still have entries with YIELD on the host channel so another host adopts
        them at once. Idempotent; ``submit`` keeps working (delivery only)."""
        if self._closed:
            return
        self._closed = True
        self._accepting = False
        held = list(self._runners.values())
        for runner in held:  # before any await: no runner starts another turn
            runner.request_stop("drain")
        if self._scanner is not None:
            self._scanner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._scanner
        if self._channel is not None:
            with contextlib.suppress(Exception):
                await self._channel.unsubscribe()
        runners = [runner.task for runner in held if runner.task is not None]
        if runners:
            await asyncio.gather(*runners, return_exceptions=True)
        if self._tasks:  # adoptions under way: each releases what it took once it sees the drain
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._announce([runner.session_id for runner in held if not runner.lost.is_set()])

    async def _announce(self, sessions: list[str]) -> None:
        """Tell the other hosts (YIELD on the host channel) which of ``sessions``, just released, still
        have entries, so one of them adopts each at once."""
        waiting: list[str] = []
        try:
            for session_id in sessions:
                if not await self.backends.inbox.is_empty(session_id):
                    waiting.append(session_id)
            log.debug("host %s: %d of %d released sessions have entries", self.holder_id, len(waiting), len(sessions))
            if waiting:
                await self.backends.signals.publish(self._host_signal(SignalKind.YIELD, waiting))
        except Exception as exc:
            log.warning("host %s could not announce %d released sessions: %s", self.holder_id, len(sessions), exc)

    # --- what a user calls ----------------------------------------------------------------------------

    @property
    def sessions(self) -> list[str]:
        """The sessions this host holds now."""
        return sorted(self._runners)

    async def submit(self, message: InboundMessage) -> str | None:
        """Deliver ``message`` to its session's inbox and wake its holder; the inbox entry id.

        A message with an ``idempotency_key`` already submitted (within ``idempotency_ttl``) is not
        delivered again: ``None``. The same key with a different message raises
        :class:`~aimon_mongo.errors.InvalidArgumentError`. When the session has no holder, this host adopts
        it (if it has room), else another host is told on the host channel.
        """
        checked = require_message(message)
        key = checked.idempotency_key
        if key is not None:
            reserved = await self._reserve(checked, key)
            if not reserved:
                return None
        try:
            entry_id = await self.backends.inbox.deliver(checked)
        except BaseException:
            if key is not None:
                with contextlib.suppress(Exception):
                    await self.backends.idempotency.discard_reservation(key)
            raise
        await self._wake(checked.session_id, entry_id, checked.priority)
        return entry_id

    async def _reserve(self, message: InboundMessage, key: str) -> bool:
        now = datetime.now(UTC)
        digest = input_hash(message)
        entry = IdempotencyEntry(
            key=key,
            session_id=message.session_id,
            input_hash=digest,
            status=IdempotencyStatus.IN_FLIGHT,
            created_at=now,
            last_touched_at=now,
        )
        put = await self.backends.idempotency.put_if_absent(entry, self._idem_ttl)
        if put.inserted:
            return True
        existing = put.existing
        if existing is not None and existing.input_hash != digest:
            raise InvalidArgumentError(
                f"idempotency key {key!r} was submitted before with a different message "
                f"(session {existing.session_id!r})"
            )
        log.info("submit to session %s with idempotency key %s: already submitted, not delivered again",
                 message.session_id, key)  # fmt: skip
        return False

    async def _wake(self, session_id: str, entry_id: str, priority: Priority) -> None:
        runner = self._runners.get(session_id)
        if runner is not None:
            runner.notify(priority)
            return
        payload: dict[str, Any] = {HOST_PAYLOAD_ENTRY_ID: entry_id, HOST_PAYLOAD_PRIORITY: priority.name}
        signals = [SessionSignal(session_id=session_id, kind=SignalKind.MESSAGE_ENQUEUED,
                                 origin_node_id=self.backends.node_id, payload=payload)]  # fmt: skip
        if self._can_adopt(session_id):
            self._spawn(self._try_adopt(session_id, time.monotonic()))
        else:
            try:
                holder = await self.backends.leases.find_holder(session_id)
            except Exception as exc:
                log.warning("could not look up the holder of session %s: %s", session_id, type(exc).__name__)
                holder = None
            if holder is None:
                signals.append(self._host_signal(SignalKind.MESSAGE_ENQUEUED, [session_id]))
        try:
            await self.backends.signals.publish_all(signals)
        except Exception as exc:  # delivered all the same: a holder finds it on its next poll, a scan adopts it
            log.warning("could not signal the new entry %s of session %s: %s", entry_id, session_id, exc)

    def _host_signal(self, kind: SignalKind, sessions: list[str]) -> SessionSignal:
        return SessionSignal(session_id=HOST_SIGNAL_SESSION, kind=kind, origin_node_id=self.backends.node_id,
                             payload={HOST_PAYLOAD_SESSIONS: list(sessions)})  # fmt: skip

    # --- adoption -------------------------------------------------------------------------------------

    def _can_adopt(self, session_id: str) -> bool:
        if not self._accepting or session_id in self._runners or session_id in self._adopting:
            return False
        if len(self._runners) + len(self._adopting) >= self.max_sessions:
            return False
        until = self._cooldown.get(session_id)
        if until is not None:
            if time.monotonic() < until:
                return False
            del self._cooldown[session_id]
        return True

    async def _try_adopt(self, session_id: str, noticed: float | None = None) -> bool:
        """Take the session's lease if nobody holds it and this host has room; start its runner."""
        if not self._can_adopt(session_id):
            return False
        self._adopting.add(session_id)
        try:
            first = noticed if noticed is not None else time.monotonic()
            started = time.monotonic()
            lease = await self.backends.leases.try_acquire(session_id, self.holder_id, self.lease_ttl)
            if lease is None or not self._accepting:
                if lease is not None:
                    await self.backends.leases.release(lease)
                return False
            runner = _SessionRunner(self, lease, deadline=started + self._ttl, noticed=first)
            self._runners[session_id] = runner
            runner.task = asyncio.get_running_loop().create_task(runner.run(), name=f"aimon-host-{session_id}")
            log.info("host %s holds session %s (token %d)", self.holder_id, session_id, lease.fencing_token)
            return True
        except Exception as exc:
            log.warning("host %s could not adopt session %s: %s", self.holder_id, session_id, exc)
            return False
        finally:
            self._adopting.discard(session_id)

    def _spawn(self, coroutine: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _on_host_signal(self, signal: SessionSignal) -> None:
        if signal.kind not in (SignalKind.YIELD, SignalKind.MESSAGE_ENQUEUED, SignalKind.EVICT):
            return
        sessions = signal.payload.get(HOST_PAYLOAD_SESSIONS)
        if not isinstance(sessions, list):
            return
        log.debug("host %s: %s from node %s names %d sessions", self.holder_id, signal.kind.value,
                  signal.origin_node_id, len(sessions))  # fmt: skip
        now = time.monotonic()
        for session_id in sessions:
            if isinstance(session_id, str) and session_id.strip() and self._can_adopt(session_id):
                self._spawn(self._try_adopt(session_id, now))

    async def _scan_loop(self) -> None:
        while self._accepting:
            try:
                await self.scan()
            except Exception as exc:
                log.warning("host %s: the scan for sessions without a holder failed: %s", self.holder_id, exc)
            self._scan_wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._scan_wake.wait(), self._scan)

    async def scan(self) -> int:
        """One pass over the sessions with waiting or claimed entries (paged): adopt those nobody holds,
        while this host has room; the number adopted. Runs every ``scan_interval`` on its own."""
        adopted = 0
        after: str | None = None
        while self._accepting and len(self._runners) < self.max_sessions:
            page = await self.backends.inbox.sessions_with_entries(after=after, limit=SCAN_PAGE)
            now = time.monotonic()
            for session_id in page.session_ids:
                if not self._can_adopt(session_id):
                    continue
                holder = await self.backends.leases.find_holder(session_id)
                if holder is not None and holder.holder_id != self.holder_id:
                    continue  # held elsewhere (a lease under our own id is a predecessor process's: take it)
                adopted += await self._try_adopt(session_id, now)
            if page.next_after is None:
                break
            after = page.next_after
        return adopted

    def _finished(self, runner: _SessionRunner, handed_over: bool) -> None:
        if self._runners.get(runner.session_id) is runner:
            del self._runners[runner.session_id]
        if handed_over:
            self._cooldown[runner.session_id] = time.monotonic() + self._ttl
        if self._accepting:
            self._scan_wake.set()  # room again: look for sessions waiting

    def __repr__(self) -> str:
        return f"AsyncSessionHost({self.holder_id!r}, sessions={len(self._runners)}/{self.max_sessions})"


@traced("host")
class _SessionRunner:
    """The holder loop of one session on this host (see the module text)."""

    def __init__(self, host: AsyncSessionHost, lease: Lease, *, deadline: float, noticed: float) -> None:
        self.host = host
        self.lease = lease
        self.session_id = lease.session_id
        self.token = lease.fencing_token
        self.task: asyncio.Task[None] | None = None
        self.wake = asyncio.Event()
        self.lost = asyncio.Event()
        self.stop_reason: str | None = None
        self.current: Turn | None = None
        self._deadline = deadline
        self._noticed: float | None = noticed
        self._idle_since = time.monotonic()

    def notify(self, priority: Priority) -> None:
        """A new entry for this session: claim again, and interrupt a running turn for a NOW message."""
        self.wake.set()
        if priority is Priority.NOW and self.current is not None:
            self.current.interrupted.set()

    def request_stop(self, reason: str) -> None:
        """End at the next boundary (after the running turn, if any)."""
        if self.stop_reason is None:
            self.stop_reason = reason
        self.wake.set()

    def live(self) -> bool:
        """Whether the lease is still ours by this node's reckoning (the last confirmed expiry not passed)."""
        return not self.lost.is_set() and time.monotonic() < self._deadline

    async def _on_signal(self, signal: SessionSignal) -> None:
        kind = signal.kind
        if kind is SignalKind.MESSAGE_ENQUEUED:
            priority = signal.payload.get(HOST_PAYLOAD_PRIORITY)
            self.notify(Priority.NOW if priority == Priority.NOW.name else Priority.NEXT)
        elif kind is SignalKind.INTERRUPT:
            if self.current is not None:
                self.current.interrupted.set()
        elif kind in (SignalKind.EVICT, SignalKind.YIELD):
            log.info("session %s: %s from node %s, handing over at the next boundary",
                     self.session_id, kind.value, signal.origin_node_id)  # fmt: skip
            self.request_stop(kind.value.lower())

    async def _keep_alive(self) -> None:
        host = self.host
        interval = host._ttl / 3
        while True:
            await asyncio.sleep(interval)
            started = time.monotonic()
            try:
                extended: bool | None = await host.backends.leases.extend(self.lease, host.lease_ttl)
            except Exception as exc:
                log.warning("session %s: lease extension failed: %s", self.session_id, type(exc).__name__)
                extended = None
            if extended:
                self._deadline = started + host._ttl
                continue
            if extended is False or time.monotonic() >= self._deadline:
                log.warning("session %s: lease (token %d) lost on host %s", self.session_id, self.token,
                            host.holder_id)  # fmt: skip
                self.lost.set()
                self.wake.set()
                return

    async def run(self) -> None:
        host = self.host
        backends = host.backends
        keeper = asyncio.get_running_loop().create_task(self._keep_alive())
        subscription: AsyncSubscription | None = None
        handed_over = False
        try:
            subscription = await backends.signals.subscribe(self.session_id, self._on_signal)
            self._idle_since = time.monotonic()
            while self.live() and self.stop_reason is None:
                self.wake.clear()
                try:
                    outcome = await self._step()
                except Exception as exc:  # a store failure: the batch stays claimed, tried again
                    log.warning("session %s: holder step failed: %s", self.session_id, exc)
                    await self._wait(max(host._backoff, 0.05))
                    continue
                if outcome == "idle":
                    break
            handed_over = self.stop_reason in ("evict", "yield", "drain")
        except Exception as exc:  # subscribing failed: the session is released and adopted again later
            log.warning("session %s: holder loop on host %s ended: %s", self.session_id, host.holder_id, exc)
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
            if subscription is not None:
                with contextlib.suppress(Exception):
                    await subscription.unsubscribe()
            if not self.lost.is_set():
                await backends.leases.release(self.lease)
            host._finished(self, handed_over)
        log.info("host %s released session %s (%s)", host.holder_id, self.session_id, self.stop_reason or "lease lost")
        if handed_over and self.stop_reason != "drain":  # drain announces its sessions together
            await host._announce([self.session_id])
        elif self.stop_reason == "idle" and self.wake.is_set():  # a message came while it was being released
            host._spawn(host._try_adopt(self.session_id))

    async def _step(self) -> str:
        """One claim and, when it hands out messages, one turn: ``"idle"`` once the session has had no
        entries for ``idle_release``, else ``"claimed"``, ``"empty"`` or the turn's outcome."""
        host = self.host
        batch = await host.backends.inbox.claim(self.session_id, self.token, max_attempts=host.max_attempts)
        if batch.quarantined:
            log.warning("session %s: %d entries moved to quarantine after %d hand-outs",
                        self.session_id, len(batch.quarantined), host.max_attempts)  # fmt: skip
        if not batch.messages:
            if batch.unreadable or batch.quarantined:
                return "claimed"
            waited = time.monotonic() - self._idle_since
            if waited >= host._idle:
                self.stop_reason = "idle"
                return "idle"
            await self._wait(min(host._idle - waited, host._scan))
            return "empty"
        if not self.live():
            return "cancelled"
        turn = Turn(
            session_id=self.session_id,
            fencing_token=self.token,
            attempt=max(batch.attempt, 1),
            messages=tuple(batch.messages),
            interrupted=asyncio.Event(),
            lease=self.lease,
            attempts=dict(batch.attempts),
            backends=host.backends,
        )
        adopted_after = None
        if self._noticed is not None:
            adopted_after, self._noticed = time.monotonic() - self._noticed, None
        outcome = await self.run_turn(turn, adopted_after)
        self._idle_since = time.monotonic()
        if outcome == "failed" and host._backoff:
            await self._wait(host._backoff)
        return outcome

    async def _wait(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wake.wait(), max(seconds, 0.0))

    async def run_turn(self, turn: Turn, adopted_after: float | None) -> TurnOutcome:
        """Run the handler on ``turn``; acknowledge its batch when it returns (``adopted_after``: the seconds
        from noticing the session to this, its first turn after adoption, for the telemetry)."""
        self.current = turn
        try:
            handler = asyncio.get_running_loop().create_task(self._call(turn))
            lost = asyncio.get_running_loop().create_task(self.lost.wait())
            try:
                await asyncio.wait({handler, lost}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                lost.cancel()
            if not handler.done():
                handler.cancel()
                await asyncio.wait({handler}, timeout=CANCEL_GRACE)
                log.warning("session %s: turn (token %d, attempt %d) cancelled: the lease was lost",
                            self.session_id, turn.fencing_token, turn.attempt)  # fmt: skip
                return "cancelled"
            error = handler.exception() if not handler.cancelled() else asyncio.CancelledError()
            if error is not None:
                log.warning("session %s: turn (token %d, attempt %d, %d messages) failed: %s",
                            self.session_id, turn.fencing_token, turn.attempt, len(turn.messages),
                            type(error).__name__)  # fmt: skip
                return "failed"
            ids = [message.id for message in turn.messages if message.id is not None]
            removed = await self.host.backends.inbox.acknowledge(self.session_id, turn.fencing_token, ids)
            if removed < len(ids):
                log.warning("session %s: %d of %d entries acknowledged under token %d (a newer holder has them)",
                            self.session_id, removed, len(ids), turn.fencing_token)  # fmt: skip
            await self._mark_done(turn)
            return "acknowledged"
        finally:
            self.current = None

    async def _call(self, turn: Turn) -> None:
        await self.host.handler(turn)

    async def _mark_done(self, turn: Turn) -> None:
        result = TurnResult(success=True, completion_reason=CompletionReason.COMPLETED)
        for message in turn.messages:
            if message.idempotency_key is None:
                continue
            try:
                await self.host.backends.idempotency.mark_done(message.idempotency_key, result)
            except Exception as exc:
                log.warning("session %s: idempotency key of entry %s not marked done: %s",
                            self.session_id, message.id, type(exc).__name__)  # fmt: skip
