"""Pure rules: path validation, prefixes, the paged directory listing, patterns, the size cap."""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aimon_mongo.errors import InsufficientStorageError, InvalidArgumentError, InvalidPathError
from aimon_mongo.vfs import paths
from aimon_mongo.vfs.listing import Entry, RangeScan, children_of, directory_count
from aimon_mongo.vfs.patterns import matcher, matches, sanitize
from aimon_mongo.vfs.sizecap import SizeCap, check_max_file_size


def test_accepted_paths_are_returned_verbatim() -> None:
    for path in ("a.txt", "docs/a.txt", "a b/c d.txt", "ünï/cödé", "x../y", "...", "a..b/.hidden"):
        assert paths.validate_file_path(path) == path
        assert paths.validate_path(path) == path
    assert paths.validate_dir_path("docs/") == "docs/"


def test_a_leading_slash_is_refused_not_stripped() -> None:
    # The reference stores "/a.txt" and "a.txt" as two different files; we neither create that second
    # spelling nor silently rewrite it to the first: the caller drops the slash.
    for call in (paths.validate_file_path, paths.validate_path, paths.validate_dir_path):
        with pytest.raises(InvalidPathError, match="absolute paths are not allowed") as caught:
            call("/a.txt")
        assert caught.value.path == "/a.txt"
    with pytest.raises(InvalidPathError, match="absolute"):
        paths.validate_dir_path("/")


def test_root_spellings() -> None:
    assert paths.is_root(paths.validate_dir_path("."))
    assert paths.is_root(paths.validate_dir_path(""))
    assert paths.dir_prefix(".") == "" and paths.dir_prefix("") == ""
    assert paths.dir_path("") == "." and paths.dir_path("docs/") == "docs"
    with pytest.raises(InvalidPathError, match="names the root"):
        paths.validate_file_path(".")
    with pytest.raises(InvalidPathError, match="empty or blank"):
        paths.validate_file_path("")


def test_prefixes_levels_and_successor() -> None:
    assert paths.dir_prefix("a/b") == "a/b/" and paths.dir_prefix("a/b/") == "a/b/"
    assert paths.levels("a/b/c") == ["a/", "a/b/", "a/b/c/"]
    assert paths.ancestors("a/b/c.txt") == ["a", "a/b"]
    assert paths.successor("docs/") == "docs0"
    assert paths.parent("a/b.txt") == "a" and paths.parent("b.txt") == "."
    assert paths.join(".", "x") == "x" and paths.join("a", "x") == "a/x"
    assert paths.base_name("a/b/c.txt") == "c.txt"
    with pytest.raises(ValueError):
        paths.successor("")


def test_overlong_path_is_refused() -> None:
    with pytest.raises(InvalidPathError, match="maximum length of 4096"):
        paths.validate_file_path("a" * 4097)


def test_messages_escape_control_characters() -> None:
    with pytest.raises(InvalidPathError) as caught:
        paths.validate_file_path("evil\nname")
    assert "\n" not in str(caught.value) and "evil\\nname" in str(caught.value)


names = st.lists(
    st.lists(st.sampled_from(["a", "b", "a.txt", "b0", "a-b", "é", "z"]), min_size=1, max_size=4).map("/".join)
    | st.sampled_from(["a/", "a/b/", "b/", "a//x"]),
    max_size=30,
)


