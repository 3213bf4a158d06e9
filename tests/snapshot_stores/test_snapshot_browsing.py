"""Browsing the snapshot store on every backend: one entry per stored object, read without the codec."""

from __future__ import annotations

from typing import Any

from aimon_mongo.snapshots import SnapshotEntry, render
from tests.snapshot_stores.conftest import raw
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


async def test_list_snapshots_reads_no_envelope_when_the_listing_has_the_attributes(
    make_store: Any, monkeypatch: Any
) -> None:
    store, fs = await make_store("snapshot")
    await store.save("b-task", "reviewer", "agent:reviewer", transcript("b", 4))
    await store.save("a-task", "planner", None, v2_transcript())
    before = await store.list_snapshots()
    target = raw(fs)

    def no_reads(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("list_snapshots read an envelope")

    if target.supports_attributes:  # GridFS and memory: the listing alone
        monkeypatch.setattr(target, "read", no_reads)
    after = await store.list_snapshots()
    assert after == before
    assert [(e.task_id, e.subagent_name, e.context_id, e.message_count, e.format_version) for e in after] == [
        ("a-task", "planner", None, 3, 2),
        ("b-task", "reviewer", "agent:reviewer", 4, 1),
    ]


async def test_old_snapshots_without_attributes_are_listed_from_their_envelopes(make_store: Any) -> None:
    store, fs = await make_store("snapshot")
    await store.save("new", "reviewer", "agent:reviewer", transcript("b", 4))
    # What an older build (or a foreign writer) stores: the same envelope, no listing attributes.
    await fs.write("task-snapshot/old.json", await fs.read("task-snapshot/new.json"))
    [new, old] = sorted(await store.list_snapshots(), key=lambda e: e.task_id)
    assert [info.custom_metadata.get("snapshotSubagentName") for info in await fs.ls_info("task-snapshot")] == [
        "reviewer" if raw(fs).supports_attributes else None,
        None,
    ]
    assert old.model_copy(update={"task_id": "new", "modified": new.modified}) == new
    assert (old.subagent_name, old.context_id, old.message_count, old.format_version) == (
        "reviewer",
        "agent:reviewer",
        4,
        1,
    )
    loaded = await store.load("old")
    assert loaded is not None and loaded.agent_runtime_id == "agent:reviewer"
