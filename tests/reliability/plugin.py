"""Pytest plugin of the reliability suite: ``--scale``, the ``reliability`` mark, and the counts table.

* ``--scale`` runs the full sizes the issue names (8 collectors x 10,000 messages, 1,000 contested
  acquisitions ...); without it every test runs the CI sizes. Tests ask the ``sizes`` fixture:
  ``sizes.pick(ci=500, full=10_000)`` (the two ``slow`` conformance tests too).
* Every test under ``tests/reliability/`` gets the ``reliability`` mark (``pytest -m reliability`` runs the
  suite alone).
* Tests record what they counted with the ``reliability_counts`` fixture
  (``reliability_counts.add("load", "redis-sync", messages=80_000, duplicates=0, lost=0)``); the table is
  printed at the end of the run (and written as JSON to the path in ``AIMON_RELIABILITY_COUNTS`` when set),
  so the figures quoted in ``docs/guarantees.md`` come from a run, not from memory.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

COLUMNS = (
    "messages", "duplicates", "lost", "refused_stale", "quarantined", "refused_input", "errors",
    "promotions", "tokens", "reissued", "adopt_max_ms", "adopt_median_ms",
)  # fmt: skip
_HERE = Path(__file__).parent


@dataclass(frozen=True)
class Sizes:
    full: bool

    def pick(self, *, ci: int, full: int) -> int:
        return full if self.full else ci


class Counts:
    """Per (scenario, backend) sums of the COLUMNS; ``add`` may be called many times for one row."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(COLUMNS, 0))

    def add(self, scenario: str, backend: str, **counts: int) -> None:
        unknown = set(counts) - set(COLUMNS)
        if unknown:
            raise ValueError(f"unknown count column(s) {sorted(unknown)!r}; known: {COLUMNS!r}")
        row = self.rows[(scenario, backend)]
        for key, value in counts.items():
            row[key] += int(value)

    def table(self) -> list[str]:
        header = ["scenario", "backend", *COLUMNS]
        body = [[s, b, *(str(r[c]) for c in COLUMNS)] for (s, b), r in sorted(self.rows.items())]
        widths = [max(len(x) for x in col) for col in zip(header, *body, strict=False)]

        def fmt(cells: list[str]) -> str:
            return "  ".join(
                c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            )

        return [fmt(header), *(fmt(r) for r in body)]


_COUNTS = Counts()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--scale",
        action="store_true",
        default=False,
        help="run the full sizes of the reliability suite and the slow conformance tests (8 x 10,000 messages ...)",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.reliability)


@pytest.fixture(scope="session")
def sizes(request: pytest.FixtureRequest) -> Sizes:
    return Sizes(full=bool(request.config.getoption("--scale")))


@pytest.fixture(scope="session")
def reliability_counts() -> Counts:
    return _COUNTS


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--scale") and config.getoption("timeout", None) is None:
        config.option.timeout = 0  # the full sizes run for as long as they take (pyproject's timeout is for CI)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_WorkerCounts(), "reliability-worker-counts")


def pytest_sessionfinish(session: pytest.Session) -> None:
    # Under pytest-xdist each worker hands its rows to the controller, which prints the one table.
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["reliability_counts"] = [[s, b, r] for (s, b), r in _COUNTS.rows.items()]


class _WorkerCounts:
    """Registered only when pytest-xdist is loaded (its hook would be unknown otherwise)."""

    def pytest_testnodedown(self, node: object, error: object) -> None:
        for scenario, backend, row in getattr(node, "workeroutput", {}).get("reliability_counts", []):
            _COUNTS.add(scenario, backend, **row)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _COUNTS.rows:
        return
    terminalreporter.section("reliability counts")
    for line in _COUNTS.table():
        terminalreporter.write_line(line)
    target = os.environ.get("AIMON_RELIABILITY_COUNTS")
    if target:
        rows = [{"scenario": s, "backend": b, **r} for (s, b), r in sorted(_COUNTS.rows.items())]
        Path(target).write_text(json.dumps(rows, indent=2) + "\n")
