# GENERATED from aimon_mongo/_async/vfs/retry.py by scripts/gen_sync.py; do not edit.
"""Retrying a conditional write that lost a race (generated from the ``_async`` source).

A conditional write refused with :class:`~aimon_mongo.errors.RevisionMismatchError` changed nothing, so
an operation that recomputes its write from the file's current content (an append, an edit) can simply
run again; so can one whose read of the current content lost a race with a newer write
(:class:`~aimon_mongo.errors.FileReplacedError`). Backoff is short and randomised so concurrent writers
stop colliding.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from aimon_mongo._sync_runtime import sleep
from aimon_mongo.errors import FileReplacedError, InvalidArgumentError, RevisionMismatchError

T = TypeVar("T")

CONFLICT_ATTEMPTS = 200
"""How often an append or edit is tried before the last :class:`RevisionMismatchError` is raised."""
_BACKOFF_START = 0.001
_BACKOFF_CAP = 0.05

Operation = Callable[[], T]


def retry_conflicts(operation: Operation[T], attempts: int = CONFLICT_ATTEMPTS) -> T:
    """Run ``operation`` until it raises neither :class:`RevisionMismatchError` nor :class:`FileReplacedError`
    (at most ``attempts`` times; the last attempt's error is raised)."""
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
        raise InvalidArgumentError(f"attempts must be an int >= 1, got {attempts!r}")
    delay = _BACKOFF_START
    for attempt in range(1, attempts + 1):
        try:
            return operation()
        except (RevisionMismatchError, FileReplacedError):
            if attempt == attempts:
                raise
        sleep(random.uniform(0, delay))
        delay = min(delay * 2, _BACKOFF_CAP)
    raise AssertionError("unreachable")  # pragma: no cover
