"""Oversized inputs: 10,000-level nesting on every backend family, a 20 MiB message (over MongoDB's 16 MiB
BSON limit), 5,000-character VFS paths on every filesystem backend → refused with a clear aimon_mongo
error naming the limit, and nothing stored changes (the state is read before and after)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pydantic import ValidationError

from aimon_mongo.codec.stored_fields import MAX_JSON_DEPTH
from aimon_mongo.errors import AimonStorageError, InvalidArgumentError, InvalidPathError, VfsFileNotFoundError
from aimon_mongo.model import SubmitOptions
from aimon_mongo.model.record import SessionTotals
from aimon_mongo.snapshots import AsyncVfsSessionSnapshotStore
from tests.conformance.helpers import Recorder, message, new_id, signal, wait_until
from tests.reliability.families import family_name, is_mongo
from tests.reliability.nesting import DEEP, nest, nested_json
from tests.reliability.plugin import Counts
from tests.vfs.conftest import backend, fs, make_fs
from tests.vfs.test_vfs_refusals import OPERATIONS

__all__ = ["backend", "fs", "make_fs"]

MIB = 1024 * 1024
TOTALS = SessionTotals(
    turn_count=1, iterations=1, prompt_tokens=1, completion_tokens=1, total_tokens=2, reasoning_tokens=0
)


async def _state(node: Any, session: str) -> list[Any]:
    return list((await node.inbox.peek(session, limit=64)).messages)


def _forged(session: str, options: SubmitOptions) -> Any:
    """A message whose options skipped validation (``model_construct``), as a careless caller builds it."""
    return message(session, turn_id="forged").model_copy(update={"submit_options": options})


def _clear(exc: BaseException, *words: str) -> None:
    assert isinstance(exc, AimonStorageError), f"{type(exc).__name__}: {exc}"
    text = str(exc)
    assert len(text) < 2_000, "the error echoes the value"
    assert all(word in text for word in words), text


async def test_nesting_10000_deep_is_refused_and_nothing_changes(
    cluster: Any, request: pytest.FixtureRequest, reliability_counts: Counts
) -> None:
    node = await cluster.node("node-a")
    session = new_id("deep")
    await node.inbox.deliver(message(session, turn_id="kept"))
    before = await _state(node, session)
    refused = 0

    # Through the model: refused when the options are built, before any store is involved.
    with pytest.raises(ValidationError, match="recursion_depth_exceeded"):
        SubmitOptions(system_prompt_variables={"x": nest(DEEP)})
    refused += 1

    # Past the model (model_construct skips validation): the store refuses it, naming the nesting.
    for field in ("system_prompt_variables", "execution_attributes"):
        forged = _forged(session, SubmitOptions.model_construct(**{field: {"x": nest(DEEP)}}))
        with pytest.raises(Exception) as caught:
            await node.inbox.deliver(forged)
        _clear(caught.value, "nested")
        refused += 1
    deep_signal = signal(session, "node-a").model_copy(update={"payload": {"x": nest(DEEP)}})
    with pytest.raises(Exception) as caught:
        await node.signals.publish(deep_signal)
    _clear(caught.value, "nested")
    refused += 1

    assert await _state(node, session) == before
    batch = await node.inbox.collect(session)
    assert [m.turn_id for m in batch.messages] == ["kept"] and batch.unreadable == ()
    reliability_counts.add("oversized", family_name(request), refused_input=refused)


async def test_the_deepest_value_the_model_accepts_round_trips_or_is_refused_clearly(
    cluster: Any, request: pytest.FixtureRequest
) -> None:
    """What deliver accepts, collect returns: no value is stored that its own reader then quarantines."""
    node = await cluster.node("node-a")
    session = new_id("deep")
    depth = _deepest_accepted()
    options = SubmitOptions(system_prompt_variables={"x": nest(depth - 1)})
    sent = message(session, turn_id="deepest", submit_options=options)
    try:
        entry_id = await node.inbox.deliver(sent)
    except AimonStorageError as exc:
        _clear(exc, "nested")
        assert await node.inbox.is_empty(session)
        return
    batch = await node.inbox.collect(session)
    assert batch.unreadable == (), batch.unreadable[0].reason
    assert batch.messages == (sent.with_id(entry_id),)


def _deepest_accepted() -> int:
    """The deepest ``system_prompt_variables`` value (in objects) the model accepts."""
    low, high = 1, DEEP
    while low < high:
        middle = (low + high + 1) // 2
        try:
            SubmitOptions(system_prompt_variables={"x": nest(middle - 1)})
        except ValidationError:
            high = middle - 1
        else:
            low = middle
    return low


async def test_a_signal_payload_at_the_readers_limit_is_delivered_and_one_level_deeper_is_refused(
    cluster: Any, request: pytest.FixtureRequest, reliability_counts: Counts
) -> None:
    """Receivers decode payloads nested at most MAX_JSON_DEPTH levels: publish refuses deeper ones (the
    model alone would let them through, and every receiver would then fail to decode them)."""
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    session = new_id("deep")
    at_b = Recorder()
    await b.signals.subscribe(session, at_b.handle)
    with pytest.raises(InvalidArgumentError, match=f"signal.payload is nested deeper than {MAX_JSON_DEPTH} levels"):
        await a.signals.publish(signal(session, "node-a", x=nest(MAX_JSON_DEPTH)))
    deep = signal(session, "node-a").model_copy(update={"payload": {"x": nest(DEEP)}})  # past the model
    with pytest.raises(AimonStorageError, match="nested deeper than 64 levels"):
        # PostgreSQL's publish_all publishes the others and raises for the bad one (SignalBusError);
        # the other backends refuse the whole call before sending anything (InvalidArgumentError).
        await a.signals.publish_all([signal(session, "node-a", n=0), deep])
    deepest = signal(session, "node-a", x=nest(MAX_JSON_DEPTH - 1), n=1)
    await a.signals.publish(deepest)
    await wait_until(lambda: any(s.payload.get("n") == 1 for s in at_b.received), "the deepest accepted signal")
    assert [s.payload for s in at_b.received if s.payload.get("n") != 0] == [deepest.payload]
    reliability_counts.add("oversized", family_name(request), refused_input=2)


async def test_a_20_mib_message_is_refused_on_mongo_and_round_trips_elsewhere(
    cluster: Any, request: pytest.FixtureRequest, reliability_counts: Counts
) -> None:
    node = await cluster.node("node-a")
    session = new_id("big")
    await node.inbox.deliver(message(session, turn_id="kept"))
    before = await _state(node, session)
    big = message(session, turn_id="big", text="x" * (20 * MIB))
    if is_mongo(request):
        with pytest.raises(Exception) as caught:
            await node.inbox.deliver(big)
        _clear(caught.value, "16 MiB")
        assert await _state(node, session) == before
        reliability_counts.add("oversized", family_name(request), refused_input=1)
        return
    entry_id = await node.inbox.deliver(big)
    batch = await node.inbox.collect(session)
    assert [m.turn_id for m in batch.messages] == ["kept", "big"]
    assert batch.messages[1] == big.with_id(entry_id)


async def test_a_5000_character_path_is_refused_by_every_operation(
    fs: Any, backend: str, reliability_counts: Counts
) -> None:
    await fs.write("kept/a.txt", b"intact")
    before = (await fs.ls_recursive("."), await fs.read("kept/a.txt"))
    long_paths = ["p" * 5_000, "/".join(["segment"] * 625), "kept/" + "q" * 4_995]
    refused = 0
    for path in long_paths:
        for name, call in OPERATIONS.items():
            with pytest.raises(InvalidPathError) as caught:
                await call(fs, path)
            assert "maximum length of 4096" in str(caught.value), (name, str(caught.value)[-80:])
            refused += 1
    assert (await fs.ls_recursive("."), await fs.read("kept/a.txt")) == before
    reliability_counts.add("oversized", f"vfs-{backend}", refused_input=refused)


async def test_a_segment_longer_than_a_host_name_is_refused_on_local_and_stored_literally_elsewhere(
    fs: Any, backend: str, reliability_counts: Counts
) -> None:
    await fs.write("kept/a.txt", b"intact")
    await fs.write("ok.txt", b"source of the copy / move operations")
    before = (await fs.ls_recursive("."), await fs.read("kept/a.txt"))
    path = "kept/" + "n" * 300
    if backend.startswith("local-"):
        for name, call in OPERATIONS.items():
            if name in ("copy_source", "move_source"):  # a name the host cannot hold cannot exist
                with pytest.raises(VfsFileNotFoundError):
                    await call(fs, path)
                continue
            with pytest.raises(InvalidPathError) as caught:
                await call(fs, path)
            assert "name limit of 255 bytes" in str(caught.value), (name, str(caught.value)[-80:])
        assert (await fs.ls_recursive("."), await fs.read("kept/a.txt")) == before
        reliability_counts.add("oversized", f"vfs-{backend}", refused_input=len(OPERATIONS))
        return
    await fs.write(path, b"long name")
    assert await fs.read(path) == b"long name"
    assert await fs.ls_recursive(".") == sorted([*before[0], path])


async def test_a_budget_override_deeper_than_the_readers_limit_is_refused_and_the_record_kept(
    cluster: Any, request: pytest.FixtureRequest, reliability_counts: Counts
) -> None:
    """``budget_override`` is a plain dict argument (no model in between): too deep is refused naming the
    limit, the record stays as it was and stays loadable; the deepest accepted one round-trips."""
    node = await cluster.node("node-a")
    session = new_id("deep")
    await node.records.provision(session, "assistant", 1)
    await node.records.set_totals_and_budget_override(session, TOTALS, {"kept": True}, 1)
    before = await node.records.load(session)
    for depth in (MAX_JSON_DEPTH, DEEP):
        with pytest.raises(Exception) as caught:
            await node.records.set_totals_and_budget_override(session, TOTALS, {"x": nest(depth)}, 1)
        _clear(caught.value, "nested")
    assert await node.records.load(session) == before
    deepest = {"x": nest(MAX_JSON_DEPTH - 1)}
    await node.records.set_totals_and_budget_override(session, TOTALS, deepest, 1)
    loaded = await node.records.load(session)
    assert loaded is not None and loaded.budget_override == deepest
    reliability_counts.add("oversized", family_name(request), refused_input=2)


async def test_a_20_mib_transcript_is_refused_on_mongo_and_round_trips_elsewhere(
    cluster: Any, request: pytest.FixtureRequest, reliability_counts: Counts
) -> None:
    node = await cluster.node("node-a")
    session = new_id("big")
    await node.records.provision(session, "assistant", 1)
    await node.records.merge_transcript(session, "kept", 1)
    before = await node.records.load(session)
    big = "t" * (20 * MIB)
    if is_mongo(request):
        with pytest.raises(Exception) as caught:
            await node.records.merge_transcript(session, big, 1)
        _clear(caught.value, "16 MiB")
        assert await node.records.load(session) == before
        reliability_counts.add("oversized", family_name(request), refused_input=1)
        return
    await node.records.merge_transcript(session, big, 1)
    loaded = await node.records.load(session)
    assert loaded is not None and loaded.transcript == big


async def test_a_stored_snapshot_nested_10000_deep_is_reported_unreadable_and_left_as_it_is(
    make_fs: Any, backend: str, caplog: pytest.LogCaptureFixture, reliability_counts: Counts
) -> None:
    """Snapshots are read back from the filesystem: a stored envelope nested 10,000 deep (in the snapshot
    and in the envelope itself) loads as ``None`` with a WARN naming the task, is listed with its problem,
    and the stored bytes are untouched (no RecursionError escapes)."""
    fs = await make_fs(chunk_size=255 * 1024)  # one GridFS chunk per object: the stand-in is slow
    store = AsyncVfsSessionSnapshotStore(fs)
    bodies = {
        "deep-snapshot": '{"v":1,"subagentName":"researcher","snapshot":' + nested_json(DEEP) + "}",
        "deep-envelope": nested_json(DEEP),
    }
    for task_id, body in bodies.items():
        await fs.write(store.path_of(task_id), body.encode())
    with caplog.at_level(logging.WARNING):
        for task_id in bodies:
            assert await store.load(task_id) is None
    warned = " ".join(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert all(task_id in warned for task_id in bodies), warned
    listed = {entry.task_id: entry for entry in await store.list_snapshots()}
    assert set(listed) == set(bodies)
    assert all(entry.problem for entry in listed.values())
    for task_id, body in bodies.items():
        assert await fs.read(store.path_of(task_id)) == body.encode()
    reliability_counts.add("oversized", f"vfs-{backend}", refused_input=len(bodies))
