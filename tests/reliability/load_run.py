"""The load scenario's moving parts: deliverers and collectors on threads (sync bundles) or asyncio tasks
(async bundles), and the checks of what the collectors took.

Every message carries ``turn_id = "<deliverer>:<sequence>"``; a deliverer delivers its sequence in order
(each ``deliver`` awaited before the next), so "delivery order" within a priority is well defined per
deliverer even though the deliverers run concurrently.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aimon_mongo.model import CollectedBatch, Priority
from tests.conformance.helpers import message

COLLECTORS = 8
DELIVERERS = 4


@dataclass(frozen=True)
class Planned:
    turn_id: str
    deliverer: int
    sequence: int
    priority: Priority


def plan(total: int, seed: int) -> list[list[Planned]]:
    """``total`` messages split over the deliverers, each with a random (seeded) priority."""
    rng = random.Random(seed)
    plans: list[list[Planned]] = [[] for _ in range(DELIVERERS)]
    for i in range(total):
        d = i % DELIVERERS
        seq = len(plans[d])
        plans[d].append(Planned(f"{d}:{seq}", d, seq, rng.choice(list(Priority))))
    return plans


@dataclass
class Taken:
    """What the collectors took, batch by batch, and how many collect calls overlapped at most."""

    batches: list[list[list[tuple[str, Priority]]]] = field(default_factory=lambda: [[] for _ in range(COLLECTORS)])
    collector_threads: set[int] = field(default_factory=set)
    unreadable: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def enter(self) -> None:
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def leave(self, index: int, batch: CollectedBatch) -> None:
        with self.lock:
            self.in_flight -= 1
            self.unreadable += len(batch.unreadable)
            if batch.messages:
                self.batches[index].append([(str(m.turn_id), m.priority) for m in batch.messages])


def backlog(plans: list[list[Planned]]) -> int:
    """How many messages of each deliverer's plan are delivered before the collectors start (a quarter),
    so the first batches hold many messages and their order is checked, not just single messages."""
    return min(len(part) for part in plans) // 4


def run_threads(inboxes: list[Any], deliver_inboxes: list[Any], session: str, plans: list[list[Planned]]) -> Taken:
    """Sync bundles: DELIVERERS + COLLECTORS real threads, started together behind a barrier, after
    each deliverer delivered its :func:`backlog`."""
    taken = Taken()
    delivered = threading.Event()
    barrier = threading.Barrier(COLLECTORS + DELIVERERS)
    errors: list[BaseException] = []

    def guarded(work: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                barrier.wait()
                work()
            except BaseException as exc:  # surfaced by the test after join
                errors.append(exc)
                barrier.abort()

        return run

    def deliverer(index: int) -> Callable[[], None]:
        def work() -> None:
            for p in plans[index][first:]:
                deliver_inboxes[index].deliver(message(session, turn_id=p.turn_id, priority=p.priority))

        return work

    def collector(index: int) -> Callable[[], None]:
        def work() -> None:
            taken.collector_threads.add(threading.get_ident())
            inbox = inboxes[index]
            while True:
                finished = delivered.is_set()
                taken.enter()
                batch = inbox.collect(session)
                taken.leave(index, batch)
                if batch.is_empty() and finished and inbox.is_empty(session):
                    return

        return work

    first = backlog(plans)
    for index, part in enumerate(plans):
        for p in part[:first]:
            deliver_inboxes[index].deliver(message(session, turn_id=p.turn_id, priority=p.priority))
    deliver_threads = [threading.Thread(target=guarded(deliverer(i))) for i in range(DELIVERERS)]
    collect_threads = [threading.Thread(target=guarded(collector(i))) for i in range(COLLECTORS)]
    for t in deliver_threads + collect_threads:
        t.start()
    for t in deliver_threads:
        t.join()
    delivered.set()
    for t in collect_threads:
        t.join()
    if errors:
        raise errors[0]
    return taken


async def run_tasks(inboxes: list[Any], deliver_inboxes: list[Any], session: str, plans: list[list[Planned]]) -> Taken:
    """Async bundles: DELIVERERS + COLLECTORS asyncio tasks on one loop (after the :func:`backlog`)."""
    taken = Taken()
    delivered = asyncio.Event()
    first = backlog(plans)
    for index, part in enumerate(plans):
        for p in part[:first]:
            await deliver_inboxes[index].deliver(message(session, turn_id=p.turn_id, priority=p.priority))

    async def deliverer(index: int) -> None:
        for p in plans[index][first:]:
            await deliver_inboxes[index].deliver(message(session, turn_id=p.turn_id, priority=p.priority))
            await asyncio.sleep(0)  # an in-memory deliver never yields: let the collectors run meanwhile

    async def collector(index: int) -> None:
        inbox = inboxes[index]
        while True:
            finished = delivered.is_set()
            taken.enter()
            batch = await inbox.collect(session)
            taken.leave(index, batch)
            if batch.is_empty() and finished and await inbox.is_empty(session):
                return
            if batch.is_empty():
                await asyncio.sleep(0)  # an in-memory collect never yields: let the deliverers run

    async def deliver_all() -> None:
        await asyncio.gather(*(deliverer(i) for i in range(DELIVERERS)))
        delivered.set()

    await asyncio.gather(deliver_all(), *(collector(i) for i in range(COLLECTORS)))
    return taken


def largest_batch(taken: Taken) -> int:
    return max((len(batch) for batches in taken.batches for batch in batches), default=0)


def order_violations(taken: Taken, plans: list[list[Planned]]) -> list[str]:
    """Batches out of order: a priority after a more urgent one, or, within a priority, a deliverer's
    message after a later one of the same deliverer."""
    by_turn = {p.turn_id: p for part in plans for p in part}
    found: list[str] = []
    for index, batches in enumerate(taken.batches):
        for number, batch in enumerate(batches):
            ordinals = [priority.ordinal for _, priority in batch]
            if ordinals != sorted(ordinals):
                found.append(f"collector {index} batch {number}: priorities out of order")
            last: dict[tuple[Priority, int], int] = {}
            for turn, priority in batch:
                p = by_turn[turn]
                if priority is not p.priority:
                    found.append(f"collector {index} batch {number}: {turn} came back as {priority.name}")
                key = (priority, p.deliverer)
                if last.get(key, -1) >= p.sequence:
                    found.append(f"collector {index} batch {number}: {turn} after sequence {last[key]}")
                last[key] = p.sequence
    return found
