"""Server restart in the middle of a deliver/collect run: Redis (AOF), PostgreSQL, the MongoDB stand-in (SQLite).

Per family and flavour: deliver a backlog, collect part of it, hold a lease; a second node keeps
delivering while the server is stopped; during the outage every operation fails with
``BackendUnavailable`` (and returns: a hang fails the test); the server restarts on the same port and
→ every message delivered before the stop and not yet collected is collected exactly once, a deliver
that raised is either wholly there or not there (counted), and the fencing counter did not go back.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from aimon_mongo.model import Priority
from tests.conformance.helpers import message, new_id
from tests.reliability.clients import FAMILIES, FLAVOURS, Address, FaultCluster, Outcome, attempt, until_ok
from tests.reliability.servers import PrivateMongoStandin, PrivatePostgres, PrivateRedis

SERVERS: dict[str, Any] = {"redis": PrivateRedis, "postgres": PrivatePostgres, "mongo": PrivateMongoStandin}
RECOVERY = 60.0
"""Seconds the clients get to reconnect after the restart."""


@pytest.fixture(scope="module", params=FAMILIES)
def private_server(request: pytest.FixtureRequest) -> Iterator[Any]:
    server = SERVERS[request.param]()
    try:
        server.start()
        yield server
    finally:
        server.destroy()


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_restart_in_the_middle_of_a_run(
    private_server: Any, flavour: str, sizes: Any, reliability_counts: Any
) -> None:
    family = next(name for name, kind in SERVERS.items() if isinstance(private_server, kind))
    address = Address("127.0.0.1", private_server.port)
    cluster = FaultCluster(family, flavour == "async", address, scope=new_id("r").replace("-", "_"))
    cluster.setup(address)
    try:
        await _restart_run(cluster, private_server, sizes.pick(ci=20, full=400), reliability_counts)
    finally:
        await cluster.stop()


async def _restart_run(cluster: FaultCluster, server: Any, backlog: int, counts: Any) -> None:
    session = new_id("s")
    node = await cluster.node("node-a")
    producer = await cluster.node("node-b")

    # Before the stop: a backlog in two tiers, the NOW tier collected, a lease held.
    for i in range(backlog):
        tier = Priority.NOW if i % 2 == 0 else Priority.LATER
        await node.inbox.deliver(message(session, turn_id=f"a{i}", priority=tier, text=f"a{i}"))
    collected: list[Any] = []
    while batch := (await node.inbox.collect(session, Priority.NOW)).messages:  # batch_limit: 64 on MongoDB
        collected.extend(batch)
    assert {m.turn_id for m in collected} == {f"a{i}" for i in range(0, backlog, 2)}
    lease = await node.leases.try_acquire(session, "node-a", timedelta(seconds=120))
    assert lease is not None

    # A second node delivers without pause (no retries) while the server stops and restarts.
    produced: list[tuple[str, Outcome]] = []
    running = True

    async def produce() -> None:
        i = 0
        while running:
            turn = f"p{i}"
            i += 1
            outcome = await attempt(producer.inbox.deliver(message(session, turn_id=turn, text=turn)))
            produced.append((turn, outcome))
            if not outcome.ok:
                await asyncio.sleep(0.05)

    producing = asyncio.create_task(produce())
    try:
        await _wait_for(lambda: sum(o.ok for _, o in produced) >= 5, "the producer to deliver")
        await asyncio.to_thread(server.stop)

        # The outage: every kind of call fails with BackendUnavailable, and returns.
        calls = {
            "deliver": node.inbox.deliver(message(session, turn_id="outage", text="outage")),
            "collect": node.inbox.collect(session),
            "is_empty": node.inbox.is_empty(session),
            "try_acquire": node.leases.try_acquire(new_id("s"), "node-a", timedelta(seconds=5)),
            "extend": node.leases.extend(lease, timedelta(seconds=120)),
            "fenced write": node.records.merge_transcript(session, "t", lease.fencing_token),
        }
        probes = dict(zip(calls, await asyncio.gather(*map(attempt, calls.values())), strict=True))
        for what, outcome in probes.items():
            assert outcome.error is not None, f"{what} did not fail while {cluster.family} was down"
            assert str(server.port) in str(outcome.error), f"{what}: {outcome.error} does not name the server"
        await _wait_for(lambda: any(not o.ok for _, o in produced), "the producer to see the outage")

        await asyncio.to_thread(server.start)
        restarted = len(produced)
        await _wait_for(lambda: sum(o.ok for _, o in produced[restarted:]) >= 5, "deliveries after the restart")
    finally:
        running = False
        await producing

    # After the restart: drain (retrying while the clients reconnect).
    while True:
        batch = await until_ok(lambda: node.inbox.collect(session), deadline=RECOVERY)
        if not batch.messages and not batch.unreadable:
            break
        assert not batch.unreadable
        collected.extend(batch.messages)
    assert await until_ok(lambda: node.inbox.is_empty(session), deadline=RECOVERY)

    per_turn = Counter(m.turn_id for m in collected)
    assert all(m.user_input.text == m.turn_id for m in collected), "a collected message changed"
    must_arrive = {f"a{i}" for i in range(backlog)} | {turn for turn, o in produced if o.ok}
    raised = {turn for turn, o in produced if not o.ok} | {"outage"}
    duplicates = sum(count - 1 for count in per_turn.values() if count > 1)
    lost = sorted(must_arrive - set(per_turn))
    applied_despite_error = sorted(raised & set(per_turn))
    assert set(per_turn) <= must_arrive | raised
    assert duplicates == 0, f"delivered twice: {[t for t, c in per_turn.items() if c > 1]}"
    assert lost == [], f"lost over the restart: {lost}"
    assert "outage" not in per_turn, "a deliver refused while the server was down was stored"

    # The fencing counter survived the restart: the next holder's token is higher.
    await until_ok(lambda: node.leases.release(lease), deadline=RECOVERY)
    after = await until_ok(lambda: node.leases.try_acquire(session, "node-b", timedelta(seconds=30)), deadline=RECOVERY)
    assert after is not None and after.fencing_token > lease.fencing_token

    errors = len(probes) + sum(not o.ok for _, o in produced)
    counts.add("restart", cluster.name, messages=len(must_arrive), duplicates=duplicates, lost=len(lost),
               errors=errors)  # fmt: skip
    slowest = max([o.elapsed for o in probes.values()] + [o.elapsed for _, o in produced if not o.ok])
    print(
        f"\n{cluster.name}: {len(must_arrive)} messages, {errors} failed calls during the outage "
        f"(slowest {slowest:.2f} s), {len(applied_despite_error)} raising delivers stored anyway "
        f"{applied_despite_error}, {len(raised) - len(applied_despite_error)} not stored"
    )


async def _wait_for(condition: Any, what: str, timeout: float = 120.0) -> None:
    loop = asyncio.get_running_loop()
    give_up = loop.time() + timeout
    while not condition():
        if loop.time() > give_up:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)
