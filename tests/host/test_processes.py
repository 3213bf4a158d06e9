"""Hosts in separate processes on one PostgreSQL schema: a holder killed with SIGKILL loses nothing (its
claimed batches are adopted by the other process), a duplicate comes only from a turn the killed process had
not acknowledged, and SIGTERM drains."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from aimon_mongo.host import AsyncSessionHost, Turn
from aimon_mongo.model import InboundMessage
from tests.host.conftest import eventually, families

ROOT = Path(__file__).resolve().parents[2]


def start(cluster: Any, node: str, out: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.host.host_process", cluster.dsn, cluster.schema, node, str(out)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    return process


async def never(turn: Turn) -> None:
    raise AssertionError("a pure client runs no turn")


def handled(outs: list[Path]) -> list[list[str]]:
    lines = [line.split(" ", 4) for out in outs if out.exists() for line in out.read_text().splitlines()]
    return [line for line in lines if len(line) == 5]


@families("postgres-async")
async def test_a_killed_host_process_loses_nothing_and_a_terminated_one_drains(cluster: Any, tmp_path: Path) -> None:
    outs = [tmp_path / "node-1.txt", tmp_path / "node-2.txt"]
    processes = {"node-1": start(cluster, "node-1", outs[0]), "node-2": start(cluster, "node-2", outs[1])}
    sessions = [f"p-{i}" for i in range(4)]
    sent: list[str] = []
    try:
        front = await cluster.node("front")
        async with AsyncSessionHost(front, handler=never, max_sessions=0) as client:

            async def send(count: int) -> None:
                for _ in range(count):
                    text = f"m{len(sent)}"
                    await client.submit(InboundMessage.text(sessions[len(sent) % 4], text, agent_ref="a"))
                    sent.append(text)

            await send(40)
            await eventually(lambda: len(handled(outs)) >= 10, "the hosts are running turns", 60)
            holders = Counter()
            for session in sessions:
                lease = await front.leases.find_holder(session)
                if lease is not None:
                    holders[lease.holder_id] += 1
            victim = holders.most_common(1)[0][0] if holders else "node-1"
            processes[victim].send_signal(signal.SIGKILL)
            processes[victim].wait(30)
            await send(20)
            await eventually(lambda: {line[4] for line in handled(outs)} >= set(sent), "every message handled", 90)
        survivor = next(name for name in processes if name != victim)
        processes[survivor].send_signal(signal.SIGTERM)
        assert processes[survivor].wait(60) == 0
        for session in sessions:
            assert await front.leases.find_holder(session) is None  # drained: released
            assert await front.inbox.is_empty(session)  # every entry acknowledged
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait(30)
    lines = handled(outs)
    by_text: dict[str, list[list[str]]] = defaultdict(list)
    for line in lines:
        by_text[line[4]].append(line)
    assert set(by_text) == set(sent)  # none lost
    for text, seen in by_text.items():
        if len(seen) > 1:  # a duplicate: its first handling was a turn the killed process never acknowledged
            assert seen[0][0] == victim, (text, seen)
            assert all(later[0] == survivor and int(later[2]) >= 2 for later in seen[1:]), (text, seen)
    print(f"{len(sent)} messages, {sum(len(s) - 1 for s in by_text.values())} duplicates, victim {victim}")
