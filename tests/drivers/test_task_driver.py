"""Background-task drivers: the atomicity of ``change`` (the conditional write the service's terminal rule
rests on) and of ``remove``, on every backend family, with real concurrency (separate nodes, so separate
connections; the sync flavour runs each call in its own thread)."""

from __future__ import annotations

import asyncio
from typing import Any

from aimon_mongo.model import TERMINAL_STATES, TaskState
from aimon_mongo.services.task_change import LostRace, TaskChange
from tests.conformance.helpers import new_id, now_ms
from tests.conformance.test_tasks import task
from tests.drivers.conftest import driver_of

CONTENDERS = 6


def won(result: Any) -> bool:
    """A change that landed: neither refused (``None``) nor beaten by another writer (``LOST_RACE``)."""
    return result is not None and not isinstance(result, LostRace)


async def drivers(cluster: Any, count: int) -> list[Any]:
    return [driver_of((await cluster.node(f"node-{i}")).tasks) for i in range(count)]


async def test_concurrent_terminal_changes_of_one_task_have_exactly_one_winner(cluster: Any) -> None:
    node = await cluster.node("node-0")
    contenders = await drivers(cluster, CONTENDERS)
    terminal = sorted(TERMINAL_STATES)
    for _ in range(3):
        task_id = new_id("t")
        await node.tasks.put(task(task_id, TaskState.RUNNING))
        changes = [TaskChange(state=terminal[i % len(terminal)], end_time=now_ms()) for i in range(CONTENDERS)]
        results = await asyncio.gather(
            *(d.change(task_id, TERMINAL_STATES, c) for d, c in zip(contenders, changes, strict=True))
        )
        winners = [i for i, result in enumerate(results) if won(result)]
        assert len(winners) == 1, results
        stored = await node.tasks.find(task_id)
        assert stored is not None and stored.state is changes[winners[0]].state
        assert stored.end_time == changes[winners[0]].end_time


async def test_a_refused_heartbeat_never_lands_and_never_revives_a_terminal_task(cluster: Any) -> None:
    node = await cluster.node("node-0")
    contenders = await drivers(cluster, CONTENDERS)
    task_id = new_id("t")
    first = now_ms()
    await node.tasks.put(task(task_id, TaskState.RUNNING, last_heartbeat=first))
    beats = [TaskChange(last_heartbeat=first.replace(year=first.year + 1 + i)) for i in range(CONTENDERS - 1)]
    finish = TaskChange(state=TaskState.COMPLETED, end_time=now_ms())
    results = await asyncio.gather(
        *(d.change(task_id, TERMINAL_STATES, c) for d, c in zip(contenders, [*beats, finish], strict=True))
    )
    assert won(results[-1]) or isinstance(results[-1], LostRace)
    landed = {c.last_heartbeat for c, r in zip(beats, results[:-1], strict=True) if won(r)}
    stored = await node.tasks.find(task_id)
    assert stored is not None
    if won(results[-1]):
        assert stored.state is TaskState.COMPLETED
    assert stored.last_heartbeat in landed | {first}
    # once terminal, a heartbeat is refused and changes nothing
    await contenders[0].change(task_id, TERMINAL_STATES, finish)
    done = await node.tasks.find(task_id)
    assert done is not None and done.state is TaskState.COMPLETED
    late = TaskChange(last_heartbeat=first.replace(year=first.year + 50))
    assert await contenders[1].change(task_id, TERMINAL_STATES, late) is None
    assert await node.tasks.find(task_id) == done


async def test_change_keeps_the_states_the_service_names_and_no_others(node: Any) -> None:
    driver = driver_of(node.tasks)
    task_id = new_id("t")
    await node.tasks.put(task(task_id, TaskState.COMPLETED, end_time=now_ms()))
    # the guard is the caller's: with nothing kept, even a terminal task changes
    assert won(await driver.change(task_id, frozenset(), TaskChange(state=TaskState.RUNNING)))
    changed = await node.tasks.find(task_id)
    assert changed is not None and changed.state is TaskState.RUNNING and changed.end_time is not None
    assert await driver.change(task_id, frozenset({TaskState.RUNNING}), TaskChange(state=TaskState.FAILED)) is None
    assert await node.tasks.find(task_id) == changed
    assert await driver.change(new_id("unknown"), frozenset(), TaskChange(state=TaskState.RUNNING)) is None


async def test_concurrent_removes_of_one_task_have_exactly_one_winner(cluster: Any) -> None:
    node = await cluster.node("node-0")
    contenders = await drivers(cluster, CONTENDERS)
    task_id = new_id("t")
    await node.tasks.put(task(task_id))
    results = await asyncio.gather(*(d.remove(task_id) for d in contenders))
    assert sorted(results) == [False] * (CONTENDERS - 1) + [True]
    assert await node.tasks.find(task_id) is None
