"""The blocking entry to the session host, for programs without an event loop: :class:`SessionHost` runs an
:class:`~aimon_mongo.host.AsyncSessionHost` on an event loop of its own, in a daemon thread.

Not a generated twin: the host's guarantees rest on cancelling a turn whose lease is lost, which an asyncio
task allows and a thread does not. The async host is the one implementation; this class only carries calls
to its loop and back.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, Self, TypeVar

from aimon_mongo._async.ports import AsyncSessionBackends
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.host._host import AsyncSessionHost, Turn
from aimon_mongo.model import InboundMessage

T = TypeVar("T")

START_TIMEOUT = 60.0
"""Seconds :meth:`SessionHost.start` waits for the host's loop to open the bundle and start the host."""


class SessionHost:
    """A session host for blocking code: ``with SessionHost(open_backends, handler=handle) as host:``.

    ``open_backends``: a callable returning an *async* bundle (``lambda: AsyncMongoSessionBackends(...)``); it
    is called on the host's own event loop, since async clients belong to the loop that made them, and the
    bundle is closed by :meth:`close`. ``handler``: a plain function ``handle(turn) -> None`` (run in a
    worker thread; ``turn.interrupted.is_set()`` may be polled from it) or an ``async def`` (run on the
    host's loop). A plain handler whose lease is lost cannot be stopped: the host stops waiting for it and
    hands the batch out again, and its fenced writes are refused. Every other keyword argument is
    :class:`AsyncSessionHost`'s.
    """

    def __init__(
        self,
        open_backends: Callable[[], AsyncSessionBackends],
        *,
        handler: Callable[[Turn], None] | Callable[[Turn], Coroutine[Any, Any, None]],
        **options: Any,
    ) -> None:
        if not callable(open_backends):
            raise InvalidArgumentError(f"open_backends must be callable, got {type(open_backends).__name__}")
        if not callable(handler):
            raise InvalidArgumentError(f"handler must be callable, got {type(handler).__name__}")
        self._open = open_backends
        self._handler = handler
        self._options = options
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._host: AsyncSessionHost | None = None
        self._backends: AsyncSessionBackends | None = None
        self._stopped = threading.Event()

    @property
    def host(self) -> AsyncSessionHost:
        """The async host underneath (call its coroutines through :meth:`call`)."""
        if self._host is None:
            raise RuntimeError("the session host is not started (use it in a with block, or call start())")
        return self._host

    def start(self) -> None:
        """Start the loop thread, open the bundle and start the host. Idempotent."""
        if self._thread is not None:
            return
        ready: Future[None] = Future()
        self._thread = threading.Thread(target=self._serve, args=(ready,), name="aimon-session-host", daemon=True)
        self._thread.start()
        ready.result(START_TIMEOUT)

    def _serve(self, ready: Future[None]) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._begin(ready))
            if ready.exception() is None:
                loop.run_forever()
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
            self._stopped.set()

    async def _begin(self, ready: Future[None]) -> None:
        try:
            self._backends = self._open()
            handler = self._handler
            if inspect.iscoroutinefunction(handler):
                run = handler
            else:

                async def run(turn: Turn) -> None:
                    await asyncio.to_thread(handler, turn)

            self._host = AsyncSessionHost(self._backends, handler=run, **self._options)
            await self._host.start()
        except BaseException as exc:
            if self._backends is not None:
                await self._backends.close()
            ready.set_exception(exc)
            return
        ready.set_result(None)

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coroutine`` on the host's loop and return its result (from any thread but the loop's)."""
        if self._loop is None or self._stopped.is_set():
            coroutine.close()
            raise RuntimeError("the session host is not running")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def submit(self, message: InboundMessage) -> str | None:
        """:meth:`AsyncSessionHost.submit`, blocking."""
        return self.call(self.host.submit(message))

    def drain(self) -> None:
        """:meth:`AsyncSessionHost.drain`, blocking."""
        self.call(self.host.drain())

    @property
    def sessions(self) -> list[str]:
        """The sessions the host holds now."""
        return self.host.sessions

    def close(self) -> None:
        """Drain, close the bundle, stop the loop and its thread. Idempotent."""
        if self._loop is None or self._stopped.is_set():
            return
        try:
            self.call(self._finish())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            if self._thread is not None:
                self._thread.join(START_TIMEOUT)

    async def _finish(self) -> None:
        try:
            if self._host is not None:
                await self._host.drain()
        finally:
            if self._backends is not None:
                await self._backends.close()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
