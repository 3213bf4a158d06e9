"""Browsing the snapshot store on every backend: one entry per stored object, read without the codec."""

from __future__ import annotations

from typing import Any

from aimon_mongo.snapshots import SnapshotEntry, render
from tests.snapshot_stores.samples import transcript, v2_transcript


async def test_an_empty_store_lists_nothing(make_store: Any) -> None:
    store, _ = await make_store("snapshot")
    assert await store.list_snapshots() == []


async def test_entries_carry_name_context_size_time_count_and_version(make_store: Any) -> None:
    store, fs = await make_store("snapshot")
    await store.save("b-task", "reviewer", "agent:reviewer", transcript("b", 4))
    await store.save("a-task", "planner", None, v2_transcript())
    await fs.write("task-snapshot/broken.json", '{"v":7}')
    await fs.write("task-snapshot/odd-context.json", '{"v":1,"subagentName":"x","contextId":"nope","snapshot":{}}')
    await fs.write("task-snapshot/readme.txt", "not a snapshot")
    await fs.mkdir("task-snapshot/sub.json")
    entries = await store.list_snapshots()
    assert [e.task_id for e in entries] == ["a-task", "b-task", "broken", "odd-context"]
    infos = {info.path: info for info in await fs.ls_info("task-snapshot")}
    a, b, broken, odd = entries
    assert a == SnapshotEntry(
        task_id="a-task",
        size=infos["task-snapshot/a-task.json"].size,
        modified=infos["task-snapshot/a-task.json"].modified,
        subagent_name="planner",
        message_count=3,
        format_version=2,
    )
    assert (b.subagent_name, b.context_id, b.message_count, b.format_version) == ("reviewer", "agent:reviewer", 4, 1)
    assert b.size == len(await fs.read("task-snapshot/b-task.json"))
    assert broken.problem == "Unsupported session snapshot envelope version 7 for task broken"
    assert broken.subagent_name is None and broken.message_count is None
    assert (odd.subagent_name, odd.context_id, odd.format_version, odd.message_count) == ("x", None, None, 0)
    assert odd.problem == "contextId is not an agent runtime id (read as absent)"


async def test_a_listed_snapshot_loads_and_renders(make_store: Any) -> None:
    store, _ = await make_store("snapshot")
    await store.save("t-1", "reviewer", None, transcript("r", 2))
    [entry] = await store.list_snapshots()
    text = render((await store.load(entry.task_id)).snapshot)
    assert "r message 0" in text and "r message 1" in text
