"""The benchmark report: results, the table, the page run.py writes, and the committed docs/benchmarks.md.

Pure and fast: nothing is timed here (figures are given), no server is used.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))  # the scripts import each other as top-level modules

from _report import Run, missing, page, ratio, table  # noqa: E402
from _timing import Report, Result, Sample, rounds  # noqa: E402
from run import DOC, PROSE, RESULTS, expected_cases  # noqa: E402


def result(case: str, ours: tuple[float, ...], raw: tuple[float, ...], **extra: object) -> Result:
    return Result("bench", case, "ops/s", ours, raw, **extra)  # type: ignore[arg-type]


def test_ratio_spread_is_per_round_and_the_median_decides_the_target() -> None:
    r = result("c", (90.0, 100.0, 120.0), (100.0, 100.0, 100.0), target=0.95)
    assert r.ratios == [0.9, 1.0, 1.2]
    assert r.spread == (0.9, 1.0, 1.2)
    assert r.met() is True
    assert result("c", (80.0, 94.0, 200.0), (100.0, 100.0, 100.0), target=0.95).met() is False
    assert result("c", (1.0,), (2.0,)).met() is None


def test_costs_give_baseline_over_ours_and_a_floor_must_be_reached_too() -> None:
    cost = Result("vfs", "docs", "docs", (10.0,), (500.0,), higher_is_better=False)
    assert cost.spread == (50.0, 50.0, 50.0)
    floored = result("json", (40_000.0, 45_000.0), (40_000.0, 40_000.0), target=1.0, floor=50_000)
    assert floored.spread[1] >= 1.0
    assert floored.met() is False  # ratio met, absolute rate not


def test_results_refuse_unpaired_or_non_positive_figures() -> None:
    with pytest.raises(ValueError, match="same number of rounds"):
        result("c", (1.0, 2.0), (1.0,))
    with pytest.raises(ValueError, match="positive"):
        result("c", (0.0,), (1.0,))


def test_report_round_trips_through_json() -> None:
    report = Report([result("c", (1.5, 2.5), (2.0, 2.0), target=0.9, note="n")], {"server": "x 1.0"})
    again = Report.from_json(report.to_json())
    assert again == report
    counted = Report(report.results, round_trips={"MongoDB session": {"inbox.collect": 3}})
    assert Report.from_json(counted.to_json()) == counted


def test_page_lists_the_round_trips_per_operation() -> None:
    results = fake_results({"MongoDB session": ("deliver+collect",)})
    run = Run(results, machine="2 CPUs", date="2026-12-01", load="1.0", versions={}, environment={}, rounds={},
              duration="1 min", round_trips={"MongoDB session": {"inbox.deliver_many (64 messages)": 1,
                                                                 "inbox.collect (64 entries)": 3}})  # fmt: skip
    text = page(Run.from_json(run.to_json()), "prose")
    assert "## Round trips per operation" in text
    assert "| MongoDB session | inbox.deliver_many (64 messages) | 1 |" in text
    assert "| MongoDB session | inbox.collect (64 entries) | 3 |" in text
    assert "## Round trips per operation" not in page(dataclasses.replace(run, round_trips={}), "prose")


def test_rounds_rotate_the_order_and_pair_samples_by_round() -> None:
    calls: list[str] = []
    sides = {name: (lambda name=name: calls.append(name) or 3.0) for name in ("a", "b", "c")}
    samples = rounds(sides, 3, warmup=False)
    assert calls == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert {name: len(got) for name, got in samples.items()} == {"a": 3, "b": 3, "c": 3}
    assert all(isinstance(s, Sample) and s.operations == 3.0 for got in samples.values() for s in got)


def test_table_renders_medians_spread_target_and_verdict() -> None:
    rows = [
        result("fast", (64_796.0, 70_000.0, 60_000.0), (65_000.0, 65_000.0, 65_000.0), target=1.0, floor=50_000),
        result("slow", (8.0, 9.0), (10.0, 10.0), target=0.9, note="client CPU 1 µs"),
        result("info", (3.0,), (1.5,)),
    ]
    lines = table(rows).splitlines()
    assert lines[0] == "| benchmark | case | ours | raw / baseline | ratio min / median / max | target | met? |"
    assert lines[2] == (
        "| bench | fast | 64,796 ops/s | 65,000 ops/s | 0.92x / **1.00x** / 1.08x "
        "| ≥ 1.00x and ≥ 50,000 ops/s | **no** (0.997x) |"
    )
    assert lines[3] == "| bench | slow | 8.5 ops/s | 10 ops/s | 0.80x / **0.85x** / 0.90x | ≥ 0.90x | **no** |"
    assert lines[4] == "| bench | info | 3 ops/s | 1.5 ops/s | 2.00x / **2.00x** / 2.00x | — | — |"
    assert lines[-1] == "- bench, slow: client CPU 1 µs"
    just_below = result("edge", (0.8995,), (1.0,), target=0.9)
    assert table([just_below]).splitlines()[2].endswith("| 0.90x / **0.90x** / 0.90x | ≥ 0.90x | **no** (0.899x) |")


def test_ratios_keep_their_digits_when_very_small_or_large() -> None:
    assert [ratio(x) for x in (0.0067, 0.093, 0.1, 0.934, 99.5, 1000.0)] == [
        "0.0067x", "0.093x", "0.10x", "0.93x", "99.50x", "1,000x"
    ]  # fmt: skip


def fake_results(expected: dict[str, tuple[str, ...]]) -> list[Result]:
    return [Result(bench, case, "ops/s", (1.0, 2.0), (2.0, 2.0), target=0.9) for bench, cases in expected.items()
            for case in cases]  # fmt: skip


def test_every_benchmark_declares_cases_and_the_page_shows_each_one() -> None:
    expected = expected_cases()
    assert list(expected) == [
        "codec", "MongoDB session", "Redis session", "PostgreSQL session", "PostgreSQL failover guard", "VFS",
        "snapshots", "langgraph", "deepagents backend", "PostgreSQL at scale", "Session host",
        "ADK services",
    ]  # fmt: skip
    assert all(expected.values())
    results = fake_results(expected)
    run = Run(results, machine="2 CPUs", date="2026-11-30", load="1.0", versions={"pymongo": "4"},
              environment={"Redis server": "Redis 7"}, rounds={"codec": 3}, duration="1 min")  # fmt: skip
    text = page(Run.from_json(run.to_json()), "## Codec\n\nprose")
    for r in results:
        assert f"| {r.benchmark} | {r.case} |" in text, r.case
    assert "- Redis server: Redis 7." in text and "pymongo 4" in text and "- Rounds per case: codec 3." in text
    assert text.rstrip().endswith("## Codec\n\nprose")
    # every case is below its target here (median ratio 0.75x): the page names each one
    assert text.count(": median 0.75x (target ≥ 0.90x)") == len(results)


def test_missing_names_every_absent_case() -> None:
    expected = {"A": ("x", "y"), "B": ("z",)}
    results = [Result("A", "x", "ops/s", (1.0,), (1.0,))]
    assert missing(results, expected) == ["A / y", "B / z"]
    assert missing(fake_results(expected), expected) == []


def test_committed_page_is_what_run_py_renders_from_the_committed_results_and_prose() -> None:
    run = Run.from_json(json.loads(RESULTS.read_text(encoding="utf-8")))
    assert missing(run.results, expected_cases()) == []
    assert DOC.read_text(encoding="utf-8") == page(run, PROSE.read_text(encoding="utf-8")), (
        "docs/benchmarks.md is stale: run `python benchmarks/run.py --render`"
    )


def test_a_merged_rerun_replaces_its_benchmarks_rows_in_place_and_names_itself() -> None:
    from run import RERUNS, merged

    def run(results: list[Result], date: str, environment: dict[str, str]) -> Run:
        trips = {r.benchmark: {"op": 1} for r in results}
        load = "1.0 / 1.0 / 1.0 (1 / 5 / 15 min) at the start"
        return Run(results, "m", date, load, {"v": "1"}, environment, {r.benchmark: 3 for r in results}, "9 min", trips)

    codec, vfs, snaps = (Result(b, "c", "ops/s", (1.0,), (1.0,)) for b in ("codec", "VFS", "snapshots"))
    saved = run([codec, vfs, snaps], "2026-12-01 10:00 UTC", {"VFS server": "old", "codec": "kept"})
    again = Result("VFS", "c", "ops/s", (2.0,), (1.0,))
    new = merged(saved, run([again], "2026-12-03 12:00 UTC", {"VFS server": "new"}), ["vfs"])
    assert [(r.benchmark, r.ours) for r in new.results] == [("codec", (1.0,)), ("VFS", (2.0,)), ("snapshots", (1.0,))]
    assert new.date == "2026-12-01 10:00 UTC" and new.duration == "9 min"
    assert new.environment["VFS server"] == "new" and new.environment["codec"] == "kept"
    assert (
        new.environment[RERUNS]
        == "VFS: 2026-12-03 12:00 UTC, load average 1.0 / 1.0 / 1.0 (1 / 5 / 15 min) at the start"
    )
    later = merged(new, run([codec], "2026-12-04 08:00 UTC", {}), ["codec"])
    assert later.environment[RERUNS].split("; ") == [
        "VFS: 2026-12-03 12:00 UTC, load average 1.0 / 1.0 / 1.0 (1 / 5 / 15 min) at the start",
        "codec: 2026-12-04 08:00 UTC, load average 1.0 / 1.0 / 1.0 (1 / 5 / 15 min) at the start",
    ]


def test_script_args_reach_the_script_and_are_named_on_the_page() -> None:
    from run import measure

    run = measure(["codec"], smoke=True, repeats=None, extra=["--repeats", "1"])
    assert run.rounds["codec"] == 1  # the script's own option won over its smoke default of 2
    assert run.environment["codec command"] == "benchmarks/codec.py --json --repeats 1"
