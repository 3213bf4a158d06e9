"""Task-output windows against a model: the output is the concatenation of the chunks, offsets are UTF-16
code units, and reading window after window from any start returns every character exactly once."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from aimon_mongo.snapshots import VfsTaskOutputStore
from aimon_mongo.snapshots.output import utf16_length, utf16_window
from aimon_mongo.vfs import MemoryFileSystem

# BMP letters, an accented letter, and characters outside the BMP (two code units each)
alphabet = st.sampled_from(["a", "b", "é", "\u4e2d", "\U0001f600", "\U00010348", "\n"])
chunks = st.lists(st.text(alphabet, min_size=0, max_size=6), min_size=0, max_size=6)


def _units(text: str) -> list[int]:
    """The UTF-16 offset at which each character of ``text`` starts."""
    offsets, at = [], 0
    for ch in text:
        offsets.append(at)
        at += 2 if ord(ch) > 0xFFFF else 1
    return offsets


@settings(max_examples=150, deadline=None)
@given(chunks, st.integers(-2, 40), st.lists(st.integers(0, 7), min_size=1, max_size=40))
def test_sequential_windows_return_every_character_once(parts: list[str], start: int, budgets: list[int]) -> None:
    fs = MemoryFileSystem()
    fs.initialize()
    store = VfsTaskOutputStore(fs)
    for part in parts:
        store.append("t", part)
    whole = "".join(parts)
    total = utf16_length(whole)
    assert store.length("t") == total
    # the characters a reader starting at ``start`` must get: those starting at or after it
    begin = max(0, start)
    expected = "".join(ch for ch, at in zip(whole, _units(whole), strict=True) if at >= begin)
    got, offset = [], start
    for i in range(total + 2):  # every read makes progress, so this is enough
        budget = budgets[i % len(budgets)]
        window = store.read("t", offset, budget)
        assert window.truncated_head == (max(0, offset) > 0)
        assert window.next_offset >= max(0, offset)
        assert window.has_more == (window.next_offset < total)
        if window.text:
            assert utf16_length(window.text) <= max(1, budget) or len(window.text) == 1
        got.append(window.text)
        offset = window.next_offset
        if not window.has_more:
            break
    assert "".join(got) == expected


@given(st.text(alphabet, max_size=12), st.integers(0, 30), st.integers(0, 30))
def test_utf16_window_never_splits_a_pair(text: str, offset: int, budget: int) -> None:
    piece, begin, end, _ = utf16_window(text, offset, budget, force_first=False)
    starts = set(_units(text)) | {utf16_length(text)}
    assert begin in starts or begin == offset > utf16_length(text)
    assert end - begin == utf16_length(piece) <= budget
    assert text[_units(text).index(begin) :].startswith(piece) if piece else True
