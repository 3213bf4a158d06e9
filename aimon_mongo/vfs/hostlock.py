"""An exclusive lock on a local directory, shared by threads and processes of one host (both flavours).

The local backend holds it around "check the file's revision, then rename the new content over it", so a
conditional write is atomic against every other writer on the host. ``flock`` locks belong to the open
file description, so two threads of one process exclude each other too. Where ``fcntl`` does not exist
(Windows) the lock is a no-op and conditional writes are only as atomic as the check-then-rename.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]


@contextmanager
def directory_lock(directory: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``directory`` for the block."""
    if fcntl is None:  # pragma: no cover - not POSIX
        yield
        return
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)
