"""The session host's guarantees (docs/host.md), each a test that fails when the guarantee breaks. Two
hosts on one cluster are two nodes; waits are polls with deadlines, never timed assertions."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from aimon_mongo.errors import InvalidArgumentError, StaleFencingTokenError
from aimon_mongo.host import AsyncSessionHost, Turn
from aimon_mongo.memory import AsyncMemorySessionBackends, MemoryStorage
from aimon_mongo.model import InboundMessage, Priority, SessionSignal, SignalKind
from tests.host.conftest import eventually, families

TTL = timedelta(seconds=2)
SECRET = "payload-text-that-must-never-be-logged"


def msg(session: str, text: str, priority: Priority = Priority.NEXT, key: str | None = None) -> InboundMessage:
    return InboundMessage.text(session, text, agent_ref="assistant", priority=priority, idempotency_key=key)


def texts(turn: Turn) -> list[str]:
    return [m.user_input.as_text() for m in turn.messages]


class Recorder:
    """A handler that records every turn (and can be told to block or raise)."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.turns: list[Turn] = []
        self.seen: list[str] = []
        self.running: Counter[str] = Counter()
        self.most_at_once: Counter[str] = Counter()
        self.gate: asyncio.Event | None = None
        self.started = asyncio.Event()

    async def __call__(self, turn: Turn) -> None:
        self.turns.append(turn)
        self.running[turn.session_id] += 1
        self.most_at_once[turn.session_id] = max(self.most_at_once[turn.session_id], self.running[turn.session_id])
        self.started.set()
        try:
            if self.gate is not None:  # bounded: a failing test must end (leaving a host drains its turns)
                await asyncio.wait_for(self.gate.wait(), 60)
            self.seen.extend(texts(turn))
        finally:
            self.running[turn.session_id] -= 1


async def test_a_turn_gets_its_messages_in_priority_then_arrival_order_and_acknowledges(cluster: Any) -> None:
    client = await cluster.node("client")
    for text, priority in (("l1", Priority.LATER), ("n1", Priority.NEXT), ("w1", Priority.NOW), ("n2", Priority.NEXT)):
        await client.inbox.deliver(msg("s-order", text, priority))
    node = await cluster.node("node-a")
    handled = Recorder()
    async with AsyncSessionHost(node, handler=handled, lease_ttl=TTL, scan_interval=timedelta(seconds=0.2)):
        await eventually(lambda: len(handled.seen) == 4, "the four messages handled")
        turn = handled.turns[0]
        assert texts(turn) == ["w1", "n1", "n2", "l1"]
        assert turn.attempt == 1 and turn.session_id == "s-order" and turn.fencing_token >= 1
        assert all(m.id for m in turn.messages) and set(turn.attempts.values()) == {1}
        holder = await client.leases.find_holder("s-order")
        assert holder is not None and holder.holder_id == "node-a"
    assert await client.inbox.is_empty("s-order")  # acknowledged: nothing waits, nothing claimed
    assert await client.leases.find_holder("s-order") is None  # released on leaving the block
    assert len(handled.turns) == 1


async def test_two_hosts_deliver_every_message_exactly_once_one_holder_at_a_time(cluster: Any) -> None:
    a, b, c = [await cluster.node(n) for n in ("node-a", "node-b", "node-c")]
    seen_a, seen_b = Recorder("a"), Recorder("b")
    options: dict[str, Any] = {"lease_ttl": TTL, "scan_interval": timedelta(seconds=0.3)}
    sent: list[str] = []
    async with (
        AsyncSessionHost(a, handler=seen_a, **options) as host_a,
        AsyncSessionHost(b, handler=seen_b, **options) as host_b,
        AsyncSessionHost(c, handler=Recorder(), max_sessions=0) as client,
    ):
        for i in range(24):
            session = f"s-{i % 6}"
            sender = (host_a, host_b, client)[i % 3]
            text = f"{session}/{i}"
            assert await sender.submit(msg(session, text)) is not None
            sent.append(text)
        await eventually(lambda: len(seen_a.seen) + len(seen_b.seen) >= len(sent), "every message handled")
    both = seen_a.seen + seen_b.seen
    assert sorted(both) == sorted(sent)  # none lost, none twice
    for session in {f"s-{i}" for i in range(6)}:  # per session: arrival order across every turn and holder
        order = [t for t in both if t.startswith(session + "/")]
        turns = sorted(seen_a.turns + seen_b.turns, key=lambda t: t.fencing_token)
        in_turns = [x for t in turns if t.session_id == session for x in texts(t)]
        assert in_turns == sorted(order, key=lambda t: int(t.split("/")[1]))
        assert seen_a.most_at_once[session] <= 1 and seen_b.most_at_once[session] <= 1
        tokens_a = {t.fencing_token for t in seen_a.turns if t.session_id == session}
        tokens_b = {t.fencing_token for t in seen_b.turns if t.session_id == session}
        assert not tokens_a & tokens_b  # never one token on two nodes


