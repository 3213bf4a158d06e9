# GENERATED from aimon_mongo/_async/bundle.py by scripts/gen_sync.py; do not edit.
"""What every session-backend bundle shares: use as a context manager that closes it."""

from __future__ import annotations

from typing import Self


class ClosingBundle:
    """``with Bundle(...) as node:`` closes the bundle on exit (``close()`` is the subclass's)."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
