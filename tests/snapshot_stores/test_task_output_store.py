"""The task-output store on every backend: append-only segments, UTF-16 offsets, windows, restarts, evict."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.snapshots import OutputSlice
from tests.snapshot_stores.conftest import raw
from tests.snapshot_stores.samples import Failing

EMOJI = "\U0001f600"  # one character, two UTF-16 code units


def S(text: str, next_offset: int, truncated_head: bool, has_more: bool) -> OutputSlice:
    return OutputSlice(text=text, next_offset=next_offset, truncated_head=truncated_head, has_more=has_more)


async def test_appends_write_one_segment_each_named_by_start_offset(make_store: Any) -> None:
    store, fs = await make_store("output")
    for chunk in ("hello ", None, "", "wörld", "!\n"):
        await store.append("t-1", chunk)
    assert await fs.ls("task-output/t-1") == [
        "task-output/t-1/00000000000000000000.seg",
        "task-output/t-1/00000000000000000006.seg",
        "task-output/t-1/00000000000000000011.seg",
    ]
    assert await fs.read("task-output/t-1/00000000000000000006.seg") == "wörld".encode()
    assert await store.read("t-1") == S("hello wörld!\n", 13, False, False)
    assert await store.length("t-1") == 13


async def test_appends_after_a_restart_continue_at_the_right_offset(make_store: Any) -> None:
    store, fs = await make_store("output")
    await store.append("t-1", "abc")
    await store.append("t-1", f"d{EMOJI}")
    restarted, _ = await make_store("output", fs=fs)  # a new store instance: no cursor in memory
    assert await restarted.length("t-1") == 6
    await restarted.append("t-1", "xyz")
    again, _ = await make_store("output", fs=fs)
    await again.append("t-1", "!")
    assert [p.rsplit("/", 1)[1] for p in await fs.ls("task-output/t-1")] == [
        "00000000000000000000.seg",
        "00000000000000000003.seg",
        "00000000000000000006.seg",
        "00000000000000000009.seg",
    ]
    assert (await again.read("t-1")).text == f"abcd{EMOJI}xyz!"
    assert await again.length("t-1") == 10


async def test_reads_by_window(make_store: Any) -> None:
    store, _ = await make_store("output")
    for chunk in ("0123", "4567", "89", "abcdef"):
        await store.append("t-1", chunk)
    assert await store.read("t-1", 0, 5) == S("01234", 5, False, True)
    assert await store.read("t-1", 5, 5) == S("56789", 10, True, True)
    assert await store.read("t-1", 10, 100) == S("abcdef", 16, True, False)
    assert await store.read("t-1", 3, 2) == S("34", 5, True, True)
    assert await store.read("t-1", 16, 10) == S("", 16, True, False)
    assert await store.read("t-1", 40, 10) == S("", 40, True, False)
    assert await store.read("t-1", -5, 0) == S("0", 1, False, True)
    pieces, offset = [], 0
    while True:
        window = await store.read("t-1", offset, 3)
        pieces.append(window.text)
        offset = window.next_offset
        if not window.has_more:
            break
    assert "".join(pieces) == "0123456789abcdef"


async def test_offsets_count_utf16_code_units(make_store: Any) -> None:
    store, fs = await make_store("output")
    await store.append("t-1", f"a{EMOJI}b")  # a=0, emoji=1..2, b=3
    await store.append("t-1", "c")
    assert (await fs.ls("task-output/t-1"))[1].endswith("00000000000000000004.seg")
    assert await store.length("t-1") == 5
    assert await store.read("t-1", 0, 2) == S("a", 1, False, True)
    assert await store.read("t-1", 1, 1) == S(EMOJI, 3, True, True)
    assert await store.read("t-1", 1, 2) == S(EMOJI, 3, True, True)
    # offset 2 is the second half of the emoji: the window [2, 4) starts at the next character
    assert await store.read("t-1", 2, 2) == S("b", 4, True, True)
    assert await store.read("t-1", 3, 2) == S("bc", 5, True, False)
    assert await store.read("t-1", 0, 100) == S(f"a{EMOJI}bc", 5, False, False)


async def test_evict_removes_the_tree_and_the_cursor(make_store: Any) -> None:
    store, fs = await make_store("output")
    await store.append("t-1", "abc")
    await store.append("t-2", "keep")
    await store.evict("t-1")
    assert not await fs.exists("task-output/t-1")
    assert await fs.ls_recursive("task-output") == ["task-output/t-2/00000000000000000000.seg"]
    assert await store.read("t-1") == OutputSlice.empty(0)
    assert await store.length("t-1") == 0
    await store.append("t-1", "new")  # starts again at 0
    assert await fs.ls("task-output/t-1") == ["task-output/t-1/00000000000000000000.seg"]
    await store.evict("never")


async def test_a_failed_append_is_retried_at_the_same_start(make_store: Any, caplog: pytest.LogCaptureFixture) -> None:
    _, fs = await make_store("output")
    failing = Failing(raw(fs), set())
    store, _ = await make_store("output", fs=failing)
    await store.append("t-1", "abc")
    failing.fail = {"write"}
    with caplog.at_level(logging.WARNING):
        await store.append("t-1", "lost")
    assert "Failed to append output for task t-1" in caplog.text and "lost" not in caplog.text
    failing.fail = set()
    await store.append("t-1", "def")
    assert await fs.ls("task-output/t-1") == [
        "task-output/t-1/00000000000000000000.seg",
        "task-output/t-1/00000000000000000003.seg",
    ]
    assert (await store.read("t-1")).text == "abcdef"


async def test_a_listing_failure_never_guesses_an_offset(make_store: Any, caplog: pytest.LogCaptureFixture) -> None:
    first, fs = await make_store("output")
    await first.append("t-1", "abc")
    failing = Failing(raw(fs), {"ls"})
    store, _ = await make_store("output", fs=failing)  # fresh cursor: it must rebuild from the listing
    with caplog.at_level(logging.WARNING):
        await store.append("t-1", "xyz")  # must not write at offset 0 over the first segment
        assert await store.read("t-1") == OutputSlice.empty(0)
        assert await store.length("t-1") == 0
    assert await fs.read("task-output/t-1/00000000000000000000.seg") == b"abc"
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 3
    failing.fail = set()
    await store.append("t-1", "xyz")
    assert (await store.read("t-1")).text == "abcxyz"


async def test_an_unreadable_segment_reads_as_a_gap(make_store: Any, caplog: pytest.LogCaptureFixture) -> None:
    store, fs = await make_store("output")
    for chunk in ("ab", "cd", "ef"):
        await store.append("t-1", chunk)
    await fs.write("task-output/t-1/00000000000000000002.seg", b"\xff\xfe")  # not UTF-8
    with caplog.at_level(logging.WARNING):
        window = await store.read("t-1", 0, 10)
    assert window == S("abef", 6, False, False)
    assert "00000000000000000002.seg" in caplog.text


async def test_names_that_are_not_segments_are_ignored(make_store: Any) -> None:
    store, fs = await make_store("output")
    await store.append("t-1", "abc")
    await fs.write("task-output/t-1/notes.txt", "x")
    await fs.write("task-output/t-1/abc.seg", "x")
    await fs.mkdir("task-output/t-1/sub")
    await fs.write("task-output/t-1/3.seg", "de")  # unpadded names parse too, as in the reference
    fresh, _ = await make_store("output", fs=fs)
    assert await fresh.read("t-1") == S("abcde", 5, False, False)
    await fresh.append("t-1", "f")
    assert await fs.exists("task-output/t-1/00000000000000000005.seg")


async def test_bad_arguments_raise(make_store: Any) -> None:
    store, fs = await make_store("output")
    for bad in ("", "a/b", "..", "."):
        with pytest.raises(InvalidArgumentError, match="task id"):
            await store.append(bad, "x")
        with pytest.raises(InvalidArgumentError, match="task id"):
            await store.read(bad)
    with pytest.raises(InvalidArgumentError, match="output chunk must be a str"):
        await store.append("t-1", b"bytes")
    with pytest.raises(InvalidArgumentError, match="unpaired surrogate"):
        await store.append("t-1", "a\ud800b")
    with pytest.raises(InvalidArgumentError, match="from_offset"):
        await store.read("t-1", "0")
    assert await fs.ls_recursive(".") == []