async def test_one_holder_per_session_while_a_turn_runs(cluster: Any) -> None:
    a, b, probe = [await cluster.node(n) for n in ("node-a", "node-b", "probe")]
    seen_a, seen_b = Recorder("a"), Recorder("b")
    seen_a.gate, seen_b.gate = asyncio.Event(), asyncio.Event()
    options: dict[str, Any] = {"lease_ttl": TTL, "scan_interval": timedelta(seconds=0.1)}
    async with AsyncSessionHost(a, handler=seen_a, **options) as host_a:
        await host_a.submit(msg("s-one", "first"))
        await eventually(lambda: seen_a.started.is_set(), "node-a runs the turn")
        async with AsyncSessionHost(b, handler=seen_b, **options) as host_b:
            await host_b.submit(msg("s-one", "second"))
            for _ in range(3):  # three whole scans of node-b while node-a's turn runs
                await host_b.scan()
            assert host_b.sessions == [] and not seen_b.turns
            assert await probe.leases.try_acquire("s-one", "probe", TTL) is None
            seen_a.gate.set()
            await eventually(lambda: seen_a.seen == ["first", "second"], "node-a handles both")
            seen_b.gate.set()
    assert not seen_b.seen


async def test_the_lease_is_extended_in_the_background_while_a_long_turn_runs(cluster: Any) -> None:
    node, probe = await cluster.node("node-a"), await cluster.node("probe")
    handled = Recorder()
    handled.gate = asyncio.Event()
    ttl = timedelta(seconds=1)
    async with AsyncSessionHost(node, handler=handled, lease_ttl=ttl) as host:
        try:
            await host.submit(msg("s-long", "long"))
            await eventually(lambda: handled.started.is_set(), "the turn runs")
            first = await probe.leases.find_holder("s-long")
            assert first is not None
            later: list[Any] = []

            async def extended_twice() -> bool:
                lease = await probe.leases.find_holder("s-long")
                later.append(lease)
                return lease is not None and lease.expires_at >= first.expires_at + 2 * ttl

            for _ in range(1500):  # a poll with a deadline: the turn outlives two whole ttls
                if await extended_twice():
                    break
                await asyncio.sleep(0.02)
            assert later[-1] is not None and later[-1].fencing_token == first.fencing_token
            assert later[-1].expires_at >= first.expires_at + 2 * ttl, "the lease was not kept alive"
            assert await probe.leases.try_acquire("s-long", "probe", ttl) is None
            assert handled.running["s-long"] == 1  # still the same turn
        finally:
            handled.gate.set()
        await eventually(lambda: handled.seen == ["long"], "the long turn ends and is acknowledged")


async def test_a_turn_whose_lease_is_lost_is_cancelled_and_its_batch_handed_out_again() -> None:
    now = [datetime(2030, 1, 1, tzinfo=UTC)]
    storage = MemoryStorage(lambda: now[0])  # the storage's clock decides expiry: a paused holder, on demand
    a, b = AsyncMemorySessionBackends("node-a", storage), AsyncMemorySessionBackends("node-b", storage)
    cancelled = asyncio.Event()

    async def stuck(turn: Turn) -> None:
        try:
            await asyncio.wait_for(asyncio.Event().wait(), 60)  # bounded: a failing test must end
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async with AsyncSessionHost(a, handler=stuck, lease_ttl=TTL, scan_interval=timedelta(hours=1)) as host:
        await host.submit(msg("s-lost", "hello"))
        await eventually(lambda: host.sessions == ["s-lost"] and host._runners["s-lost"].current is not None, "turn")
        old = host._runners["s-lost"].token
        now[0] += TTL * 10  # node-a "paused" past its lease: node-b takes the session
        lease = await b.leases.try_acquire("s-lost", "node-b", TTL)
        assert lease is not None and lease.fencing_token > old
        await eventually(cancelled.is_set, "node-a's turn cancelled once its extension is refused")
        await eventually(lambda: host.sessions == [], "node-a gives the session up")
        batch = await b.inbox.claim("s-lost", lease.fencing_token)
        assert [m.user_input.as_text() for m in batch.messages] == ["hello"] and batch.attempt == 2
        await b.records.merge_transcript("s-lost", "t2", lease.fencing_token)
        with pytest.raises(StaleFencingTokenError):  # the old holder's late write is refused anyway
            await a.records.merge_transcript("s-lost", "t1", old)
        assert await b.inbox.acknowledge("s-lost", old, [m.id for m in batch.messages]) == 0
        assert await b.inbox.acknowledge("s-lost", lease.fencing_token, [m.id for m in batch.messages]) == 1


