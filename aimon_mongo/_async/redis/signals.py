"""Signal driver on Redis pub/sub (reference §4.4).

Channels: ``EVENT`` and ``STATUS`` go to ``<conv>:events:<id>``, every other kind to
``<conv>:control:<id>``; the message is the shared signal codec's JSON. One pub/sub connection per bus,
read by the service's watcher (``step``): following a session subscribes to both its channels
(``confirmed`` once Redis confirmed the events channel), unfollowing unsubscribes.

Pub/sub is at-most-once: a signal published while this node's connection is down is lost for it
(``delivers_missed_signals = False``); the reader reconnects and re-subscribes by itself.

In the cluster key layout the bus uses sharded pub/sub (``SPUBLISH`` / ``SSUBSCRIBE``): a signal reaches
only the shard that owns the session's slot instead of being broadcast to every node of the cluster. The
reader blocks on the one shard it is subscribed on; subscribed on several, it looks at each shard's
connection without waiting and pauses briefly when none had a message (see :data:`SHARD_POLL_MAX`).
Reference-build nodes use classic ``PUBLISH`` and do not hear sharded channels (they cannot read the
cluster layout either).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from aimon_mongo._async.redis.connection import AsyncRedisIO
from aimon_mongo._async.services.signals import AsyncSignalBus, Deliver
from aimon_mongo._async_runtime import Event, sleep, wait_event
from aimon_mongo.codec.signal import signal_from_json, signal_to_json
from aimon_mongo.errors import CodecError
from aimon_mongo.exported import exported_from
from aimon_mongo.model.signal import SessionSignal, SignalKind
from aimon_mongo.redis.keys import RedisKeys
from aimon_mongo.redis.replies import text
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures

EVENT_KINDS = frozenset({SignalKind.EVENT, SignalKind.STATUS})
READ_TIMEOUT = 0.2
"""Seconds the reader waits for a message before checking whether it should stop."""
SHARD_POLL_MIN = 0.001
SHARD_POLL_MAX = 0.01
"""Seconds a cluster bus subscribed on several shards pauses after a look at every shard found nothing: from
SHARD_POLL_MIN, doubling while nothing arrives, at most SHARD_POLL_MAX (the longest a signal to an idle bus
waits for the reader; an idle bus costs one round of non-blocking reads per pause)."""
RECONNECT_BACKOFF = 0.5

Raw = tuple[str, Any]
"""``(channel, message)``: what is published, and what the reader hands on."""


@exported_from("aimon_mongo.redis")
class AsyncRedisSignalDriver:
    """Signal primitives and pub/sub reader of Redis (see the module text)."""

    delivers_missed_signals = False
    publish_chunk = None
    """``publish_all`` is one pipeline."""
    chunks_are_atomic = False
    retry_backoff = RECONNECT_BACKOFF

    def __init__(self, client: Redis | RedisCluster, io: AsyncRedisIO, keys: RedisKeys, node_id: str) -> None:
        self.node_id = node_id
        self.watch = self
        self.failures: Failures = io.guard
        self._client = client
        self._io = io
        self._keys = keys
        self.sharded = keys.cluster
        """Whether the bus uses sharded pub/sub (the cluster key layout)."""
        self._publish = "SPUBLISH" if self.sharded else "PUBLISH"
        self._message_type = "smessage" if self.sharded else "message"
        self._confirm_type = "ssubscribe" if self.sharded else "subscribe"
        self._ready: dict[str, Event] = {}
        self._pubsub: Any = None
        self._deliver: Deliver | None = None
        self._stopping = False
        self._pause = SHARD_POLL_MIN

    def __repr__(self) -> str:
        return located(self, self._io.endpoint)

    def encode(self, signal: SessionSignal) -> Raw:
        if signal.kind in EVENT_KINDS:
            return self._keys.events_channel(signal.session_id), signal_to_json(signal)
        return self._keys.control_channel(signal.session_id), signal_to_json(signal)

    async def publish(self, raw: Raw) -> None:
        await self._io.call(self._publish, *raw)

    async def publish_many(self, raws: Sequence[Raw]) -> None:
        pipe = self._io.pipeline()
        for channel, message in raws:
            self._io.queue(pipe, self._publish, channel, message)
        await pipe.execute()

    def decode(self, raw: Raw) -> SessionSignal:
        return signal_from_json(raw[1] or b"")

    def describe(self, raw: Raw) -> str:
        return f"on {raw[0]}"

    async def follow(self, session_id: str) -> None:
        self._ready[session_id] = Event()
        if self._pubsub is None:
            await self._io.ready()
            self._pubsub = self._client.pubsub()  # sync: self._pubsub = self._client.pubsub()  # type: ignore[no-untyped-call]
        channels = self._channels(session_id)
        await (self._pubsub.ssubscribe(*channels) if self.sharded else self._pubsub.subscribe(*channels))

    async def confirmed(self, session_id: str, timeout: float) -> bool:
        ready = self._ready.get(session_id)
        return ready is not None and await wait_event(ready, timeout)

    async def unfollow(self, session_id: str) -> None:
        self._ready.pop(session_id, None)
        if self._pubsub is not None and not self._stopping:
            channels = self._channels(session_id)
            await (self._pubsub.sunsubscribe(*channels) if self.sharded else self._pubsub.unsubscribe(*channels))

    def _channels(self, session_id: str) -> tuple[str, str]:
        return self._keys.control_channel(session_id), self._keys.events_channel(session_id)

    async def start(self, deliver: Deliver, sessions: Callable[[], list[str]]) -> None:
        self._deliver = deliver

    async def step(self, stopping: Event) -> None:
        message = await self._next_message()
        if message is not None:
            await self._received(message)

    async def recover(self, exc: Exception) -> str | None:
        """The pub/sub connection reconnects and re-subscribes by itself on the next read."""
        return f"Redis pub/sub connection lost ({type(exc).__name__})"

    async def wake(self) -> None:
        """Nothing to do: a read waits at most ``READ_TIMEOUT``."""

    async def stop(self) -> None:
        self._stopping = True
        self._ready.clear()
        if self._pubsub is not None:
            await self._pubsub.aclose()

    async def _next_message(self) -> dict[str, Any] | None:
        """The next pub/sub message, or ``None`` after about ``READ_TIMEOUT`` seconds without one."""
        if self._pubsub is None:
            await sleep(READ_TIMEOUT)
            return None
        if not (self.sharded and self._io.cluster):  # one connection: sharded messages come as any other
            return await self._pubsub.get_message(timeout=READ_TIMEOUT)  # type: ignore[no-any-return]
        shards = len(self._pubsub.node_pubsub_mapping)
        if shards == 0:  # a cluster bus with no shard subscribed yet
            await sleep(READ_TIMEOUT)
            return None
        if shards == 1:
            return await self._pubsub.get_sharded_message(timeout=READ_TIMEOUT)  # type: ignore[no-any-return]
        # redis-py reads the shards' connections in turn, waiting the whole timeout on each that is idle, so a
        # blocking read would hold a message of another shard back (up to READ_TIMEOUT per idle shard): look at
        # every shard without waiting; after a look that found nothing pause, twice as long each time up to
        # SHARD_POLL_MAX, and look again at once after a message.
        message = await self._pubsub.get_sharded_message(timeout=0)
        if message is None:
            await sleep(self._pause)
            self._pause = min(self._pause * 2, SHARD_POLL_MAX)
        else:
            self._pause = SHARD_POLL_MIN
        return message  # type: ignore[no-any-return]

    async def _received(self, message: dict[str, Any]) -> None:
        """A confirmation sets its session's ready event; a message goes to ``deliver``."""
        kind = message.get("type")
        kind = kind.decode() if isinstance(kind, bytes) else kind
        try:
            channel = text(message.get("channel") or b"", "channel name")
        except CodecError:
            return
        if kind == self._confirm_type:
            sid = self._keys.session_of_channel(channel)
            ready = self._ready.get(sid) if sid is not None else None
            if ready is not None and sid is not None and channel == self._keys.events_channel(sid):
                ready.set()
        elif kind == self._message_type and self._deliver is not None:
            await self._deliver((channel, message.get("data")))


@exported_from("aimon_mongo.redis")
class AsyncRedisSessionSignalBus(AsyncSignalBus):
    """Cross-node signals over Redis pub/sub (see the module text)."""

    def __init__(self, client: Redis | RedisCluster, io: AsyncRedisIO, keys: RedisKeys, node_id: str) -> None:
        self._redis = AsyncRedisSignalDriver(client, io, keys, node_id)
        super().__init__(self._redis)

    @property
    def sharded(self) -> bool:
        """Whether the bus uses sharded pub/sub (the cluster key layout)."""
        return self._redis.sharded
