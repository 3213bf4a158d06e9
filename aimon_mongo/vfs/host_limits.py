"""Name and path length limits of the host filesystem under a local VFS base (shared by both flavours)."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_NAME_MAX = 255
"""Bytes in one path segment, where the platform does not say (``PC_NAME_MAX``)."""
DEFAULT_PATH_MAX = 4096
"""Bytes in a whole host path, where the platform does not say (``PC_PATH_MAX``)."""


def _pathconf(base: Path, name: str, default: int) -> int:
    try:
        value = os.pathconf(base, name)
    except (OSError, ValueError, AttributeError):
        return default
    return value if value > 0 else default


def host_limits(base: Path) -> tuple[int, int]:
    """``(name_max, path_max)`` in bytes of the filesystem holding ``base`` (defaults where unknown)."""
    return _pathconf(base, "PC_NAME_MAX", DEFAULT_NAME_MAX), _pathconf(base, "PC_PATH_MAX", DEFAULT_PATH_MAX)
