"""The filesystem snapshot store on every backend (memory, local, GridFS; async and sync)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from aimon_mongo.errors import InsufficientStorageError, InvalidArgumentError
from aimon_mongo.snapshots import JsonSessionSnapshotCodec, ResumableSession, SessionLogFormat, SessionSnapshot
from tests.snapshot_stores.conftest import raw
from tests.snapshot_stores.samples import SECRET, Failing, transcript, v2_transcript

PATH = "task-snapshot/t-1.json"


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


async def test_save_load_evict(make_store: Any) -> None:
    store, fs = await make_store("snapshot")
    snapshot = transcript("a")
    await store.save("t-1", "reviewer", "agent:reviewer", snapshot)
    assert await fs.exists(PATH)
    assert await store.load("t-1") == ResumableSession(
        subagent_name="reviewer", agent_runtime_id="agent:reviewer", snapshot=snapshot
    )
    await store.evict("t-1")
    assert await store.load("t-1") is None
    assert not await fs.exists(PATH)


async def test_untagged_and_version_2_snapshots_round_trip(make_store: Any) -> None:
    store, _ = await make_store("snapshot")
    snapshot = v2_transcript()
    await store.save("t-2", "planner", None, snapshot)
    loaded = await store.load("t-2")
    assert loaded == ResumableSession(subagent_name="planner", agent_runtime_id=None, snapshot=snapshot)
    assert loaded.snapshot.format is SessionLogFormat.V2


async def test_a_later_save_replaces_the_earlier_one(make_store: Any) -> None:
    store, fs = await make_store("snapshot")
    await store.save("t-1", "first", None, transcript("old", 5))
    await store.save("t-1", "second", "agent:x:1", transcript("new", 2))
    loaded = await store.load("t-1")
    expected = ("second", "agent:x:1", transcript("new", 2))
    assert (loaded.subagent_name, loaded.agent_runtime_id, loaded.snapshot) == expected
    assert await fs.ls("task-snapshot") == [PATH]


async def test_unknown_task_loads_none_quietly_and_evict_is_quiet(
    make_store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    store, _ = await make_store("snapshot")
    with caplog.at_level(logging.DEBUG):
        assert await store.load("never-saved") is None
        await store.evict("never-saved")
    assert _warnings(caplog) == []


async def test_four_concurrent_savers_and_a_racing_loader(make_store: Any) -> None:
    store, fs = await make_store("snapshot")
    savers, rounds = 4, 4
    written = {(s, r): transcript(f"s{s}r{r}", 2 + s + r) for s in range(savers) for r in range(rounds)}
    finals = {written[(s, rounds - 1)] for s in range(savers)}
    done = asyncio.Event()
    seen: list[SessionSnapshot | None] = []

    async def saver(s: int) -> None:
        for r in range(rounds):
            await store.save("race", f"saver-{s}", f"agent:saver:{s}", written[(s, r)])

    async def loader() -> None:
        while not done.is_set():
            session = await store.load("race")  # never raises
            seen.append(None if session is None else session.snapshot)
            if session is not None:
                s = int(session.subagent_name.rsplit("-", 1)[1])
                assert session.agent_runtime_id == f"agent:saver:{s}"
                assert session.snapshot in {written[(s, r)] for r in range(rounds)}, "torn or mixed snapshot"
            await asyncio.sleep(0)

    async def all_savers() -> None:
        try:
            await asyncio.gather(*(saver(s) for s in range(savers)))
        finally:
            done.set()

    await asyncio.gather(loader(), all_savers())
    assert seen
    final = await store.load("race")
    assert final is not None and final.snapshot in finals  # the last write in time wins
    assert await fs.ls("task-snapshot") == ["task-snapshot/race.json"]


async def test_a_failing_filesystem_never_escapes_and_logs_one_warning_without_payload(
    make_store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    _, fs = await make_store("snapshot")
    failing = Failing(raw(fs), {"write", "read", "delete", "ls_info"})
    store, _ = await make_store("snapshot", fs=failing)
    with caplog.at_level(logging.DEBUG):
        await store.save("t-1", "reviewer", None, transcript("a"))
        warnings = _warnings(caplog)
        assert len(warnings) == 1 and "t-1" in warnings[0] and "Failed to save session snapshot" in warnings[0]
        caplog.clear()
        assert await store.load("t-1") is None
        warnings = _warnings(caplog)
        assert len(warnings) == 1 and "t-1" in warnings[0] and "Failed to load session snapshot" in warnings[0]
        caplog.clear()
        await store.evict("t-1")
        assert _warnings(caplog) == []
    assert failing.calls == {"write": 1, "read": 1, "delete": 1}
    assert SECRET not in caplog.text


async def test_a_refused_write_leaves_the_previous_snapshot_readable(
    make_fs: Any, make_store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fs = await make_fs(max_file_size=2000)  # the backend itself refuses the bigger snapshot, mid-upload
    store, _ = await make_store("snapshot", fs=fs)
    small, big = transcript("small", 2), transcript("big", 40)
    await store.save("t-1", "n", None, small)
    with caplog.at_level(logging.WARNING):
        await store.save("t-1", "n", None, big)
    assert InsufficientStorageError.__name__ in caplog.text and SECRET not in caplog.text
    loaded = await store.load("t-1")
    assert loaded is not None and loaded.snapshot == small


async def test_encode_failure_is_best_effort_too(make_store: Any, caplog: pytest.LogCaptureFixture) -> None:
    store, fs = await make_store("snapshot")
    broken = transcript("a").model_copy(update={"next_seq": 1})  # breaks an invariant the codec checks
    with caplog.at_level(logging.WARNING):
        await store.save("t-1", "n", None, broken)
    assert "Inconsistent session log" in caplog.text
    assert not await fs.exists(PATH)


@pytest.mark.parametrize(
    ("content", "warning"),
    [
        ("not json", "Failed to load session snapshot for task t-1: "),
        ("[1,2]", "Malformed session snapshot for task t-1: not a JSON object"),
        ('{"subagentName":"n","snapshot":{}}', "Unsupported session snapshot envelope version -1 for task t-1"),
        ('{"v":2,"subagentName":"n","snapshot":{}}', "Unsupported session snapshot envelope version 2 for task t-1"),
        ('{"v":"x","subagentName":"n","snapshot":{}}', "Unsupported session snapshot envelope version -1 for task t-1"),
        ('{"v":1,"snapshot":{}}', "Malformed session snapshot envelope for task t-1"),
        ('{"v":1,"subagentName":7,"snapshot":{}}', "Malformed session snapshot envelope for task t-1"),
        ('{"v":1,"subagentName":"n"}', "Malformed session snapshot envelope for task t-1"),
        ('{"v":1,"subagentName":"n","snapshot":"{}"}', "Malformed session snapshot envelope for task t-1"),
        (
            '{"v":1,"subagentName":"n","snapshot":{"version":9,"conversationId":"s"}}',
            "Failed to load session snapshot for task t-1: SnapshotCodecError: Unsupported session snapshot "
            "format version: 9 (expected 1 or 2)",
        ),
        (
            '{"v":1,"subagentName":"n","snapshot":{"version":1,"conversationId":"s","messages":[{"role":"BOT"}]}}',
            "Failed to load session snapshot for task t-1: SnapshotCodecError: Unknown message role: BOT",
        ),
        (b"\xff\xfe{}", "Failed to load session snapshot for task t-1: content is not UTF-8"),
    ],
    ids=[
        "not-json",
        "not-object",
        "no-v",
        "v-2",
        "v-text",
        "no-name",
        "name-number",
        "no-snapshot",
        "snapshot-string",
        "codec-version",
        "codec-role",
        "not-utf8",
    ],
)
async def test_unloadable_envelopes_load_as_none_with_the_reference_warning(
    make_store: Any, caplog: pytest.LogCaptureFixture, content: str | bytes, warning: str
) -> None:
    store, fs = await make_store("snapshot")
    await fs.write(PATH, content)
    with caplog.at_level(logging.WARNING):
        assert await store.load("t-1") is None
    warnings = _warnings(caplog)
    assert len(warnings) == 1 and warnings[0].startswith(warning), warnings


async def test_a_directory_at_the_object_path_loads_as_none_quietly(
    make_store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    store, fs = await make_store("snapshot")
    await fs.mkdir(PATH)
    with caplog.at_level(logging.WARNING):
        assert await store.load("t-1") is None
    assert _warnings(caplog) == []


@pytest.mark.parametrize(
    ("context", "logged"),
    [('"bogus"', True), ('"agent:"', True), ('"agent:x:"', True), ("42", False), ("null", False)],
)
async def test_a_malformed_context_id_reads_as_absent(
    make_store: Any, caplog: pytest.LogCaptureFixture, context: str, logged: bool
) -> None:
    store, fs = await make_store("snapshot")
    doc = '{"version":1,"conversationId":"s","systemPrompt":null,"messages":[]}'
    await fs.write(PATH, f'{{"v":1,"subagentName":"n","contextId":{context},"snapshot":{doc}}}')
    with caplog.at_level(logging.WARNING):
        loaded = await store.load("t-1")
    assert loaded is not None and loaded.agent_runtime_id is None and loaded.snapshot.session_id == "s"
    assert bool(_warnings(caplog)) is logged


BAD_TASK_IDS = ["", "   ", "a/b", "../x", "..", ".", "a\\b", "a\x00b", "tab\there", 7, None]


@pytest.mark.parametrize("task_id", BAD_TASK_IDS, ids=repr)
async def test_task_ids_must_be_one_path_segment(make_store: Any, task_id: Any) -> None:
    store, fs = await make_store("snapshot")
    with pytest.raises(InvalidArgumentError, match="task id"):
        await store.save(task_id, "n", None, transcript("a"))
    with pytest.raises(InvalidArgumentError, match="task id"):
        await store.load(task_id)
    with pytest.raises(InvalidArgumentError, match="task id"):
        await store.evict(task_id)
    assert await fs.ls_recursive(".") == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("n", "reviewer", transcript("a")), "agent runtime id"),
        (("n", "agent:", transcript("a")), "agent runtime id"),
        ((None, None, transcript("a")), "subagent name"),
        (("n", None, {"messages": []}), "snapshot must be a SessionSnapshot"),
    ],
    ids=["runtime-id-shape", "runtime-id-empty-name", "no-name", "not-a-snapshot"],
)
async def test_bad_save_arguments_raise_before_anything_is_written(
    make_store: Any, args: tuple[Any, ...], message: str
) -> None:
    store, fs = await make_store("snapshot")
    with pytest.raises(InvalidArgumentError, match=message):
        await store.save("t-1", *args)
    assert await fs.ls_recursive(".") == []


async def test_a_nested_base_dir_with_a_trailing_slash(make_store: Any) -> None:
    store, fs = await make_store("snapshot", base_dir="control/snapshots/")
    await store.save("t-1", "n", None, transcript("a"))
    assert await fs.ls_recursive(".") == ["control/snapshots/t-1.json"]
    assert (await store.load("t-1")).snapshot == transcript("a")


class _DelegatingCodec:
    """A codec that is not the default class: the store must parse its output and embed it."""

    def __init__(self) -> None:
        self.inner = JsonSessionSnapshotCodec(SessionLogFormat.V2)

    def encode(self, snapshot: SessionSnapshot) -> str:
        return self.inner.encode(snapshot).replace(",", ", ")  # not compact

    def decode(self, text: str) -> SessionSnapshot:
        return self.inner.decode(text)


async def test_another_codec_is_embedded_compactly_and_decoded_through_its_decode(make_store: Any) -> None:
    store, fs = await make_store("snapshot", codec=_DelegatingCodec())
    snapshot = transcript("a", 1)
    await store.save("t-1", "n", None, snapshot)
    stored = (await fs.read(PATH)).decode()
    assert stored.startswith('{"v":1,"subagentName":"n","snapshot":{"version":2,"conversationId":"session-a",')
    assert ", " not in stored
    loaded = await store.load("t-1")
    assert loaded.snapshot.messages == snapshot.messages and loaded.snapshot.format is SessionLogFormat.V2