async def test_a_raising_handler_gets_its_batch_again_then_the_entry_is_quarantined(
    cluster: Any, caplog: pytest.LogCaptureFixture
) -> None:
    node, observer = await cluster.node("node-a"), await cluster.node("observer")
    attempts: list[int] = []
    others: list[str] = []

    async def handle(turn: Turn) -> None:
        if turn.session_id == "s-poison":
            attempts.append(turn.attempt)
            raise RuntimeError(f"cannot handle {texts(turn)[0]}")
        others.extend(texts(turn))

    caplog.set_level(logging.DEBUG)
    host = AsyncSessionHost(node, handler=handle, lease_ttl=TTL, max_attempts=3, retry_backoff=timedelta(0))
    async with host:
        await host.submit(msg("s-poison", SECRET))
        await host.submit(msg("s-fine", "fine"))
        await eventually(lambda: len(attempts) == 3, "three hand-outs of the poison batch")

        async def quarantined() -> list[Any]:
            return list(await observer.inbox.list_quarantined("s-poison"))

        found: list[Any] = []
        for _ in range(1500):
            found = await quarantined()
            if found:
                break
            await asyncio.sleep(0.02)
        assert len(found) == 1 and "handed out 3 times" in found[0].error
        await eventually(lambda: others == ["fine"], "the other session is not blocked")
    assert attempts == [1, 2, 3]
    assert await observer.inbox.is_empty("s-poison")
    ours = [record for record in caplog.records if record.name.startswith("aimon_mongo")]
    assert ours and all(SECRET not in record.getMessage() for record in ours)  # logs never carry payloads


async def test_a_handler_that_fails_once_is_acknowledged_on_its_second_attempt(cluster: Any) -> None:
    node = await cluster.node("node-a")
    attempts: list[int] = []

    async def flaky(turn: Turn) -> None:
        attempts.append(turn.attempt)
        if turn.attempt == 1:
            raise ValueError("first time fails")

    async with AsyncSessionHost(node, handler=flaky, lease_ttl=TTL, retry_backoff=timedelta(0)) as host:
        await host.submit(msg("s-flaky", "x"))
        await eventually(lambda: attempts == [1, 2], "the batch handed out again")
        await eventually(lambda: host.sessions == ["s-flaky"], "still held")
    assert await node.inbox.is_empty("s-flaky")
    assert attempts == [1, 2]


async def test_a_now_message_or_an_interrupt_signal_interrupts_the_running_turn(cluster: Any) -> None:
    a, c, other = [await cluster.node(n) for n in ("node-a", "node-c", "other")]
    turns: list[tuple[list[str], bool]] = []

    async def handle(turn: Turn) -> None:
        if texts(turn)[0].startswith("long"):
            await asyncio.wait_for(turn.interrupted.wait(), 30)
        turns.append((texts(turn), turn.interrupted.is_set()))

    async with (
        AsyncSessionHost(a, handler=handle, lease_ttl=TTL) as host,
        AsyncSessionHost(c, handler=handle, max_sessions=0) as client,
    ):
        await client.submit(msg("s-int", "long one"))
        await eventually(lambda: host.sessions == ["s-int"] and host._runners["s-int"].current is not None, "turn")
        await client.submit(msg("s-int", "later", Priority.LATER))
        await client.submit(msg("s-int", "urgent", Priority.NOW))  # from another node: the signal interrupts
        await eventually(lambda: len(turns) == 2, "the interrupted turn and the next one")
        assert turns[0] == (["long one"], True)
        assert turns[1] == (["urgent", "later"], False)  # the NOW message first

        await client.submit(msg("s-int", "long two"))
        await eventually(lambda: host._runners["s-int"].current is not None, "the second long turn")
        signal = SessionSignal(session_id="s-int", kind=SignalKind.INTERRUPT, origin_node_id="other")
        await other.signals.publish(signal)
        await eventually(lambda: len(turns) == 3, "the turn interrupted by INTERRUPT")
        assert turns[2] == (["long two"], True)


