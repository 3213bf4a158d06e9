"""What every benchmark shares: interleaved rounds of ours against a baseline, the result record, the CLI.

A benchmark script defines ``CASES`` (the case names it reports) and ``measure(args) -> Report``, and ends
with ``sys.exit(main(__doc__, measure))``. ``--smoke`` runs tiny sizes, ``--repeats N`` sets the number of
rounds, ``--json`` prints the report as JSON (what ``benchmarks/run.py`` reads) instead of a table.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Clock = Literal["wall", "cpu"]
SHARED_STANDIN = "AIMON_BENCH_SHARED_STANDIN"
"""Set by ``run.py`` when ``MONGODB_URI`` is a stand-in it started (so the scripts name it as a stand-in)."""


@dataclass(frozen=True)
class Sample:
    """One timed block: how many operations it did, in how many wall and client-CPU seconds."""

    operations: float
    wall: float
    cpu: float

    def rate(self, clock: Clock) -> float:
        """Operations per second by ``clock``."""
        return self.operations / (self.wall if clock == "wall" else self.cpu)


def rounds(
    sides: Mapping[str, Callable[[], float]],
    repeats: int,
    *,
    warmup: bool = True,
    tidy: Callable[[], object] | None = None,
    gc_off: bool = False,
) -> dict[str, list[Sample]]:
    """Time every side once per round, ``repeats`` rounds; each side returns how many operations it did.

    The order rotates from round to round (two sides: ours first, then raw first, ...), so load that comes
    and goes falls on every side alike, and sample ``i`` of every side comes from the same round (the
    per-round ratios pair them). ``tidy`` runs untimed after every block; ``gc_off`` keeps the cyclic
    collector out of the timed blocks, as ``timeit`` does.
    """
    names = list(sides)
    if warmup:
        for name in names:
            sides[name]()
    samples: dict[str, list[Sample]] = {name: [] for name in names}
    for index in range(repeats):
        start = index % len(names)
        for name in names[start:] + names[:start]:
            if gc_off:
                gc.disable()
            try:
                wall, cpu = time.perf_counter(), time.process_time()
                operations = sides[name]()
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            finally:
                gc.enable()
            samples[name].append(Sample(operations, wall, cpu))
            if tidy is not None:
                tidy()
    return samples


def times(fn: Callable[[], object], count: int, *, counted: bool = False) -> Callable[[], float]:
    """A side that calls ``fn`` ``count`` times: ``count`` operations, or with ``counted`` the sum of what
    ``fn`` returns (the operations each call did)."""

    def side() -> float:
        operations = 0.0
        for _ in range(count):
            done = fn()
            operations += float(done) if counted else 1.0  # type: ignore[arg-type]
        return operations

    return side


def atimes(runner: asyncio.Runner, fn: Callable[[], Awaitable[object]], count: int) -> Callable[[], float]:
    """:func:`times` for a coroutine function: one ``runner.run`` per block of ``count`` awaited calls."""

    async def block() -> None:
        for _ in range(count):
            await fn()

    def side() -> float:
        runner.run(block())
        return count

    return side


def cpu_note(ours: Sequence[Sample], raw: Sequence[Sample], per: str = "operation") -> str:
    """Median client CPU per operation (or per ``per``) of both sides: what our layer adds on the client."""
    ours_us, raw_us = (statistics.median(s.cpu / s.operations for s in side) * 1e6 for side in (ours, raw))
    return f"client CPU per {per} {ours_us:,.0f} µs ours vs {raw_us:,.0f} µs raw ({ours_us / raw_us:.2f}x)"


@dataclass(frozen=True)
class Result:
    """One case: our figure and the baseline's in each round, and the target the median ratio must reach.

    ``ours`` and ``raw`` are per-round values in ``unit``; ``ratio`` is ours / raw when higher is better
    (rates), raw / ours otherwise (costs), so a ratio >= ``target`` is always good. ``floor`` is an absolute
    target for the median of ``ours`` as well (codec: 50,000 msg/s). ``note`` holds extra figures.
    """

    benchmark: str
    case: str
    unit: str
    ours: tuple[float, ...]
    raw: tuple[float, ...]
    target: float | None = None
    floor: float | None = None
    higher_is_better: bool = True
    note: str = ""

    def __post_init__(self) -> None:
        if not self.ours or len(self.ours) != len(self.raw):
            raise ValueError(f"{self.benchmark} / {self.case}: ours and raw need the same number of rounds")
        if min(*self.ours, *self.raw) <= 0:
            raise ValueError(f"{self.benchmark} / {self.case}: figures must be positive: {self.ours} {self.raw}")

    @classmethod
    def timed(
        cls, benchmark: str, case: str, ours: Sequence[Sample], raw: Sequence[Sample], clock: Clock = "wall",
        unit: str = "ops/s", **extra: Any,
    ) -> Result:  # fmt: skip
        """Rates per round of two sides measured by :func:`rounds`."""
        return cls(benchmark, case, unit, tuple(s.rate(clock) for s in ours), tuple(s.rate(clock) for s in raw),
                   **extra)  # fmt: skip

    @property
    def ratios(self) -> list[float]:
        pairs = zip(self.ours, self.raw, strict=True)
        return [o / r if self.higher_is_better else r / o for o, r in pairs]

    @property
    def spread(self) -> tuple[float, float, float]:
        """(min, median, max) of the per-round ratios."""
        ratios = self.ratios
        return min(ratios), statistics.median(ratios), max(ratios)

    @property
    def ours_median(self) -> float:
        return statistics.median(self.ours)

    @property
    def raw_median(self) -> float:
        return statistics.median(self.raw)

    def met(self) -> bool | None:
        """Whether the median ratio (and the median of ours, for a floor) reach the targets; None: no target."""
        if self.target is None and self.floor is None:
            return None
        ok = self.target is None or self.spread[1] >= self.target
        if self.floor is not None:
            ok = ok and self.ours_median >= self.floor
        return ok

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Result:
        return cls(**{**data, "ours": tuple(data["ours"]), "raw": tuple(data["raw"])})


@dataclass
class Report:
    """What one benchmark script measured, and what it ran against (server versions, sizes)."""

    results: list[Result]
    environment: dict[str, str] = field(default_factory=dict)
    rounds: int = 0
    """Rounds per case (set by :func:`main` from ``--repeats``)."""
    round_trips: dict[str, dict[str, int]] = field(default_factory=dict)
    """Commands sent per operation (a ``CommandLog`` count), by benchmark title then operation."""

    def to_json(self) -> dict[str, Any]:
        return {"results": [r.to_json() for r in self.results], "environment": self.environment,
                "rounds": self.rounds, "round_trips": self.round_trips}  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Report:
        return cls([Result.from_json(r) for r in data["results"]], dict(data["environment"]), int(data["rounds"]),
                   {k: dict(v) for k, v in data.get("round_trips", {}).items()})  # fmt: skip


def main(
    doc: str | None,
    measure: Callable[[argparse.Namespace], Report],
    options: Callable[[argparse.ArgumentParser], object] | None = None,
    repeats: int = 15,
) -> int:
    """The command line every benchmark script shares."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, not timed: checks that it runs")
    parser.add_argument("--repeats", type=int, default=None, help=f"rounds (default {repeats}; 2 with --smoke)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON (for benchmarks/run.py)")
    if options is not None:
        options(parser)
    args = parser.parse_args()
    if args.repeats is None:
        args.repeats = 2 if args.smoke else repeats
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    report = measure(args)
    report.rounds = args.repeats
    if args.json:
        json.dump(report.to_json(), sys.stdout)
        print()
    else:
        from _machine import machine  # benchmarks/_machine.py
        from _report import table  # benchmarks/_report.py

        print(f"machine: {machine()}")
        for key, value in report.environment.items():
            print(f"{key}: {value}")
        print()
        print(table(report.results))
        if report.round_trips:
            from _report import round_trip_table  # benchmarks/_report.py

            print()
            print(round_trip_table(report.round_trips))
    return 0
