"""MongoDB signal driver (async source; the sync twin is generated): capped ``conversation_signals``.

``publish`` inserts ``{conversationId, kind, originNodeId, payload}``. The feed's ``start`` (the first
``subscribe``) positions it; the service's watcher then runs its ``step``:

* **change stream** when the deployment supports it (replica set / sharded: ``describe()``), filtered to
  inserts of other nodes *for the sessions this node subscribes to* (a node decodes only its own
  sessions' signals), resuming after the last event's token when it has to reopen. When the set of
  subscribed sessions changes the watcher reopens the stream from its resume token with the new
  ``$match``; a ``subscribe`` of a new session returns once that stream is open, so no signal published
  after it returned is missed (and none of the other sessions' is missed or repeated: the new stream
  starts after the last event handled);
* **polling** by ``_id`` otherwise (a standalone server), every ``poll_interval`` seconds, see
  :mod:`aimon_mongo.mongo.poll_position`.

The choice is made once and logged once at INFO. After a server error (``recover``) the feed continues
after its last seen signal (signals published meanwhile are delivered late, not lost — unless a change
stream's resume point left the oplog, which ``recover`` names).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, Literal

from pymongo.asynchronous.collection import AsyncCollection
from pymongo.errors import OperationFailure, PyMongoError

from aimon_mongo import names as n
from aimon_mongo._async.mongo.server import describe
from aimon_mongo._async.services.signals import AsyncSignalBus, Deliver
from aimon_mongo._async_runtime import Event, wait_event
from aimon_mongo.codec.signal import decode_signal, signal_to_mongo
from aimon_mongo.errors import SignalBusError
from aimon_mongo.exported import exported_from
from aimon_mongo.model import SessionSignal
from aimon_mongo.mongo.failures import failures
from aimon_mongo.mongo.poll_position import DEFAULT_LOOKBACK, PollPosition
from aimon_mongo.services.composed import located

log = logging.getLogger(__name__)

WatchMode = Literal["auto", "change_stream", "poll"]
CHANGE_STREAM: WatchMode = "change_stream"
POLL: WatchMode = "poll"
PUBLISH_CHUNK = 256
_HISTORY_LOST = {280, 286}  # ChangeStreamFatalError, ChangeStreamHistoryLost


@exported_from("aimon_mongo.mongo")
class AsyncMongoSignalDriver:
    """Signal primitives and watcher of MongoDB (see the module text)."""

    failures = failures
    delivers_missed_signals = True
    """A watcher that lost its connection continues after the last signal it saw."""
    publish_chunk = PUBLISH_CHUNK
    chunks_are_atomic = False

    def __init__(
        self,
        collection: AsyncCollection[dict[str, Any]],
        node_id: str,
        mode: WatchMode,
        poll_interval: float,
        retry_backoff: float,
        lookback: timedelta,
    ) -> None:
        self.node_id = node_id
        self.watch = self
        self._signals = collection
        self._requested: WatchMode = mode
        self._poll_interval = poll_interval
        self.retry_backoff = retry_backoff
        self._position = PollPosition(lookback)
        self._deliver: Deliver | None = None
        self._stream: Any = None
        self._resume_token: Any = None
        self._sessions: Callable[[], list[str]] = list
        self.filtered: frozenset[str] = frozenset()
        """The sessions the open change stream's ``$match`` takes."""
        self._waiters: list[tuple[str, Event]] = []
        self._waiters_lock = threading.Lock()
        self.watch_mode: WatchMode | None = None
        """``"change_stream"`` or ``"poll"`` once the watcher started."""

    def __repr__(self) -> str:
        return located(self, self._signals.full_name)

    def encode(self, signal: SessionSignal) -> dict[str, Any]:
        return signal_to_mongo(signal)

    async def publish(self, raw: dict[str, Any]) -> None:
        await self._signals.insert_one(raw)

    async def publish_many(self, raws: Sequence[dict[str, Any]]) -> None:
        await self._signals.insert_many(raws, ordered=True)

    def decode(self, raw: dict[str, Any]) -> SessionSignal:
        return decode_signal(raw)

    def describe(self, raw: dict[str, Any]) -> str:
        return f"{n.F_ID} {raw.get(n.F_ID)}"

    async def follow(self, session_id: str) -> None:
        """Nothing to do: the watcher reopens its change stream when ``sessions()`` changed."""

    async def unfollow(self, session_id: str) -> None:
        """As :meth:`follow`."""

    async def confirmed(self, session_id: str, timeout: float) -> bool:
        """At once in polling mode; with a change stream, once its ``$match`` takes ``session_id``."""
        if self.watch_mode != CHANGE_STREAM:
            return True
        done = Event()
        with self._waiters_lock:
            if session_id in self.filtered:
                return True
            self._waiters.append((session_id, done))
        if await wait_event(done, timeout):
            return True
        with self._waiters_lock:
            self._waiters = [(s, e) for s, e in self._waiters if e is not done]
        return False

    async def wake(self) -> None:
        """Nothing to do: a step waits at most ``poll_interval`` (or the stream's 200 ms)."""

    async def stop(self) -> None:
        await self._close_stream()

    # --- watcher ---------------------------------------------------------------------------------------

    async def start(self, deliver: Deliver, sessions: Callable[[], list[str]]) -> None:
        self._deliver = deliver
        self._sessions = sessions
        mode = self._requested
        if mode == "auto":
            supported = (await describe(self._signals.database.client)).supports_change_streams
            mode = CHANGE_STREAM if supported else POLL
        if mode == CHANGE_STREAM:
            try:
                self._stream = await self._open_stream()
            except OperationFailure as exc:
                if self._requested == CHANGE_STREAM:
                    raise
                log.info("change stream refused (%s)", type(exc).__name__)
                mode = POLL
        if mode == POLL:
            latest = await self._signals.find_one({}, projection={n.F_ID: 1}, sort=[(n.F_ID, -1)])
            if latest is not None:
                self._position.mark([latest[n.F_ID]])
                await self._poll(deliver=False)
        self.watch_mode = mode
        how = "change stream" if mode == CHANGE_STREAM else f"polling every {self._poll_interval:g} s"
        log.info("signal bus of node %s watches %s by %s", self.node_id, self._signals.name, how)

    async def step(self, stopping: Event) -> None:
        if self.watch_mode == CHANGE_STREAM:
            await self._stream_step(stopping)
        else:
            await self._poll(deliver=True, stopping=stopping)
            await wait_event(stopping, self._poll_interval)

    async def recover(self, exc: Exception) -> str | None:
        await self._close_stream()
        if not isinstance(exc, PyMongoError):
            return None
        if isinstance(exc, OperationFailure) and exc.code in _HISTORY_LOST:
            self._resume_token = None
            return f"lost its resume point ({type(exc).__name__}); signals published meanwhile are lost"
        return type(exc).__name__

    async def _open_stream(self) -> Any:
        sessions = frozenset(self._sessions())
        wanted = {
            "operationType": "insert",
            "fullDocument." + n.F_ORIGIN_NODE_ID: {"$ne": self.node_id},
            "fullDocument." + n.F_CONVERSATION_ID: {"$in": sorted(sessions)},
        }
        stream = await self._signals.watch([{"$match": wanted}], resume_after=self._resume_token, max_await_time_ms=200)
        if self._resume_token is None:
            self._resume_token = stream.resume_token  # the opening point: a reopen before any event resumes here
        with self._waiters_lock:
            self.filtered = sessions
            ready = [event for session, event in self._waiters if session in sessions]
            self._waiters = [(s, e) for s, e in self._waiters if s not in sessions]
        for event in ready:
            event.set()
        return stream

    async def _close_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                await stream.close()
            except PyMongoError:
                pass

    async def _stream_step(self, stopping: Event) -> None:
        if self._stream is not None and frozenset(self._sessions()) != self.filtered:
            await self._close_stream()  # the subscribed sessions changed: reopen from the resume token
        if self._stream is None:
            self._stream = await self._open_stream()
        change = await self._stream.try_next()
        if change is None:
            self._resume_token = self._stream.resume_token or self._resume_token
            await wait_event(stopping, self._poll_interval)
            return
        self._resume_token = change.get("_id", self._resume_token)
        document = change.get("fullDocument")
        if document is not None and self._deliver is not None:
            await self._deliver(document)

    async def _poll(self, deliver: bool, stopping: Event | None = None) -> None:
        found = await self._signals.find(self._position.query(self.node_id), projection={n.F_ID: 1}).to_list(None)
        new = self._position.unseen(doc[n.F_ID] for doc in found)
        if not new:
            return
        if deliver:
            docs = await self._signals.find({n.F_ID: {"$in": new}}).sort(n.F_ID, 1).to_list(None)
            for doc in docs:
                if stopping is not None and stopping.is_set():
                    return
                self._position.mark([doc[n.F_ID]])
                if self._deliver is not None:
                    await self._deliver(doc)
        self._position.mark(new)


@exported_from("aimon_mongo.mongo")
class AsyncMongoSessionSignalBus(AsyncSignalBus):
    """Cross-node signals on MongoDB (see the module text). ``mode`` forces the watcher's way
    (``"change_stream"`` or ``"poll"``; ``"auto"`` asks the server), polling every ``poll_interval``
    seconds; after a server error it waits ``retry_backoff`` seconds; ``lookback`` is the polling window."""

    def __init__(
        self,
        collection: AsyncCollection[dict[str, Any]],
        node_id: str,
        *,
        mode: WatchMode = "auto",
        poll_interval: float = 0.05,
        retry_backoff: float = 0.5,
        lookback: timedelta = DEFAULT_LOOKBACK,
    ) -> None:
        if mode not in ("auto", CHANGE_STREAM, POLL):
            raise SignalBusError(f"unknown watch mode {mode!r}")
        self._mongo = AsyncMongoSignalDriver(collection, node_id, mode, poll_interval, retry_backoff, lookback)
        super().__init__(self._mongo)

    @property
    def watch_mode(self) -> WatchMode | None:
        """``"change_stream"`` or ``"poll"`` once the watcher started."""
        return self._mongo.watch_mode
