"""Background tasks: put/find/remove, transitions with a final terminal state, heartbeat, list."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model import BackgroundTask, Principal, PrincipalType, TaskQuery, TaskState
from tests.conformance.helpers import new_id, now_ms

OWNER = Principal.user("u-1", "Ann")


def task(task_id: str, state: TaskState = TaskState.PENDING, **extra: Any) -> BackgroundTask:
    return BackgroundTask(task_id=task_id, subagent_name="researcher", state=state, start_time=now_ms(), **extra)


async def test_put_find_overwrite_remove(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    task_id = new_id("t")
    full = task(
        task_id,
        description="look around",
        output_offset=17,
        owner=OWNER,
        agent_runtime_id="agent:researcher:x",
        last_heartbeat=now_ms(),
    )
    await a.tasks.put(full)
    assert await b.tasks.find(task_id) == full
    minimal = task(task_id, TaskState.RUNNING)
    await b.tasks.put(minimal)  # full overwrite: optional fields are gone
    assert await a.tasks.find(task_id) == minimal
    assert await a.tasks.remove(task_id) is True
    assert await a.tasks.remove(task_id) is False
    assert await a.tasks.find(task_id) is None


async def test_transitions_and_terminal_states_are_final(node: Any) -> None:
    task_id = new_id("t")
    await node.tasks.put(task(task_id))
    running = await node.tasks.transition(task_id, TaskState.RUNNING)
    assert running is not None and running.state is TaskState.RUNNING and running.end_time is None
    beat = now_ms()
    beaten = await node.tasks.heartbeat(task_id, beat)
    assert beaten is not None and beaten.last_heartbeat == beat
    before = now_ms() - timedelta(seconds=1)
    completed = await node.tasks.transition(task_id, TaskState.COMPLETED)
    assert completed is not None and completed.state is TaskState.COMPLETED
    assert completed.end_time is not None and completed.end_time >= before
    for target in TaskState:
        assert await node.tasks.transition(task_id, target) is None
    assert await node.tasks.heartbeat(task_id, now_ms()) is None
    assert await node.tasks.find(task_id) == completed
    assert await node.tasks.transition(new_id("unknown"), TaskState.RUNNING) is None
    assert await node.tasks.heartbeat(new_id("unknown"), now_ms()) is None


async def test_pending_can_be_killed(node: Any) -> None:
    task_id = new_id("t")
    await node.tasks.put(task(task_id))
    killed = await node.tasks.transition(task_id, TaskState.KILLED)
    assert killed is not None and killed.state is TaskState.KILLED and killed.end_time is not None


async def test_concurrent_terminal_transitions_have_one_winner(cluster: Any) -> None:
    nodes = [await cluster.node(f"node-{i}") for i in range(3)]
    task_id = new_id("t")
    await nodes[0].tasks.put(task(task_id, TaskState.RUNNING))
    targets = [TaskState.COMPLETED, TaskState.FAILED, TaskState.KILLED]
    results = await asyncio.gather(*(n.tasks.transition(task_id, t) for n, t in zip(nodes, targets, strict=True)))
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    assert (await nodes[0].tasks.find(task_id)) == winners[0]


async def test_list_by_query(node: Any) -> None:
    other_owner = Principal.user("u-2", "Bob")
    runtime = new_id("agent:r")
    ids = {name: new_id(name) for name in ("p1", "r1", "r2", "done")}
    await node.tasks.put(task(ids["p1"], owner=OWNER, agent_runtime_id=runtime))
    await node.tasks.put(task(ids["r1"], TaskState.RUNNING, owner=OWNER))
    await node.tasks.put(task(ids["r2"], TaskState.RUNNING, owner=other_owner, agent_runtime_id=runtime))
    await node.tasks.put(task(ids["done"], TaskState.COMPLETED, end_time=now_ms()))

    async def listed(query: TaskQuery | None) -> set[str]:
        return {t.task_id for t in await node.tasks.list(query)} & set(ids.values())

    assert await listed(None) == set(ids.values())
    assert await listed(TaskQuery()) == set(ids.values())
    assert await listed(TaskQuery(state=TaskState.RUNNING)) == {ids["r1"], ids["r2"]}
    assert await listed(TaskQuery(owner=OWNER)) == {ids["p1"], ids["r1"]}
    assert await listed(TaskQuery(owner=Principal.user("u-1", "another display name"))) == {ids["p1"], ids["r1"]}
    assert await listed(TaskQuery(agent_runtime_id=runtime)) == {ids["p1"], ids["r2"]}
    assert await listed(TaskQuery(state=TaskState.RUNNING, agent_runtime_id=runtime)) == {ids["r2"]}
    assert await listed(TaskQuery(state=TaskState.RUNNING, owner=OWNER, agent_runtime_id=runtime)) == set()
    for t in await node.tasks.list(TaskQuery(state=TaskState.RUNNING)):
        assert t.state is TaskState.RUNNING


async def test_a_forged_query_is_refused_naming_its_field(node: Any) -> None:
    hostile_owner = Principal.model_construct(type=PrincipalType.USER, id={"$ne": None}, display_name="x")
    forged = [
        (TaskQuery.model_construct(state="RUNNING"), "query.state"),
        (TaskQuery.model_construct(owner={"type": "USER", "id": "u-1"}), "query.owner"),
        (TaskQuery.model_construct(owner=hostile_owner), "query.owner.id"),
        (TaskQuery.model_construct(agent_runtime_id={"$exists": True}), "query.agent_runtime_id"),
    ]
    for query, field in forged:
        with pytest.raises(InvalidArgumentError, match=field):
            await node.tasks.list(query)


async def test_a_forged_task_id_is_refused_and_nothing_is_stored(node: Any) -> None:
    forged = BackgroundTask.model_construct(
        task_id={"$ne": None}, subagent_name="r", description="", state=TaskState.RUNNING, start_time=now_ms()
    )
    before = {t.task_id for t in await node.tasks.list()}
    with pytest.raises(InvalidArgumentError, match="task_id"):
        await node.tasks.put(forged)
    assert {t.task_id for t in await node.tasks.list()} == before
