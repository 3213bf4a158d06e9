"""Connections cut at random points between client and server: MongoDB stand-in, Redis, PostgreSQL.

A :class:`~tests.fixtures.tcp_proxy.TcpProxy` in front of the server drops connections at seeded random
points, so requests arrive cut short and replies are lost after the server acted. The
test retries what failed with ``BackendUnavailable``, as an application would, and checks:

* deliver/collect: no stored entry is handed out twice; every acknowledged entry is collected, except
  the ones a collect removed while its reply was lost (``lost`` = acknowledged − collected − remaining,
  each of them coinciding with a failed or cut-short collect — the at-most-once window of
  ``docs/guarantees.md``); a retried deliver whose first attempt was stored anyway is a second entry
  of the same turn (counted, allowed only where a deliver attempt failed);
* leases: tokens of acquisitions that did not overlap in time strictly increase, and the session record
  ends with the highest token's write (a stale write is refused, never applied over a newer one).
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
import logging
import time
import zlib
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from psycopg.conninfo import conninfo_to_dict

from aimon_mongo.errors import StaleFencingTokenError
from aimon_mongo.model import Lease
from tests.conformance.helpers import message, new_id
from tests.fixtures.postgres import drop_schema, new_schema_name
from tests.fixtures.redis import delete_namespace, new_root
from tests.fixtures.tcp_proxy import TcpProxy
from tests.reliability.clients import FAMILIES, FLAVOURS, Address, FaultCluster, Outcome, attempt, until_ok

CUT_CHANCE = 0.05
"""Probability that a forwarded chunk is the last of its connection: about one call in ten meets a cut."""
RETRY_DEADLINE = 120.0
LEASE_TTL = timedelta(seconds=1)
EARLY_STOP = "stopped early by a server error"


@dataclass
class Target:
    """The direct address and the scope (database / schema / key root) of one test, and its cleanup."""

    family: str
    direct: Address
    scope: str
    cleanup: Any


@pytest.fixture(params=FAMILIES)
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    family = request.param
    if family == "mongo":
        uri = request.getfixturevalue("mongo_uri")
        host, port = _host_port(urlsplit(uri).netloc.split(",")[0], 27017)
        db = request.getfixturevalue("mongo_db_name")  # dropped by its fixture
        yield Target(family, Address(host, port), db, lambda: None)
    elif family == "redis":
        url = request.getfixturevalue("redis_url")
        root = new_root()
        host, port = _host_port(urlsplit(url).netloc.rsplit("@", 1)[-1], 6379)
        yield Target(family, Address(host, port), root, lambda: delete_namespace(url, root))
    else:
        dsn = request.getfixturevalue("postgres_dsn")
        params = conninfo_to_dict(dsn)
        schema = new_schema_name()
        address = Address(
            str(params.get("host") or "127.0.0.1"),
            int(params.get("port") or 5432),
            str(params.get("user") or "postgres"),
            str(params.get("dbname") or "postgres"),
        )
        yield Target(family, address, schema, lambda: drop_schema(dsn, schema))


@pytest.fixture(params=FLAVOURS)
async def cut(
    request: pytest.FixtureRequest, target: Target
) -> AsyncIterator[tuple[FaultCluster, FaultCluster, TcpProxy]]:
    """(cluster through a cutting proxy, cluster on the direct address, the proxy)."""
    is_async = request.param == "async"
    proxy = TcpProxy(target.direct.host, target.direct.port)
    proxied = dataclasses.replace(target.direct, host="127.0.0.1", port=proxy.port)
    through = FaultCluster(target.family, is_async, proxied, scope=target.scope)
    direct = FaultCluster(target.family, is_async, target.direct, scope=target.scope)
    try:
        direct.setup(target.direct)
        yield through, direct, proxy
    finally:
        try:
            await through.stop()
            await direct.stop()
        finally:
            proxy.close()
            target.cleanup()


def _host_port(netloc: str, default: int) -> tuple[str, int]:
    host, _, port = netloc.rpartition(":")
    return (host, int(port)) if host else (netloc, default)


def _seed(name: str, scenario: str) -> int:
    return zlib.crc32(f"{scenario}/{name}".encode())


@dataclass
class Delivery:
    turn: str
    started: float
    ended: float = 0.0
    entry_id: str = ""
    failed_attempts: int = 0


@dataclass
class CollectCall:
    outcome: Outcome
    stopped_early: bool  # MongoDB: returned what it had removed when a later find_one_and_delete failed
    ids: list[str] = field(default_factory=list)
    turns: list[str] = field(default_factory=list)

    @property
    def lossy(self) -> bool:
        """Whether the call can have removed an entry it did not return."""
        return not self.outcome.ok or self.stopped_early


async def test_deliver_and_collect_while_connections_drop(
    cut: tuple[FaultCluster, FaultCluster, TcpProxy], sizes: Any, reliability_counts: Any, caplog: Any
) -> None:
    through, direct, proxy = cut
    caplog.set_level(logging.WARNING)
    session = new_id("s")
    total = sizes.pick(ci=100, full=2_000)
    producer = await through.node("node-b")
    consumer = await through.node("node-a")
    proxy.random_cuts(_seed(through.name, "inbox"), CUT_CHANCE)

    deliveries: list[Delivery] = []
    calls: list[CollectCall] = []
    producing = True

    async def produce() -> None:
        nonlocal producing
        try:
            for i in range(total):
                d = Delivery(f"t{i}", time.monotonic())
                failed: list[Outcome] = []
                msg = message(session, turn_id=d.turn, text=d.turn)
                d.entry_id = await until_ok(lambda m=msg: producer.inbox.deliver(m), deadline=RETRY_DEADLINE,
                                            failures=failed)  # fmt: skip
                d.failed_attempts = len(failed)
                d.ended = time.monotonic()
                deliveries.append(d)
        finally:
            producing = False

    async def consume() -> None:
        last_success = time.monotonic()
        while True:
            assert time.monotonic() - last_success < RETRY_DEADLINE, "no collect got through for too long"
            done = not producing
            warned = _early_stops(caplog)
            outcome = await attempt(consumer.inbox.collect(session))
            call = CollectCall(outcome, stopped_early=_early_stops(caplog) > warned)
            calls.append(call)
            if outcome.ok:
                last_success = time.monotonic()
                assert not outcome.result.unreadable
                call.ids = [m.id for m in outcome.result.messages]
                call.turns = [m.turn_id for m in outcome.result.messages]
                if done and not call.ids:
                    return
            await asyncio.sleep(0.01)

    await asyncio.gather(produce(), consume())
    proxy.calm()

    # What is left, read on a direct connection: entries stored by a retried deliver's lost first attempt.
    reader = await direct.node("node-c")
    remaining: dict[str, str | None] = {}
    while batch := (await reader.inbox.collect(session)).messages:
        remaining.update((str(m.id), m.turn_id) for m in batch)
    handed_out = Counter(i for c in calls for i in c.ids)
    duplicates = sum(n - 1 for n in handed_out.values() if n > 1)
    acknowledged = {d.entry_id: d for d in deliveries}
    turn_of = {i: t for c in calls for i, t in zip(c.ids, c.turns, strict=True)} | remaining
    lost = [d for i, d in acknowledged.items() if i not in turn_of]  # acknowledged - collected - remaining
    lossy = [c for c in calls if c.lossy]
    failed_calls = sum(not c.outcome.ok for c in calls)
    early_stops = sum(c.stopped_early for c in calls)
    failed_delivers = {d.turn: d.failed_attempts for d in deliveries}
    extra = Counter(t for i, t in turn_of.items() if i not in acknowledged)  # stored by an attempt that raised

    assert duplicates == 0, f"{duplicates} entries handed out twice"
    for turn, n in extra.items():
        assert n <= failed_delivers.get(str(turn), 0), f"{turn}: {n} entries no failed deliver attempt explains"
    removable = _removable_by(lossy, calls, consumer.inbox.batch_limit or float("inf"))
    for d in lost:  # gone: removed by a collect that lost its reply (or, on MongoDB, stopped early)
        assert removable(d), f"{d.turn} lost outside a cut"
    if through.family == "mongo" and consumer.inbox.collects_in_transactions is False:
        assert len(lost) <= len(lossy)  # the loop: one find_one_and_delete in flight, one entry per lossy call
    # In a transaction a call removes its batch only at the commit: a commit whose reply is lost (after
    # PyMongo's one retry) can lose that batch, which the removable() check above covers.
    print(
        f"\n{through.name}: {total} messages, {proxy.random_drops} connections cut, {len(calls)} collects "
        f"({failed_calls} failed, {early_stops} stopped early), {sum(failed_delivers.values())} failed "
        f"delivers ({extra.total()} stored anyway, collected as second entries), {len(lost)} lost in flight, "
        f"{len(remaining)} left for the direct reader"
    )
    errors = failed_calls + sum(failed_delivers.values())
    reliability_counts.add("connection-cuts", through.name, messages=total, duplicates=duplicates, lost=len(lost),
                           errors=errors)  # fmt: skip


def _early_stops(caplog: Any) -> int:
    return sum(EARLY_STOP in r.getMessage() for r in caplog.records)


def _removable_by(lossy: list[CollectCall], calls: list[CollectCall], limit: float) -> Callable[[Delivery], bool]:
    """Whether one of the lossy collects can have removed the entry of a delivery: one that ended after the
    deliver began, and began before the first collect that, started after the deliver returned, emptied the
    inbox (returned normally with fewer entries than a batch holds)."""
    emptied = sorted(c.outcome.started for c in calls if not c.lossy and len(c.ids) < limit)

    def check(d: Delivery) -> bool:
        after = bisect.bisect_right(emptied, d.ended)
        bound = emptied[after] if after < len(emptied) else float("inf")
        return any(c.outcome.ended > d.started and c.outcome.started < bound for c in lossy)

    return check


@dataclass
class Acquisition:
    worker: str
    token: int
    started: float
    ended: float


async def test_leases_and_fenced_writes_while_connections_drop(
    cut: tuple[FaultCluster, FaultCluster, TcpProxy], sizes: Any, reliability_counts: Any
) -> None:
    through, direct, proxy = cut
    session = new_id("s")
    wanted = sizes.pick(ci=20, full=400)
    workers = {name: await through.node(name) for name in ("node-a", "node-b")}
    proxy.random_cuts(_seed(through.name, "leases"), CUT_CHANCE)
    acquisitions: list[Acquisition] = []
    written: list[int] = []  # tokens whose fenced write returned
    maybe_written: list[int] = []  # tokens whose fenced write raised BackendUnavailable (may have applied)
    counts = Counter[str]()

    async def work(name: str, node: Any) -> None:
        while len(acquisitions) < wanted:
            got = await attempt(node.leases.try_acquire(session, name, LEASE_TTL))
            if not got.ok:
                counts["errors"] += 1
                continue
            if got.result is None:
                await asyncio.sleep(0.05)
                continue
            lease: Lease = got.result
            acquisitions.append(Acquisition(name, lease.fencing_token, got.started, got.ended))
            extended = await attempt(node.leases.extend(lease, LEASE_TTL))
            counts["errors"] += not extended.ok
            try:
                wrote = await attempt(
                    node.records.merge_transcript(session, str(lease.fencing_token), lease.fencing_token)
                )
            except StaleFencingTokenError:
                counts["refused_stale"] += 1
            else:
                (written if wrote.ok else maybe_written).append(lease.fencing_token)
                counts["errors"] += not wrote.ok
            released = await attempt(node.leases.release(lease))
            counts["errors"] += not released.ok

    await asyncio.gather(*(work(name, node) for name, node in workers.items()))
    proxy.calm()

    tokens = [a.token for a in acquisitions]
    assert len(set(tokens)) == len(tokens), f"a token was handed out twice: {sorted(tokens)}"
    for a in acquisitions:
        for b in acquisitions:
            if a.ended < b.started:
                assert a.token < b.token, f"token went back: {a} then {b}"
    reader = await direct.node("node-c")
    stored = await reader.records.load(session)
    assert stored is not None and stored.transcript is not None
    final = int(stored.transcript)
    assert final >= max(written, default=0), f"the record holds {final}, below a returned write: {written}"
    assert final in written or final in maybe_written
    print(
        f"\n{through.name}: {len(acquisitions)} acquisitions, tokens {tokens}, {proxy.random_drops} connections "
        f"cut, {counts['errors']} failed calls, {counts['refused_stale']} stale writes refused, record at {final}"
    )
    reliability_counts.add("connection-cuts-leases", through.name, messages=len(acquisitions),
                           refused_stale=counts["refused_stale"], errors=counts["errors"])  # fmt: skip