@given(
    names,
    st.sampled_from(["", "a/", "a/b/", "b/", "q/"]),
    st.integers(min_value=1, max_value=4),
    st.integers(min_value=1, max_value=3),
    st.booleans(),
)
def test_range_scan_finds_exactly_the_children_a_full_scan_finds(
    stored: list[str], prefix: str, first_page: int, revisions: int, every_revision: bool
) -> None:
    # Every name has ``revisions`` rows (revision numbers 0.. oldest first), as a bucket mid-overwrite does.
    rows = [(name, n) for name in sorted(set(stored)) for n in range(revisions)]
    ordered = sorted(set(stored))

    def read(lower: str, inclusive: bool, upper: str | None, limit: int) -> list[tuple[str, int]]:
        keep = [r for r in rows if (r[0] >= lower if inclusive else r[0] > lower) and (upper is None or r[0] < upper)]
        return keep[:limit]

    scan: RangeScan[tuple[str, int]] = RangeScan(
        prefix, lambda row: row[0], every_revision=every_revision, first_page=first_page, max_page=8 * first_page
    )
    found: list[Entry[tuple[str, int]]] = []
    reads = 0
    while (seek := scan.next_seek) is not None:
        reads += 1
        assert reads < 200
        found.extend(scan.feed(read(seek.lower, seek.inclusive, seek.upper, scan.limit)))
    expected = children_of(prefix, ordered)
    assert [e.child for e in sorted(found, key=lambda e: e.child.path)] == sorted(expected, key=lambda c: c.path)
    for entry in found:
        if every_revision and not entry.child.is_dir and entry.complete:  # every revision, the newest last
            assert [n for _, n in entry.rows] == list(range(revisions))
    assert scan.found == any(name.startswith(prefix) for name in ordered)


def _listed(rows: list[tuple[str, int]], prefix: str) -> tuple[list[str], int]:
    """The children a RangeScan reports over sorted rows, and how many reads it ran."""
    names = [name for name, _ in rows]
    scan: RangeScan[tuple[str, int]] = RangeScan(prefix, lambda row: row[0], every_revision=False)
    reads, children = 0, []
    while (seek := scan.next_seek) is not None:
        reads += 1
        start = (bisect_left if seek.inclusive else bisect_right)(names, seek.lower)
        page = [row for row in rows[start : start + scan.limit] if seek.upper is None or row[0] < seek.upper]
        children.extend(entry.child.path for entry in scan.feed(page))
    return children, reads


def test_range_scan_streams_a_flat_directory_and_reseeks_at_each_subdirectory() -> None:
    flat = [(f"d/{i:05d}.txt", 0) for i in range(10_000)]
    children, reads = _listed(flat, "d/")
    assert children == [name for name, _ in flat] and reads <= 8
    # Ten subdirectories of 1,000 files each: one read per subdirectory and one that finds nothing more.
    deep = [(f"t/sub{c}/{i:04d}.bin", 0) for c in range(10) for i in range(1000)]
    children, reads = _listed(deep, "t/")
    assert children == [f"t/sub{c}" for c in range(10)] and reads == 11


def test_directory_count_merges_markers_and_implied_directories() -> None:
    assert directory_count("", ["a/", "a/b/c.txt", "a/b/", "d/e/f.txt", "top.txt"]) == 4
    assert directory_count("a/", ["a/", "a/b/c.txt", "a/b/"]) == 1


def test_search_patterns() -> None:
    assert sanitize("s/u\\b{x}[y]**.py") == "subxy*.py"
    compiled = matcher("*.py")
    assert compiled is not None and matches(compiled, "a.py") and not matches(compiled, "a.pyc")
    single = matcher("?.txt")
    assert single is not None and matches(single, "a.txt") and not matches(single, "ab.txt")
    assert matcher("[]{}/") is None


def test_size_cap_counts_written_bytes_without_overflow() -> None:
    cap = SizeCap(4, "f.txt")
    cap.admit(2)
    with pytest.raises(InsufficientStorageError, match=r"maximum allowed size of 4 bytes: f\.txt"):
        cap.admit(3)
    assert cap.written == 2
    cap.admit(2)
    unlimited = SizeCap(None, "g")
    unlimited.admit(2**62)
    unlimited.admit(2**62)
    assert check_max_file_size(0) == 0
    assert check_max_file_size(None) is None
    with pytest.warns(DeprecationWarning, match="deprecated"):
        assert check_max_file_size(-1) is None
    for bad in (-2, True, 1.5):
        with pytest.raises(InvalidArgumentError):
            check_max_file_size(bad)  # type: ignore[arg-type]
