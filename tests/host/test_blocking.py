"""The blocking entry: :class:`SessionHost` runs the async host on a loop of its own thread, for programs
without an event loop (plain and async handlers; submit, drain, close)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta

import pytest

from aimon_mongo.host import SessionHost, Turn
from aimon_mongo.memory import AsyncMemorySessionBackends, MemorySessionBackends, MemoryStorage
from aimon_mongo.model import InboundMessage


def wait_until(predicate: Callable[[], bool], what: str, deadline: float = 30.0) -> None:
    end = time.monotonic() + deadline
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"not within {deadline:g} s: {what}")
        time.sleep(0.02)


def test_the_blocking_host_runs_turns_for_code_without_an_event_loop() -> None:
    storage = MemoryStorage()
    seen: list[tuple[str, str, bool]] = []
    lock = threading.Lock()

    def plain(turn: Turn) -> None:  # runs in a worker thread
        with lock:
            seen.extend(("plain", m.user_input.as_text(), turn.interrupted.is_set()) for m in turn.messages)

    async def coroutine(turn: Turn) -> None:  # runs on the host's loop
        with lock:
            seen.extend(("async", m.user_input.as_text(), turn.interrupted.is_set()) for m in turn.messages)

    options = {"lease_ttl": timedelta(seconds=2), "scan_interval": timedelta(seconds=0.2)}
    with SessionHost(lambda: AsyncMemorySessionBackends("node-a", storage), handler=plain, **options) as host:
        entry = host.submit(InboundMessage.text("s-1", "one", agent_ref="a"))
        assert isinstance(entry, str)
        wait_until(lambda: ("plain", "one", False) in seen, "the plain handler ran")
        assert host.sessions == ["s-1"]
        host.drain()
        assert host.sessions == []
    probe = MemorySessionBackends("probe", storage)
    assert probe.leases.find_holder("s-1") is None and probe.inbox.is_empty("s-1")

    MemorySessionBackends("client", storage).inbox.deliver(InboundMessage.text("s-2", "two", agent_ref="a"))
    with SessionHost(lambda: AsyncMemorySessionBackends("node-b", storage), handler=coroutine, **options) as host:
        wait_until(lambda: ("async", "two", False) in seen, "the scan adopted s-2 and the async handler ran")
    assert probe.leases.find_holder("s-2") is None  # closing drained it
    with pytest.raises(RuntimeError, match="not running"):
        host.submit(InboundMessage.text("s-2", "late", agent_ref="a"))


def test_a_bundle_that_cannot_be_opened_fails_start() -> None:
    def broken() -> AsyncMemorySessionBackends:
        raise ValueError("no such server")

    with pytest.raises(ValueError, match="no such server"), SessionHost(broken, handler=lambda turn: None):
        pass
