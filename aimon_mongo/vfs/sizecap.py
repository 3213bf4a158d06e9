"""The per-file size cap, one enforcement point shared by every backend and both write paths (pure).

``max_file_size`` is ``-1`` (no cap) or ``>= 0``; ``0`` admits no byte. Bytes are counted as they are
written, never from a declared length; the check is ``additional > max - written`` (no overflow).
"""

from __future__ import annotations

from aimon_mongo.errors import InsufficientStorageError, InvalidArgumentError

NO_MAX_FILE_SIZE = -1


def check_max_file_size(value: int) -> int:
    """Validate a configured cap: ``-1`` or a non-negative byte count."""
    if isinstance(value, bool) or not isinstance(value, int) or value < NO_MAX_FILE_SIZE:
        raise InvalidArgumentError(f"Max file size must be -1 (no limit) or non-negative, got: {value!r}")
    return value


class SizeCap:
    """Counts the bytes admitted to one upload and refuses the write that would cross the cap."""

    __slots__ = ("_max", "_path", "_written")

    def __init__(self, max_size: int, path: str) -> None:
        self._max = max_size
        self._path = path
        self._written = 0

    @property
    def written(self) -> int:
        """Bytes admitted so far."""
        return self._written

    def admit(self, additional: int) -> None:
        """Count ``additional`` bytes, or raise :class:`InsufficientStorageError` admitting none of them."""
        if self._max != NO_MAX_FILE_SIZE and additional > self._max - self._written:
            raise InsufficientStorageError(self._max, self._path)
        self._written += additional
