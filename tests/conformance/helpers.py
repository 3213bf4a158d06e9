"""Builders and waiting helpers shared by the conformance tests."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from aimon_mongo.model import (
    InboundMessage,
    Principal,
    Priority,
    SessionSignal,
    SignalKind,
    SubmitOptions,
    TextInput,
)

T = TypeVar("T")

WAIT_SECONDS = 20.0
"""How long a test waits for something asynchronous (a signal) before it fails: generous, because the
slowest stand-in shares two cores with the test process."""


def new_id(prefix: str = "s") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def now_ms() -> datetime:
    """Now with millisecond precision (what every backend stores exactly)."""
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def message(
    session_id: str,
    *,
    turn_id: str | None = None,
    priority: Priority = Priority.NEXT,
    text: str = "hello",
    idempotency_key: str | None = None,
    **extra: Any,
) -> InboundMessage:
    extra.setdefault("user_input", TextInput(text=text))
    return InboundMessage(
        session_id=session_id,
        turn_id=turn_id,
        agent_ref="assistant",
        priority=priority,
        idempotency_key=idempotency_key,
        initiator=Principal.user("u-1", "Ann"),
        delivered_at=now_ms(),
        **extra,
    )


def rich_message(session_id: str) -> InboundMessage:
    """A message with every optional field set (for round trips)."""
    return message(
        session_id,
        turn_id="turn-1",
        priority=Priority.LATER,
        text="rich",
        idempotency_key="key-1",
        context_discriminator="ctx",
        metadata={"a": "1", "b": "two"},
        submit_options=SubmitOptions(principal=Principal.system(), system_prompt_variables={"tone": "dry", "n": 3}),
    )


def signal(session_id: str, origin: str, kind: SignalKind = SignalKind.EVENT, **payload: Any) -> SessionSignal:
    return SessionSignal(session_id=session_id, kind=kind, origin_node_id=origin, payload=payload)


async def wait_until(predicate: Callable[[], bool], what: str, timeout: float = WAIT_SECONDS) -> None:
    """Poll ``predicate`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        await asyncio.sleep(0.02)


async def bounded_gather(calls: Iterable[Callable[[], Awaitable[T]]], concurrency: int) -> list[T]:
    """Run the calls with at most ``concurrency`` in flight; results in call order."""
    semaphore = asyncio.Semaphore(concurrency)

    async def run(call: Callable[[], Awaitable[T]]) -> T:
        async with semaphore:
            return await call()

    return list(await asyncio.gather(*(run(c) for c in calls)))


def seconds(value: float) -> timedelta:
    return timedelta(seconds=value)


class Recorder:
    """Records the signals its ``handle`` (an async handler) received; ``fail`` makes it raise after
    recording."""

    def __init__(self, fail: bool = False) -> None:
        self.received: list[SessionSignal] = []
        self.fail = fail

    async def handle(self, received: SessionSignal) -> None:
        self.received.append(received)
        if self.fail:
            raise RuntimeError("handler failure on purpose")

    def markers(self) -> list[Any]:
        return [s.payload.get("n") for s in self.received]
