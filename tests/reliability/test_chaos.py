"""Chaos (issue 28, item 3): three session-host processes on one store while holders are SIGKILLed, SIGSTOPped
past their lease (then resumed), one node's connections are cut at random through a TCP proxy, handlers raise
once, and one poison message fails every time.

Asserted per backend family (MongoDB stand-in, Redis, Redis Cluster, PostgreSQL, PostgreSQL through PgBouncer):

* **0 lost**: every submitted message is in a turn that returned (its batch acknowledged), the poison one in
  the quarantine instead (and nothing else there);
* **duplicates** (a message in more than one returned turn) are counted and bounded by the largest batch times
  the number of faults: only a turn cut before its acknowledgement repeats;
* **0 stale writes accepted**: every turn does a fenced ``records.merge_transcript`` under its token; no
  accepted write *started* after an accepted write with a higher token for the session had *finished*
  (monotonic clock of the machine, shared by the processes); refused writes are counted;
* **adoption** of a killed or stopped holder's sessions within ``lease_ttl + scan_interval + slack``
  (a bound, not a timing measurement; the max and median go to the counts table in milliseconds).

The control runs the at-most-once loop on ``collect`` and kills a node right after a collect returned: the
batch it held is lost (asserted ≥ 1), so the measurement can fail.

CI sizes: 6 sessions, 48 messages, one fault of each kind; ``--scale``: 12 sessions, 600 messages, three rounds
of faults. Redis Cluster has no proxy cut (its client follows redirections to the nodes' own ports).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from aimon_mongo.host import AsyncSessionHost, Turn
from aimon_mongo.model import InboundMessage
from tests.conformance.backends import load_all
from tests.fixtures.tcp_proxy import TcpProxy
from tests.reliability.chaos_host import POISON, RAISE_ONCE
from tests.reliability.lease_worker import describe
from tests.reliability.plugin import Counts, Sizes

ROOT = Path(__file__).resolve().parents[2]
CHAOS_FAMILIES = ("mongo-async", "redis-async", "redis-cluster-async", "postgres-async", "postgres-pgbouncer-async")
TTL = 2.0
SCAN = 0.5
SLACK = 6.0
"""Adoption bound slack (seconds): a new holder's first write follows its claim on a two-core machine shared
by three processes and the servers."""
MAX_ATTEMPTS = 8
"""Hand-outs before the quarantine: a normal message can fail a few times in a row (its turn raised once by
design, then met a kill, a stop or a cut), the poison one fails every time."""
CUT_CHANCE = 0.03
WAIT = 120.0

_FAMILIES = load_all()


@pytest.fixture(params=[pytest.param(_FAMILIES[n], id=n, marks=_FAMILIES[n].marks) for n in CHAOS_FAMILIES])
async def chaos_cluster(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    async with request.param.factory(request) as built:
        yield built


class Node:
    def __init__(self, name: str, process: subprocess.Popen[str], out: Path) -> None:
        self.name = name
        self.process = process
        self.out = out

    def signal(self, sig: signal.Signals) -> None:
        self.process.send_signal(sig)

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, signal.SIGCONT)
                self.process.kill()
        self.process.wait(30)


async def start(spec: dict[str, Any], tmp: Path) -> Node:
    out = tmp / f"{spec['node']}.jsonl"
    with (tmp / f"{spec['node']}.stderr").open("w") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.chaos_host", json.dumps({**spec, "out": str(out)})],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
        )  # fmt: skip
    node = Node(spec["node"], process, out)
    line = await asyncio.to_thread(readline, node)
    assert line == "ready", f"{spec['node']} did not start: {(tmp / (spec['node'] + '.stderr')).read_text()[-3000:]}"
    return node


def readline(node: Node) -> str:
    assert node.process.stdout is not None
    return node.process.stdout.readline().strip()


def events(nodes: list[Node]) -> list[dict[str, Any]]:
    found = []
    for node in nodes:
        if node.out.exists():
            for line in node.out.read_text().splitlines():
                with contextlib.suppress(json.JSONDecodeError):  # a SIGKILL can cut the last line short
                    found.append(json.loads(line))
    return found


async def eventually(predicate: Any, what: str, deadline: float = WAIT, every: float = 0.05) -> None:
    """Poll ``predicate`` until it holds (a deadline, not a timing assertion)."""
    end = time.monotonic() + deadline
    while not await predicate():
        if time.monotonic() > end:
            raise AssertionError(f"not within {deadline:g} s: {what}")
        await asyncio.sleep(every)


def through(conn: dict[str, Any], proxy_for: Any) -> dict[str, Any]:
    """``conn`` with its store address (PgBouncer's for the pooled family) replaced by a proxy's."""
    key = (
        "bouncer_dsn"
        if conn.get("bouncer_dsn")
        else {"mongo": "uri", "redis": "url", "postgres": "dsn"}[conn["family"]]
    )
    address = conn[key]
    found = re.search(r"(?:127\.0\.0\.1|localhost):(\d+)", address) or re.search(r"port=(\d+)", address)
    if found is None:
        raise ValueError(f"no port in the store address of family {conn['family']!r}")
    proxy = proxy_for(int(found.group(1)))
    rewritten = address[: found.start(1)] + str(proxy.port) + address[found.end(1) :]
    return {**conn, key: rewritten}


@contextlib.contextmanager
def proxies() -> Iterator[Any]:
    made: list[TcpProxy] = []

    def make(port: int) -> TcpProxy:
        made.append(TcpProxy("127.0.0.1", port))
        return made[-1]

    try:
        yield make, made
    finally:
        for proxy in made:
            proxy.close()


def where(cluster: Any, request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    """The family's name (as the counts table shows it) and where a host process finds its store."""
    conn = describe(cluster)
    assert conn is not None
    return request.node.callspec.params["chaos_cluster"].name, conn


async def never(turn: Turn) -> None:
    raise AssertionError("a pure client runs no turn")


async def test_chaos_hosts_lose_nothing_and_refuse_stale_writes(
    chaos_cluster: Any, request: pytest.FixtureRequest, sizes: Sizes, reliability_counts: Counts, tmp_path: Path
) -> None:
    cluster, family, conn = chaos_cluster, *where(chaos_cluster, request)
    sessions = [f"chaos-{i}" for i in range(sizes.pick(ci=6, full=12))]
    poison_session = "chaos-poison"
    rounds = sizes.pick(ci=1, full=3)
    per_chunk = sizes.pick(ci=8, full=25)  # messages sent before each fault; 6 chunks a round
    spec = {"conn": conn, "mode": "host", "ttl": TTL, "scan": SCAN, "max_attempts": MAX_ATTEMPTS}
    front = await cluster.node("front")
    sent: list[str] = []
    poison_entry = ""
    nodes: list[Node] = []
    cuts_on = not conn.get("cluster")
    kills = stops = 0
    cuts_active = False
    adoption: list[float] = []
    with proxies() as (make_proxy, made):
        try:
            faulty = {**spec, "conn": through(conn, make_proxy)} if cuts_on else spec
            proxied = {"host-0"}  # the node whose connections go through the proxy (its replacements too)
            for i in range(3):
                nodes.append(await start({**(faulty if i == 0 else spec), "node": f"host-{i}"}, tmp_path))
            async with AsyncSessionHost(front, handler=never, max_sessions=0) as client:

                async def send(count: int) -> None:
                    for _ in range(count):
                        n = len(sent)
                        text = f"{RAISE_ONCE}m{n}" if n % 7 == 3 else f"m{n}"
                        await client.submit(InboundMessage.text(sessions[n % len(sessions)], text, agent_ref="a"))
                        sent.append(text)

                async def handled_some(count: int) -> bool:
                    return sum(len(e["m"]) for e in events(nodes) if e["e"] == "turn") >= count

                async def holders() -> dict[str, str]:
                    found = {}
                    for session in sessions:
                        lease = await front.leases.find_holder(session)
                        if lease is not None:
                            found[session] = lease.holder_id
                    return found

                async def adopted_after(victim: str, held: list[str], since: int) -> bool:
                    firsts: dict[str, int] = {}
                    for e in events(nodes):
                        if e["e"] == "write" and e["s"] in held and e["n"] != victim and e["a"] > since:
                            firsts[e["s"]] = min(firsts.get(e["s"], e["a"]), e["a"])
                    if len(firsts) < len(held):
                        return False
                    adoption.extend((first - since) / 1e9 for first in firsts.values())
                    return True

                in_turn_node: list[str] = []

                async def in_turn(live: set[str]) -> bool:
                    open_turns: dict[tuple[str, str, int], int] = Counter()
                    for e in events(nodes):
                        if e["e"] in ("begin", "write") and e["n"] in live:
                            open_turns[(e["n"], e["s"], e["t"])] += 1 if e["e"] == "begin" else -1
                    busy = [key for key, n in open_turns.items() if n > 0]
                    in_turn_node[:] = [busy[0][0]] if busy else []
                    if not busy:
                        await send(1)  # keep turns coming until one is caught in the act
                    return bool(busy)

                async def fault(kind: str) -> None:
                    nonlocal kills, stops, cuts_active
                    await eventually(lambda: handled_some(len(sent) // 2), "the hosts are running turns")
                    live = {n.name for n in nodes if n.process.poll() is None}
                    counted = Counter(h for h in (await holders()).values() if h in live)
                    victim_name = counted.most_common(1)[0][0] if counted else sorted(live)[0]
                    if kind == "stop":  # stop a holder inside a turn, before its write: on SIGCONT it writes late
                        await eventually(lambda: in_turn(live), "a host inside a turn", every=0.01)
                        victim_name = in_turn_node[0]
                    victim = next(n for n in nodes if n.name == victim_name)
                    held = [s for s, h in (await holders()).items() if h == victim_name]
                    since = time.monotonic_ns()
                    victim.signal(signal.SIGKILL if kind == "kill" else signal.SIGSTOP)
                    for session in held:  # work waiting for an adopter on every session the victim held
                        await client.submit(InboundMessage.text(session, f"m{len(sent)}", agent_ref="a"))
                        sent.append(f"m{len(sent)}")
                    await eventually(lambda: adopted_after(victim_name, held, since), f"adoption of {held}")
                    if kind == "kill":
                        kills += 1
                        victim.process.wait(30)
                        name = f"host-{len(nodes)}"
                        if victim_name in proxied:
                            proxied.add(name)
                        cutting = cuts_active
                        if cutting:  # a host fails its start on a cut connection: start it on a calm network
                            made[0].calm()
                        nodes.append(await start({**(faulty if name in proxied else spec), "node": name}, tmp_path))
                        if cutting:
                            made[0].random_cuts(seed=len(sent), chance=CUT_CHANCE)
                    else:
                        stops += 1
                        victim.signal(signal.SIGCONT)  # resumed past its lease: its writes must be refused

                # The poison message has a session of its own: a batch that raises is handed out again whole, so
                # messages batched with it would share its quarantine (see docs/testing.md).
                poison_entry = await client.submit(InboundMessage.text(poison_session, POISON, agent_ref="a"))
                for _ in range(rounds):
                    await send(per_chunk)
                    if cuts_on:
                        made[0].random_cuts(seed=len(sent), chance=CUT_CHANCE)
                        cuts_active = True
                    await send(per_chunk)
                    await fault("kill")
                    await send(per_chunk)
                    await fault("stop")
                    if cuts_on:
                        made[0].calm()
                        cuts_active = False
                    await send(per_chunk)
                    await fault("kill")
                    await send(per_chunk)

                expected = set(sent)

                async def done() -> bool:
                    seen = {t for e in events(nodes) if e["e"] == "turn" for t in e["m"]}
                    quarantined = await front.inbox.list_quarantined(poison_session)
                    return seen >= expected and any(q.entry_id == poison_entry for q in quarantined)

                try:
                    await eventually(done, "every message handled and the poison one quarantined")
                except AssertionError as exc:
                    seen = {t for e in events(nodes) if e["e"] == "turn" for t in e["m"]}
                    quarantined = await front.inbox.list_quarantined(None)
                    missing = sorted(expected - seen)
                    raise AssertionError(
                        f"{exc}; not handled: {missing[:20]}; quarantined: {[q.error for q in quarantined]}; "
                        f"holders {await holders()}; live {[n.name for n in nodes if n.process.poll() is None]}"
                    ) from None
        finally:
            for node in nodes:
                node.stop()
        drops = sum(p.random_drops for p in made)

    log = events(nodes)
    turns = [e for e in log if e["e"] == "turn"]
    seen = Counter(t for e in turns for t in e["m"])
    lost = sorted(expected - set(seen))
    duplicates = sum(n - 1 for n in seen.values())
    quarantined = await front.inbox.list_quarantined(None)
    writes = [e for e in log if e["e"] == "write"]
    refused = sum(1 for w in writes if not w["ok"])
    stale: list[tuple[Any, Any]] = []
    by_session: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for w in writes:
        if w["ok"]:
            by_session[w["s"]].append(w)
    for accepted in by_session.values():
        stale += [(a, b) for a in accepted for b in accepted if a["b"] < b["a"] and b["t"] < a["t"]]
    largest_batch = max(len(e["m"]) for e in turns)
    faults = kills + stops + drops
    bound = TTL + SCAN + SLACK
    reliability_counts.add(
        "chaos-host", family, messages=len(sent) + 1, duplicates=duplicates, lost=len(lost),
        refused_stale=refused, quarantined=len(quarantined), errors=len(stale),
        adopt_max_ms=round(max(adoption) * 1000), adopt_median_ms=round(statistics.median(adoption) * 1000),
    )  # fmt: skip
    print(
        f"{family}: {len(sent) + 1} messages, lost {len(lost)}, duplicates {duplicates} (largest batch "
        f"{largest_batch}, faults {faults}: {kills} kills, {stops} stops, {drops} cuts), refused stale writes "
        f"{refused}, accepted stale writes {len(stale)}, adoption max {max(adoption):.2f} s median "
        f"{statistics.median(adoption):.2f} s (bound {bound:g} s)"
    )
    assert lost == [], lost
    assert POISON not in seen
    assert [q.entry_id for q in quarantined] == [poison_entry]
    assert duplicates <= largest_batch * faults, (duplicates, largest_batch, faults)
    assert stale == [], stale[:3]
    assert kills == 2 * rounds and stops == rounds
    assert max(adoption) <= bound, (max(adoption), bound)


async def test_chaos_control_collect_loses_what_a_killed_node_collected(
    chaos_cluster: Any, request: pytest.FixtureRequest, sizes: Sizes, reliability_counts: Counts, tmp_path: Path
) -> None:
    cluster, family, conn = chaos_cluster, *where(chaos_cluster, request)
    sessions = [f"control-{i}" for i in range(sizes.pick(ci=3, full=12))]
    front = await cluster.node("front")
    sent = [f"m{n}" for n in range(sizes.pick(ci=24, full=300))]
    await front.inbox.deliver_many(
        [InboundMessage.text(sessions[n % len(sessions)], t, agent_ref="a") for n, t in enumerate(sent)]
    )
    spec = {"conn": conn, "mode": "collect", "sessions": sessions}
    nodes: list[Node] = []
    try:
        victim = await start({**spec, "node": "collector-0", "stall": True}, tmp_path)
        nodes.append(victim)
        said = await asyncio.to_thread(readline, victim)
        assert said.startswith("collected "), said
        held = set(json.loads(said.removeprefix("collected ")))
        victim.signal(signal.SIGKILL)  # right after its collect returned, before its turn ran
        victim.process.wait(30)
        for i in (1, 2):
            nodes.append(await start({**spec, "node": f"collector-{i}"}, tmp_path))

        async def rest_handled() -> bool:
            return {t for e in events(nodes) if e["e"] == "turn" for t in e["m"]} >= set(sent) - held

        await eventually(rest_handled, "the survivors handled every message the killed node had not collected")
    finally:
        for node in nodes:
            node.stop()
    seen = {t for e in events(nodes) if e["e"] == "turn" for t in e["m"]}
    lost = [t for t in sent if t not in seen]
    reliability_counts.add("chaos-collect-control", family, messages=len(sent), lost=len(lost))
    print(f"{family} control (collect, at most once): {len(sent)} messages, lost {len(lost)}")
    assert lost == sorted(held, key=sent.index)  # exactly the batch the killed node held
    assert lost, "the at-most-once control lost nothing: the chaos run could not have shown a loss"
