"""Signal bus on Redis pub/sub (reference §4.4).

Channels: ``EVENT`` and ``STATUS`` go to ``<conv>:events:<id>``, every other kind to
``<conv>:control:<id>``; the message is the shared signal codec's JSON. One pub/sub connection per bus
and one background reader: the first handler of a session subscribes to both channels (``subscribe``
returns once Redis confirmed it, so a signal published afterwards is received), the last one leaving
unsubscribes. Signals whose origin is this node are dropped (no self-delivery).

Pub/sub is at-most-once: a signal published while this node's connection is down is lost for it
(``delivers_missed_signals = False``); the reader reconnects and re-subscribes by itself.

In the cluster key layout the bus uses sharded pub/sub (``SPUBLISH`` / ``SSUBSCRIBE``): a signal reaches
only the shard that owns the session's slot instead of being broadcast to every node of the cluster.
Reference-build nodes use classic ``PUBLISH`` and do not hear sharded channels (they cannot read the
cluster layout either).
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from aimon_mongo._async.ports import SignalHandler
from aimon_mongo._async_runtime import Event, Lock, Worker, sleep, spawn, wait_event
from aimon_mongo.codec.signal import signal_from_json, signal_to_json
from aimon_mongo.errors import CodecError, InvalidArgumentError, SignalBusError
from aimon_mongo.model.signal import SessionSignal, SignalKind
from aimon_mongo.redis._async.connection import AsyncRedisIO
from aimon_mongo.redis.keys import RedisKeys
from aimon_mongo.redis.replies import text
from aimon_mongo.validate import require_id, require_signal

log = logging.getLogger(__name__)

EVENT_KINDS = frozenset({SignalKind.EVENT, SignalKind.STATUS})
READ_TIMEOUT = 0.2
"""Seconds the reader waits for a message before checking whether it should stop."""
RECONNECT_BACKOFF = 0.5
CONFIRM_TIMEOUT = 10.0
"""Seconds ``subscribe`` waits for Redis to confirm the subscription."""

_IN_READER: contextvars.ContextVar[bool] = contextvars.ContextVar("aimon_redis_signal_reader", default=False)


class AsyncRedisSubscription:
    """Handle of one ``subscribe`` call."""

    def __init__(self, bus: AsyncRedisSessionSignalBus, session_id: str, handler: SignalHandler) -> None:
        self.session_id = session_id
        self.handler = handler
        self._bus = bus
        self._active = True

    async def unsubscribe(self) -> None:
        if self._active:
            self._active = False
            await self._bus._remove(self)


class AsyncRedisSessionSignalBus:
    """Cross-node signals over Redis pub/sub (see the module text)."""

    delivers_missed_signals = False

    def __init__(self, client: Redis | RedisCluster, io: AsyncRedisIO, keys: RedisKeys, node_id: str) -> None:
        self.node_id = require_id(node_id, "node_id")
        self._client = client
        self._io = io
        self._keys = keys
        self.sharded = keys.cluster
        """Whether the bus uses sharded pub/sub (the cluster key layout)."""
        self._publish = "SPUBLISH" if self.sharded else "PUBLISH"
        self._message_type = "smessage" if self.sharded else "message"
        self._confirm_type = "ssubscribe" if self.sharded else "subscribe"
        self._lock = Lock()
        self._subs: dict[str, list[AsyncRedisSubscription]] = {}
        self._ready: dict[str, Event] = {}
        self._pubsub: Any = None
        self._reader: Worker | None = None
        self._stopping = False
        self._closed = False

    def _channel(self, signal: SessionSignal) -> str:
        if signal.kind in EVENT_KINDS:
            return self._keys.events_channel(signal.session_id)
        return self._keys.control_channel(signal.session_id)

    def _encoded(self, signal: object) -> tuple[str, str]:
        if self._closed:
            raise SignalBusError("Bus is closed")
        checked = require_signal(signal)
        return self._channel(checked), signal_to_json(checked)

    async def publish(self, signal: SessionSignal) -> None:
        channel, message = self._encoded(signal)
        with self._io.guard(SignalBusError, f"publish to session {signal.session_id!r}"):
            await self._io.call(self._publish, channel, message)

    async def publish_all(self, signals: Sequence[SessionSignal]) -> None:
        encoded = [self._encoded(signal) for signal in signals]  # all encoded before anything is sent
        if not encoded:
            return
        pipe = self._io.pipeline()
        for channel, message in encoded:
            self._io.queue(pipe, self._publish, channel, message)
        with self._io.guard(SignalBusError, f"publish of {len(encoded)} signals"):
            await pipe.execute()

    async def subscribe(self, session_id: str, handler: SignalHandler) -> AsyncRedisSubscription:
        sid = require_id(session_id, "session_id")
        if not callable(handler):
            raise InvalidArgumentError(f"handler must be callable, got {type(handler).__name__}")
        if self._closed:
            raise SignalBusError("Bus is closed")
        sub = AsyncRedisSubscription(self, sid, handler)
        async with self._lock:
            subs = self._subs.setdefault(sid, [])
            subs.append(sub)
            if len(subs) == 1:
                ready = self._ready[sid] = Event()
                try:
                    with self._io.guard(SignalBusError, f"subscribe to session {sid!r}"):
                        await self._subscribe_channels(sid)
                except Exception:
                    self._subs.pop(sid, None)
                    self._ready.pop(sid, None)
                    raise
            else:
                ready = self._ready[sid]
        if not _IN_READER.get() and not await wait_event(ready, CONFIRM_TIMEOUT):
            await sub.unsubscribe()
            raise SignalBusError(f"Redis at {self._io.endpoint} did not confirm the subscription to {sid!r}")
        return sub

    async def _subscribe_channels(self, sid: str) -> None:
        if self._pubsub is None:
            await self._io.ready()
            self._pubsub = self._client.pubsub()  # sync: self._pubsub = self._client.pubsub()  # type: ignore[no-untyped-call]
        channels = (self._keys.control_channel(sid), self._keys.events_channel(sid))
        await (self._pubsub.ssubscribe(*channels) if self.sharded else self._pubsub.subscribe(*channels))
        if self._reader is None:
            self._reader = spawn(self._read, f"aimon-redis-signals-{self.node_id}")

    async def _remove(self, sub: AsyncRedisSubscription) -> None:
        async with self._lock:
            subs = self._subs.get(sub.session_id, [])
            if sub in subs:
                subs.remove(sub)
            if subs or sub.session_id not in self._subs:
                return
            del self._subs[sub.session_id]
            self._ready.pop(sub.session_id, None)
            if self._pubsub is not None and not self._closed:
                channels = (self._keys.control_channel(sub.session_id), self._keys.events_channel(sub.session_id))
                try:
                    if self.sharded:
                        await self._pubsub.sunsubscribe(*channels)
                    else:
                        await self._pubsub.unsubscribe(*channels)
                except Exception as exc:  # the reader's reconnect re-subscribes only what is still wanted
                    log.warning("unsubscribe from session %s failed: %s", sub.session_id, exc)

    async def _read(self) -> None:
        _IN_READER.set(True)
        while not self._stopping:
            try:
                message = await self._next_message()
            except Exception as exc:
                if self._stopping:
                    break
                log.warning("Redis signal reader of node %s lost its connection (%s); reconnecting", self.node_id, exc)
                await sleep(RECONNECT_BACKOFF)
                continue
            if message is not None:
                await self._dispatch(message)

    async def _next_message(self) -> dict[str, Any] | None:
        """The next pub/sub message, or ``None`` after about ``READ_TIMEOUT`` seconds without one."""
        if not (self.sharded and self._io.cluster):  # one connection: sharded messages come as any other
            return await self._pubsub.get_message(timeout=READ_TIMEOUT)  # type: ignore[no-any-return]
        if not self._pubsub.node_pubsub_mapping:  # a cluster bus with no shard subscribed yet
            await sleep(READ_TIMEOUT)
            return None
        return await self._pubsub.get_sharded_message(timeout=READ_TIMEOUT)  # type: ignore[no-any-return]

    async def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        kind = kind.decode() if isinstance(kind, bytes) else kind
        try:
            channel = text(message.get("channel") or b"", "channel name")
        except CodecError:
            return
        sid = self._keys.session_of_channel(channel)
        if sid is None:
            return
        if kind == self._confirm_type:
            ready = self._ready.get(sid)
            if ready is not None and channel == self._keys.events_channel(sid):
                ready.set()
            return
        if kind != self._message_type:
            return
        try:
            signal = signal_from_json(message.get("data") or b"")
        except CodecError as exc:
            log.warning("dropping undecodable signal on %s: %s", channel, exc)
            return
        if signal.origin_node_id == self.node_id:
            return
        for sub in list(self._subs.get(sid, ())):
            try:
                await sub.handler(signal)
            except Exception:
                log.exception("signal handler for session %s failed on a %s signal", sid, signal.kind.value)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stopping = True
        if self._reader is not None and not _IN_READER.get():
            await self._reader.join(READ_TIMEOUT * 10)
        if self._pubsub is not None:
            try:
                await self._pubsub.aclose()
            except Exception as exc:
                log.warning("closing the Redis pub/sub connection of node %s failed: %s", self.node_id, exc)
        self._subs.clear()
        self._ready.clear()
