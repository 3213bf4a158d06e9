"""What the benchmarks print about the machine they ran on."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def machine() -> str:
    """CPU count and model, Python version."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs (nproc), {model}, Python {platform.python_version()}"