@pytest.mark.parametrize("kind", [SignalKind.EVICT, SignalKind.YIELD])
async def test_evict_and_yield_hand_the_session_over_at_the_next_boundary(cluster: Any, kind: SignalKind) -> None:
    a, b, other = [await cluster.node(n) for n in ("node-a", "node-b", "other")]
    seen_a, seen_b = Recorder("a"), Recorder("b")
    seen_a.gate = asyncio.Event()
    slow_scan = {"lease_ttl": TTL, "scan_interval": timedelta(hours=1)}  # only the hand-over can move it
    async with AsyncSessionHost(a, handler=seen_a, **slow_scan) as host_a:
        await host_a.submit(msg("s-move", "one"))
        await eventually(lambda: seen_a.started.is_set(), "node-a runs the first turn")
        async with AsyncSessionHost(b, handler=seen_b, **slow_scan) as host_b:
            await host_b.submit(msg("s-move", "two"))
            await other.signals.publish(SessionSignal(session_id="s-move", kind=kind, origin_node_id="other"))
            runner = host_a._runners["s-move"]
            await eventually(lambda: runner.stop_reason is not None, f"node-a receives {kind.value}")
            assert host_a.sessions == ["s-move"] and runner.current is not None  # the running turn is not cut
            seen_a.gate.set()
            await eventually(lambda: seen_b.seen == ["two"], "node-b adopts the session and runs the rest")
    assert seen_a.seen == ["one"]
    assert seen_b.turns[0].fencing_token > seen_a.turns[0].fencing_token


async def test_a_session_whose_holder_died_is_adopted_with_its_claimed_batch(cluster: Any) -> None:
    dead, b = await cluster.node("dead"), await cluster.node("node-b")
    await dead.inbox.deliver(msg("s-orphan", "m1"))
    await dead.inbox.deliver(msg("s-orphan", "m2"))
    lease = await dead.leases.try_acquire("s-orphan", "dead", timedelta(seconds=1))  # never extended
    assert lease is not None
    claimed = await dead.inbox.claim("s-orphan", lease.fencing_token)
    assert len(claimed.messages) == 2  # the dead node took the batch and never acknowledged it
    handled = Recorder()
    async with AsyncSessionHost(b, handler=handled, lease_ttl=TTL, scan_interval=timedelta(seconds=0.2)) as host:
        await eventually(lambda: handled.seen == ["m1", "m2"], "the scan adopts the orphan once its lease lapsed")
        turn = handled.turns[0]
        assert turn.attempt == 2 and turn.fencing_token > lease.fencing_token
        assert host.sessions == ["s-orphan"]
    assert await b.inbox.is_empty("s-orphan")


async def test_idle_sessions_are_released(cluster: Any) -> None:
    node, probe = await cluster.node("node-a"), await cluster.node("probe")
    handled = Recorder()
    idle = timedelta(seconds=0.3)
    async with AsyncSessionHost(node, handler=handled, lease_ttl=TTL, idle_release=idle) as host:
        await host.submit(msg("s-idle", "hi"))
        await eventually(lambda: handled.seen == ["hi"], "handled")
        await eventually(lambda: host.sessions == [], "released once idle")
        assert await probe.leases.find_holder("s-idle") is None
        await host.submit(msg("s-idle", "again"))  # and taken again on the next message
        await eventually(lambda: handled.seen == ["hi", "again"], "handled after re-adoption")
    assert handled.turns[1].fencing_token > handled.turns[0].fencing_token


async def test_max_sessions_caps_one_host(cluster: Any) -> None:
    client, node = await cluster.node("client"), await cluster.node("node-a")
    for i in range(5):
        await client.inbox.deliver(msg(f"s-cap-{i}", f"m{i}"))
    held: list[int] = []
    gate = asyncio.Event()
    host: AsyncSessionHost | None = None

    async def handle(turn: Turn) -> None:
        assert host is not None
        held.append(len(host.sessions))
        await gate.wait()

    host = AsyncSessionHost(
        node,
        handler=handle,
        lease_ttl=TTL,
        max_sessions=2,
        idle_release=timedelta(0),
        scan_interval=timedelta(seconds=0.1),
    )
    async with host:
        try:
            await eventually(lambda: len(held) >= 2, "two sessions running")
            for _ in range(3):
                await host.scan()
            assert len(host.sessions) == 2 and len(held) == 2
        finally:
            gate.set()  # a failing test must not leave turns waiting (leaving the block drains)
        await eventually(lambda: len(held) == 5, "every session handled, two at a time")
    assert max(held) <= 2


