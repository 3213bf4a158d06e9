"""The counts table the reliability suite prints is right about what it was given."""

from __future__ import annotations

import pytest

from tests.reliability.plugin import Counts, Sizes


def test_counts_sum_per_row_and_render_a_table() -> None:
    counts = Counts()
    counts.add("load", "redis-sync", messages=10, duplicates=0)
    counts.add("load", "redis-sync", messages=5, lost=1)
    counts.add("bad-input", "mongo-async", quarantined=3)
    assert counts.rows[("load", "redis-sync")]["messages"] == 15
    assert counts.rows[("load", "redis-sync")]["lost"] == 1
    lines = counts.table()
    assert lines[0].split()[:3] == ["scenario", "backend", "messages"]
    assert lines[1].split()[:3] == ["bad-input", "mongo-async", "0"]
    assert lines[2].split()[:3] == ["load", "redis-sync", "15"]


def test_unknown_column_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'dupes'"):
        Counts().add("load", "memory-sync", dupes=1)


def test_sizes_pick_ci_or_full() -> None:
    assert Sizes(full=False).pick(ci=5, full=50) == 5
    assert Sizes(full=True).pick(ci=5, full=50) == 50
