"""The signal bus, written once (async source; the sync twin is generated): :class:`AsyncSignalBus` over
an :class:`AsyncSignalDriver`.

The service holds the policy: argument checks, "used after ``close()``", the node's subscriptions (a
:class:`~aimon_mongo.signal_hub.SignalHub`), dispatch to handlers and the error family. The driver holds
the store's primitives: how a signal is encoded and sent, and a **feed** of the raw signals other nodes
publish (a change stream or a poll, a pub/sub reader, a LISTEN connection, the in-process hub).

The feed follows sessions: the first handler of a session makes the service ``follow`` it, the last one
leaving ``unfollow``; ``subscribe`` returns once the feed ``confirmed`` it carries the session (so a signal
published after ``subscribe`` returned is received) — except when called from a handler, on the feed
itself, which would wait for itself. The feed hands each raw signal to the service on its own: an
unreadable one is logged (its place, never its payload) and skipped, a signal of this node is dropped (no
self-delivery), the others go to the session's handlers one after another; a handler that raises is
logged and keeps receiving. Handlers run on the feed (the watcher) — in the publisher's call for memory.

The watcher is the service's too (an asyncio task here, a daemon thread in the sync twin): it runs the
driver's ``step`` until ``close()``; a step that raised is handed to the driver's ``recover`` (which drops
what the error broke and names it), logged at WARN and retried after a backoff that doubles up to
:data:`RETRY_BACKOFF_MAX` — the watcher never stops because of an error.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from aimon_mongo._async.ports import SignalHandler
from aimon_mongo._async_runtime import Event, Lock, Worker, spawn, wait_event
from aimon_mongo.errors import AimonStorageError, BackendUnavailable, CodecError, InvalidArgumentError, SignalBusError
from aimon_mongo.exported import exported_from
from aimon_mongo.model import SessionSignal
from aimon_mongo.services.composed import composed_repr
from aimon_mongo.services.failures import Failures
from aimon_mongo.signal_hub import SignalHub
from aimon_mongo.telemetry.capabilities import traced
from aimon_mongo.validate import require_id, require_signal

log = logging.getLogger(__name__)

CONFIRM_TIMEOUT = 10.0
"""Seconds ``subscribe`` waits for the feed to carry a newly followed session."""
RETRY_BACKOFF_MAX = 5.0
"""The longest wait between two failed steps of the watcher."""
JOIN_TIMEOUT = 10.0
"""Seconds ``close()`` waits for the watcher to end."""

Deliver = Callable[[Any], Awaitable[None]]  # sync: Deliver = Callable[[Any], None]
"""What a feed calls with each raw signal it received (on the feed's own worker)."""

_DISPATCHING: contextvars.ContextVar[object | None] = contextvars.ContextVar("aimon_signal_dispatch", default=None)
"""The bus whose handlers run here (so ``subscribe`` / ``close`` from a handler do not wait for the feed)."""


def next_backoff(current: float) -> float:
    """The watcher's wait after ``current`` when its step fails again: doubled, at most :data:`RETRY_BACKOFF_MAX`."""
    return min(current * 2, RETRY_BACKOFF_MAX)


class AsyncSignalWatch(Protocol):
    """The part of a feed the service's watcher runs."""

    @property
    def retry_backoff(self) -> float:
        """Seconds the watcher waits after a first failed step."""
        ...

    async def step(self, stopping: Event) -> None:
        """One round of the feed: wait a short while (well under a second) for raw signals and ``deliver``
        each; raises what the store raised. Returns soon once ``stopping`` is set."""
        ...

    async def recover(self, exc: Exception) -> str | None:
        """After ``step`` raised ``exc``: drop what it broke (a stream, a connection) and name what happened
        for the log (never a payload); ``None`` when ``exc`` is no store failure (logged with its trace)."""
        ...

    async def wake(self) -> None:
        """Make a waiting ``step`` return soon (``close()``)."""
        ...


class AsyncSignalDriver(Protocol):
    """A store's signal primitives (see the module text)."""

    @property
    def failures(self) -> Failures:
        """The backend's translator (:mod:`aimon_mongo.services.failures`)."""
        ...

    @property
    def node_id(self) -> str: ...

    @property
    def delivers_missed_signals(self) -> bool: ...

    @property
    def publish_chunk(self) -> int | None:
        """Most signals one ``publish_many`` call takes (``None``: no bound)."""
        ...

    @property
    def chunks_are_atomic(self) -> bool:
        """Whether a refused ``publish_many`` published none of its signals (then they are retried one by
        one, so only the refused one fails)."""
        ...

    def encode(self, signal: SessionSignal) -> Any:
        """What ``publish`` sends for ``signal`` (no I/O)."""
        ...

    async def publish(self, raw: Any) -> None:
        """Send one encoded signal."""
        ...

    async def publish_many(self, raws: Sequence[Any]) -> None:
        """Send encoded signals in list order (at most ``publish_chunk``)."""
        ...

    def decode(self, raw: Any) -> SessionSignal:
        """The signal a raw one from the feed holds; :class:`CodecError` (or ``ValueError``) when unreadable."""
        ...

    def describe(self, raw: Any) -> str:
        """Where a raw signal came from, for a log line (an id, a channel) — never its payload."""
        ...

    async def start(self, deliver: Deliver, sessions: Callable[[], list[str]]) -> None:
        """Start the feed (the first ``subscribe``, after its ``follow``): positioned when this returns.
        ``sessions()`` names the sessions that have handlers now (a feed that filters by it reads it)."""
        ...

    async def follow(self, session_id: str) -> None:
        """Make the feed carry the session's signals (its first handler came)."""
        ...

    async def confirmed(self, session_id: str, timeout: float) -> bool:
        """Wait until the feed carries a followed session; False after ``timeout`` seconds."""
        ...

    async def unfollow(self, session_id: str) -> None:
        """The session's last handler left."""
        ...

    @property
    def watch(self) -> AsyncSignalWatch | None:
        """What the service's watcher steps (``None``: ``publish`` delivers in the publisher's call)."""
        ...

    async def stop(self) -> None:
        """Release the feed's connections (the watcher has ended, or is left behind by a handler)."""
        ...


class AsyncSignalSubscription:
    """Handle of one ``subscribe`` call: ``unsubscribe`` removes that registration."""

    def __init__(self, bus: AsyncSignalBus, session_id: str, sub_id: int) -> None:
        self._bus = bus
        self._session_id = session_id
        self._sub_id = sub_id

    async def unsubscribe(self) -> None:
        """Stop delivering to this handler. Idempotent."""
        await self._bus._remove(self._session_id, self._sub_id)


@exported_from("aimon_mongo.services")
@traced("signals")
class AsyncSignalBus:
    """Cross-node pub/sub of :class:`SessionSignal` over a driver (the port ``AsyncSessionSignalBus``)."""

    def __init__(self, driver: AsyncSignalDriver) -> None:
        self.node_id = require_id(driver.node_id, "node_id")
        self.delivers_missed_signals = driver.delivers_missed_signals
        """Whether signals published while this node was disconnected reach it after it reconnects."""
        self._driver = driver
        self._hub = SignalHub()
        self._lock = Lock()
        self._started = False
        self._closed = False
        self._stopping = Event()
        self._worker: Worker | None = None

    __repr__ = composed_repr

    @property
    def driver(self) -> AsyncSignalDriver:
        """The store primitives under this bus."""
        return self._driver

    async def publish(self, signal: SessionSignal) -> None:
        """Publish one signal (at-least-once to live subscribers of other nodes)."""
        raw = self._driver.encode(require_signal(signal))
        self._check_open()
        with self._driver.failures(SignalBusError, f"publish to session {signal.session_id!r}"):
            await self._driver.publish(raw)

    async def publish_all(self, signals: Sequence[SessionSignal]) -> None:
        """Publish several signals in list order; every one is checked and encoded before anything is sent.

        A refused chunk whose store publishes chunks atomically is published again one by one, so only the
        refused signal fails; an unreachable store stops the call at once. Failures are raised together.
        """
        raws = [self._driver.encode(require_signal(s, "signals[]")) for s in signals]
        self._check_open()
        size = self._driver.publish_chunk or max(len(raws), 1)
        failed: list[str] = []
        for start in range(0, len(raws), size):
            chunk = raws[start : start + size]
            try:
                with self._driver.failures(SignalBusError, f"publish of {len(chunk)} signals"):
                    await self._driver.publish_many(chunk)
            except BackendUnavailable:
                raise
            except SignalBusError:
                if not self._driver.chunks_are_atomic:
                    raise
                for offset, raw in enumerate(chunk):
                    try:
                        with self._driver.failures(SignalBusError, f"publish of signal {start + offset}"):
                            await self._driver.publish(raw)
                    except BackendUnavailable:
                        raise
                    except SignalBusError as exc:
                        failed.append(f"signal {start + offset}: {exc}")
        if failed:
            raise SignalBusError(f"{len(failed)} of {len(raws)} signals were not published: {'; '.join(failed)}")

    async def subscribe(self, session_id: str, handler: SignalHandler) -> AsyncSignalSubscription:
        """Call ``handler`` for every signal of the session published by another node from now on."""
        sid = require_id(session_id, "session_id")
        if not callable(handler):
            raise InvalidArgumentError(f"handler must be callable, got {type(handler).__name__}")
        self._check_open()
        async with self._lock:
            self._check_open()
            sub_id = self._hub.add(sid, self.node_id, handler)
            try:
                with self._driver.failures(SignalBusError, f"subscribe of node {self.node_id!r} to session {sid!r}"):
                    if self._hub.count(sid) == 1:
                        await self._driver.follow(sid)
                    if not self._started:
                        await self._driver.start(self._dispatch, self._hub.sessions)
                        self._started = True
                        watch = self._driver.watch
                        if watch is not None:
                            self._worker = spawn(lambda: self._watch(watch), f"aimon-signals-{self.node_id}")
            except BaseException:
                if self._hub.remove(sid, sub_id):
                    await self._unfollow(sid)
                raise
        subscription = AsyncSignalSubscription(self, sid, sub_id)
        if _DISPATCHING.get() is self:
            return subscription  # on the feed: it takes the session when this handler returns
        with self._driver.failures(SignalBusError, f"subscribe of node {self.node_id!r} to session {sid!r}"):
            confirmed = await self._driver.confirmed(sid, CONFIRM_TIMEOUT)
        if not confirmed:
            await subscription.unsubscribe()
            raise SignalBusError(
                f"signal feed of node {self.node_id!r} did not take session {sid!r} within {CONFIRM_TIMEOUT:g} s"
            )
        return subscription

    async def close(self) -> None:
        """Stop the feed; publishing or subscribing afterwards raises. Idempotent."""
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            started, self._started = self._started, False
            self._hub.clear()
        if not started:
            return
        self._stopping.set()
        try:
            with self._driver.failures(SignalBusError, f"close of the signal feed of node {self.node_id!r}"):
                watch = self._driver.watch
                if watch is not None and self._worker is not None and _DISPATCHING.get() is not self:
                    await watch.wake()
                    await self._worker.join(JOIN_TIMEOUT)
                await self._driver.stop()
        except AimonStorageError as exc:  # closed all the same: nothing is delivered any more
            log.warning("closing the signal feed of node %s failed: %s", self.node_id, exc)

    async def _watch(self, watch: AsyncSignalWatch) -> None:
        backoff = watch.retry_backoff
        while not self._stopping.is_set():
            try:
                await watch.step(self._stopping)
                backoff = watch.retry_backoff
            except Exception as exc:
                if self._stopping.is_set():
                    break
                try:
                    what = await watch.recover(exc)
                except Exception as also:  # recovering failed too: the next step tries again
                    what = f"{type(exc).__name__}, then {type(also).__name__} recovering"
                if what is None:
                    log.exception(
                        "signal watcher of node %s hit an unexpected error; retrying in %g s", self.node_id, backoff
                    )
                else:
                    log.warning("signal watcher of node %s: %s; retrying in %g s", self.node_id, what, backoff)
                await wait_event(self._stopping, backoff)
                backoff = next_backoff(backoff)

    async def _remove(self, session_id: str, sub_id: int) -> None:
        async with self._lock:
            if self._hub.remove(session_id, sub_id) and not self._closed:
                await self._unfollow(session_id)

    async def _unfollow(self, session_id: str) -> None:
        try:
            with self._driver.failures(SignalBusError, f"unsubscribe from session {session_id!r}"):
                await self._driver.unfollow(session_id)
        except AimonStorageError as exc:  # the feed's reconnect follows only what is still wanted
            log.warning("node %s could not unsubscribe from session %s: %s", self.node_id, session_id, exc)

    async def _dispatch(self, raw: Any) -> None:
        """One raw signal from the feed: decoded on its own, then to the session's handlers (not this node's)."""
        try:
            signal = self._driver.decode(raw)
        except (CodecError, ValueError) as exc:
            log.warning("node %s skipped an unreadable signal %s: %s", self.node_id, self._driver.describe(raw), exc)
            return
        handlers = self._hub.receivers(signal.session_id, signal.origin_node_id)
        if not handlers:
            return
        token = _DISPATCHING.set(self)
        try:
            for handler in handlers:
                try:
                    await handler(signal)
                except Exception:
                    log.exception(
                        "signal handler of node %s failed for session %s (kind %s)",
                        self.node_id,
                        signal.session_id,
                        signal.kind.value,
                    )
        finally:
            _DISPATCHING.reset(token)

    def _check_open(self) -> None:
        if self._closed:
            raise SignalBusError(f"signal bus of node {self.node_id!r} is closed")