async def test_drain_finishes_the_turn_acknowledges_releases_and_yields_to_another_host(cluster: Any) -> None:
    a, b, probe = [await cluster.node(n) for n in ("node-a", "node-b", "probe")]
    seen_a, seen_b = Recorder("a"), Recorder("b")
    seen_a.gate = asyncio.Event()
    slow_scan = {"lease_ttl": TTL, "scan_interval": timedelta(hours=1)}
    host_a = AsyncSessionHost(a, handler=seen_a, **slow_scan)
    await host_a.start()
    await host_a.submit(msg("s-drain", "one"))
    await eventually(lambda: seen_a.started.is_set(), "node-a runs the turn")
    async with AsyncSessionHost(b, handler=seen_b, **slow_scan):
        await host_a.submit(msg("s-drain", "two"))
        draining = asyncio.ensure_future(host_a.drain())
        await asyncio.sleep(0)
        assert not draining.done()  # drain waits for the running turn
        seen_a.gate.set()
        await draining
        assert host_a.sessions == [] and seen_a.seen == ["one"]
        await eventually(lambda: seen_b.seen == ["two"], "node-b adopts at once on YIELD (its scan is hours away)")
    assert await probe.inbox.is_empty("s-drain")


async def test_submit_honours_the_idempotency_key_and_wakes_the_holder(cluster: Any) -> None:
    a, c, watcher = [await cluster.node(n) for n in ("node-a", "node-c", "watcher")]
    woken: list[SessionSignal] = []

    async def watch(signal: SessionSignal) -> None:
        woken.append(signal)

    subscription = await watcher.signals.subscribe("s-key", watch)
    handled = Recorder()
    quiet = {"lease_ttl": TTL, "scan_interval": timedelta(hours=1), "idle_release": timedelta(hours=1)}
    async with (
        AsyncSessionHost(a, handler=handled, **quiet) as host,
        AsyncSessionHost(c, handler=handled, max_sessions=0) as client,
    ):
        first = await host.submit(msg("s-key", "start"))
        await eventually(lambda: handled.seen == ["start"], "the host holds the session")
        entry = await client.submit(msg("s-key", "pay once", key="k-1"))
        again = await client.submit(msg("s-key", "pay once", key="k-1"))  # a retried submit
        assert first and entry and again is None
        with pytest.raises(InvalidArgumentError, match="k-1"):
            await client.submit(msg("s-key", "something else", key="k-1"))
        # the holder polls only hourly: only MESSAGE_ENQUEUED can have woken it
        await eventually(lambda: handled.seen == ["start", "pay once"], "the holder woken by the signal")
        await eventually(lambda: any(s.payload.get("entryId") == entry for s in woken), "the signal seen")
        kinds = {s.kind for s in woken if s.payload.get("entryId") == entry}
        assert kinds == {SignalKind.MESSAGE_ENQUEUED}
        assert await client.submit(msg("s-key", "pay once", key="k-1")) is None  # done: still remembered
    await subscription.unsubscribe()
    assert handled.seen == ["start", "pay once"]


async def test_a_pure_client_never_holds_a_session(cluster: Any) -> None:
    c, probe = await cluster.node("node-c"), await cluster.node("probe")
    async with AsyncSessionHost(c, handler=Recorder(), max_sessions=0) as client:
        await client.submit(msg("s-client", "x"))
        assert client.sessions == [] and await client.scan() == 0
    assert await probe.leases.find_holder("s-client") is None
    assert not (await probe.inbox.peek("s-client")).is_empty()


@families("memory-async")
async def test_bad_arguments_are_refused_naming_them(cluster: Any) -> None:
    node = await cluster.node("node-a")

    async def handle(turn: Turn) -> None: ...

    with pytest.raises(InvalidArgumentError, match="max_sessions"):
        AsyncSessionHost(node, handler=handle, max_sessions=-1)
    with pytest.raises(InvalidArgumentError, match="lease_ttl"):
        AsyncSessionHost(node, handler=handle, lease_ttl=timedelta(0))
    with pytest.raises(InvalidArgumentError, match="handler"):
        AsyncSessionHost(node, handler="nope")  # type: ignore[arg-type]
    async with AsyncSessionHost(node, handler=handle) as host:
        with pytest.raises(InvalidArgumentError, match="message"):
            await host.submit({"session_id": "x"})  # type: ignore[arg-type]


def test_every_guarantee_has_a_test() -> None:
    """docs/host.md lists the guarantees; each names the test that checks it."""
    names = defaultdict(list)
    for name in globals():
        if name.startswith("test_"):
            names[name].append(name)
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "host.md").read_text(encoding="utf-8")
    for name in names:
        if name != "test_every_guarantee_has_a_test":
            assert name in doc, f"docs/host.md does not name {name}"
