"""In-memory specifics the conformance suite cannot reach: the injectable clock (lazy expiry), terminal-
task retention, and one storage shared by threads and an event loop at once."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta

from aimon_mongo.memory import AsyncMemorySessionBackends, MemorySessionBackends, MemoryStorage
from aimon_mongo.model import (
    BackgroundTask,
    IdempotencyEntry,
    IdempotencyStatus,
    InboundMessage,
    Principal,
    TaskState,
    TextInput,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def test_lease_expiry_follows_the_storage_clock() -> None:
    clock = FakeClock()
    storage = MemoryStorage(clock)
    a, b = MemorySessionBackends("a", storage), MemorySessionBackends("b", storage)
    lease = a.leases.try_acquire("s", "a", timedelta(seconds=30))
    assert lease is not None and lease.expires_at == clock.now + timedelta(seconds=30)
    clock.advance(seconds=29)
    assert b.leases.try_acquire("s", "b", timedelta(seconds=30)) is None
    clock.advance(seconds=1)
    assert b.leases.find_holder("s") is None
    taken = b.leases.try_acquire("s", "b", timedelta(seconds=30))
    assert taken is not None and taken.fencing_token > lease.fencing_token


def test_idempotency_expiry_and_touch_follow_the_storage_clock() -> None:
    clock = FakeClock()
    node = MemorySessionBackends("a", MemoryStorage(clock, done_ttl=timedelta(minutes=5)))
    entry = IdempotencyEntry(
        key="k", session_id="s", input_hash="h", status=IdempotencyStatus.IN_FLIGHT, holder_id="h1",
        created_at=clock.now, last_touched_at=clock.now,
    )  # fmt: skip
    node.idempotency.put_if_absent(entry, timedelta(seconds=10))
    clock.advance(seconds=8)
    assert node.idempotency.touch("k", "h1")
    touched = node.idempotency.find("k")
    assert touched is not None and touched.last_touched_at == clock.now
    clock.advance(seconds=8)  # 16 s after the put, 8 s after the touch
    assert node.idempotency.find("k") is not None
    clock.advance(seconds=3)
    assert node.idempotency.find("k") is None


def test_terminal_tasks_are_retained_up_to_the_bound() -> None:
    storage = MemoryStorage(max_terminal_tasks=3)
    node = MemorySessionBackends("a", storage)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    node.tasks.put(BackgroundTask(task_id="live", subagent_name="w", state=TaskState.RUNNING, start_time=start))
    for i in range(5):
        node.tasks.put(
            BackgroundTask(
                task_id=f"done-{i}", subagent_name="w", state=TaskState.COMPLETED, start_time=start,
                end_time=start + timedelta(minutes=i),
            )
        )  # fmt: skip
    assert {t.task_id for t in node.tasks.list()} == {"live", "done-2", "done-3", "done-4"}


def test_one_storage_serves_threads_and_an_event_loop() -> None:
    storage = MemoryStorage()
    sync_node = MemorySessionBackends("threads", storage)
    async_node = AsyncMemorySessionBackends("loop", storage)
    total = 400

    def deliver(start: int) -> None:
        for i in range(start, total, 4):
            sync_node.inbox.deliver(
                InboundMessage(
                    session_id="s", turn_id=str(i), agent_ref="a", user_input=TextInput(text="x"),
                    initiator=Principal.system(), delivered_at=datetime.now(UTC),
                )
            )  # fmt: skip

    threads = [threading.Thread(target=deliver, args=(k,)) for k in range(4)]
    taken: list[str] = []

    async def collect() -> None:
        while len(taken) < total:
            batch = await async_node.inbox.collect("s")
            taken.extend(m.turn_id or "" for m in batch.messages)
            await asyncio.sleep(0)

    for thread in threads:
        thread.start()
    asyncio.run(asyncio.wait_for(collect(), 30))
    for thread in threads:
        thread.join()
    assert sorted(taken, key=int) == [str(i) for i in range(total)]
