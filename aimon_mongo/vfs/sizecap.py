"""The per-file size cap, one enforcement point shared by every backend and both write paths (pure).

``max_file_size`` is ``None`` (no cap) or ``>= 0``; ``0`` admits no byte. ``-1``, the reference's spelling
of "no cap", is still accepted and means ``None``, with a :class:`DeprecationWarning`. Bytes are counted as
they are written, never from a declared length; the check is ``additional > max - written`` (no overflow).
"""

from __future__ import annotations

import warnings
from typing import Final

from aimon_mongo.errors import InsufficientStorageError, InvalidArgumentError

NO_MAX_FILE_SIZE: Final = None
"""No per-file cap (the default)."""

_LEGACY_NO_MAX = -1


def check_max_file_size(value: int | None) -> int | None:
    """Validate a configured cap: ``None`` for none, else a non-negative byte count.

    The legacy ``-1`` still means ``None`` and warns (:class:`DeprecationWarning`, pointing at the caller of
    the filesystem constructor).
    """
    if value is None:
        return None
    if value == _LEGACY_NO_MAX and not isinstance(value, bool):
        warnings.warn(
            "max_file_size=-1 is deprecated: pass None for no per-file size cap", DeprecationWarning, stacklevel=3
        )
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidArgumentError(f"Max file size must be None (no limit) or non-negative, got: {value!r}")
    return value


class SizeCap:
    """Counts the bytes admitted to one upload and refuses the write that would cross the cap."""

    __slots__ = ("_max", "_path", "_written")

    def __init__(self, max_size: int | None, path: str) -> None:
        self._max = max_size
        self._path = path
        self._written = 0

    @property
    def written(self) -> int:
        """Bytes admitted so far."""
        return self._written

    def admit(self, additional: int) -> None:
        """Count ``additional`` bytes, or raise :class:`InsufficientStorageError` admitting none of them."""
        if self._max is not None and additional > self._max - self._written:
            raise InsufficientStorageError(self._max, self._path)
        self._written += additional
