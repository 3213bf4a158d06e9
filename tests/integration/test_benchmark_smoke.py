"""The MongoDB session benchmark runs (smoke sizes) against the test server and prints its table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mongo_session_benchmark_smoke(mongo_uri: str) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "mongo_session.py"), "--smoke"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MONGODB_URI": mongo_uri},
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "| deliver+collect  |" in result.stdout
    assert "| acquire+release  |" in result.stdout
    assert "target: throughput ratio >= 0.90x" in result.stdout
