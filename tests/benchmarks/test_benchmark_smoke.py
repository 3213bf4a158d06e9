"""Every benchmark still runs: each script at its smoke size (tiny, not timed), reporting every case it declares.

One test per script, so the scripts run side by side under the suite's parallel workers (``./dev test``);
``python benchmarks/run.py --smoke`` runs the same scripts one after the other. The scripts that share a
mongoeco stand-in in ``run.py`` get this worker's stand-in (or ``MONGODB_URI``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # scripts import each other

from _report import missing, table
from run import BENCHMARKS, SHARED_MONGO, expected_cases, run_script, script_env


@pytest.mark.parametrize("name", BENCHMARKS)
def test_benchmark_runs_at_smoke_size_and_reports_every_case(name: str, request: pytest.FixtureRequest) -> None:
    shared_uri = request.getfixturevalue("mongo_uri") if name in SHARED_MONGO else None
    report = run_script(name, smoke=True, repeats=None, env=script_env(name, os.environ, shared_uri))
    assert report.results, name
    assert missing(report.results, expected_cases([name])) == []
    assert table(report.results).count("\n") >= len(report.results)
