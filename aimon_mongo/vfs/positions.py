"""Stream positions with one behaviour on every backend (pure): ``seek`` and byte ranges.

``seek`` follows :mod:`io`'s conventions: ``whence`` is ``0`` (start), ``1`` (current) or ``2`` (end), any
other value is a :class:`ValueError`, and so is a resulting negative position; a position past the end is
allowed (reads there return ``b""``). A byte range is ``[start, end)`` with fsspec's conventions: ``None``
means the file's start or end, a negative bound counts from the end, bounds are clamped to the file.
"""

from __future__ import annotations

import os

from aimon_mongo.errors import InvalidArgumentError


def _require_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    return value


def resolve_seek(offset: int, whence: int, position: int, size: int) -> int:
    """The absolute position ``seek(offset, whence)`` moves to, from ``position`` in a file of ``size``."""
    offset = _require_int("offset", offset)
    whence = _require_int("whence", whence)
    if whence == os.SEEK_SET:
        target = offset
    elif whence == os.SEEK_CUR:
        target = position + offset
    elif whence == os.SEEK_END:
        target = size + offset
    else:
        raise ValueError(f"invalid whence ({whence}, should be 0, 1 or 2)")
    if target < 0:
        raise ValueError(f"negative seek position {target}")
    return target


def read_size(size: int | None) -> int:
    """A ``read(size)`` argument as a byte count, ``-1`` meaning "everything left"."""
    if size is None:
        return -1
    size = _require_int("size", size)
    return -1 if size < 0 else size


def byte_range(start: int | None, end: int | None, size: int) -> tuple[int, int]:
    """``[begin, stop)`` of a range request on a file of ``size`` bytes (``stop <= begin``: empty)."""
    for name, value in (("start", start), ("end", end)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise InvalidArgumentError(f"{name} must be an int or None, got {type(value).__name__}")
    begin = 0 if start is None else (max(size + start, 0) if start < 0 else min(start, size))
    stop = size if end is None else (max(size + end, 0) if end < 0 else min(end, size))
    return begin, stop
