"""The pure scanners behind read_lines and grep, against Python's own rules, for every way of cutting the
input into chunks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from aimon_mongo.vfs.textscan import GrepScanner, LineCollector

TEXT = st.text(alphabet=st.sampled_from(["a", "b", "\n", "\r", "\u2028", "\x0c", "é"]), max_size=40)
BYTES = st.binary(max_size=60).map(lambda raw: raw.replace(b"\x00", b""))


def _cuts(data: str | bytes, sizes: list[int]) -> list[str | bytes]:
    pieces, start = [], 0
    for size in sizes or [len(data) or 1]:
        pieces.append(data[start : start + size])
        start += size
    pieces.append(data[start:])
    return [piece for piece in pieces if piece]


@settings(max_examples=300, deadline=None)
@given(TEXT, st.integers(0, 6), st.one_of(st.none(), st.integers(0, 4)), st.lists(st.integers(1, 7), max_size=8))
def test_line_windows_cut_as_str_splitlines(text: str, offset: int, limit: int | None, sizes: list[int]) -> None:
    collector = LineCollector(offset, limit)
    for piece in _cuts(text, sizes):
        collector.feed(str(piece))
        if collector.done:
            break
    collector.finish()
    window = collector.window()
    lines = text.splitlines(keepends=True)
    expected = lines[offset:] if limit is None else lines[offset : offset + limit]
    assert window.lines == expected
    assert window.has_more == (limit is not None and len(lines) > offset + limit)
    assert window.total_lines in (None, len(lines))
    if not window.has_more:
        assert window.total_lines == len(lines)


@settings(max_examples=300, deadline=None)
@given(BYTES, st.sampled_from(["a", "ab", "\r", ""]), st.lists(st.integers(1, 9), max_size=8))
def test_grep_finds_what_splitting_on_newlines_finds(data: bytes, needle: str, sizes: list[int]) -> None:
    scanner = GrepScanner(needle, max_bytes=None)
    scanner.start_file("f")
    for piece in _cuts(data, sizes):
        scanner.feed(bytes(piece))
    scanner.end_file()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        assert scanner.result().matches == []  # not UTF-8: binary, skipped
        return
    expected = [(number, line) for number, line in enumerate(text.split("\n"), 1) if needle in line]
    assert [(m.line, m.text) for m in scanner.result().matches] == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=40), min_size=1, max_size=4), st.sampled_from(["a", "ab", "\n", ""]))
def test_a_whole_file_at_once_finds_and_counts_what_streaming_it_does(files: list[bytes], needle: str) -> None:
    whole, streamed = GrepScanner(needle, max_bytes=None), GrepScanner(needle, max_bytes=None)
    for number, data in enumerate(files):
        whole.whole_file(f"f{number}", data)
        streamed.start_file(f"f{number}")
        streamed.feed(data)
        streamed.end_file()
    assert whole.result() == streamed.result()
