"""Translation of driver failures into the VFS error family (pure; used by both flavours)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from aimon_mongo.errors import BackendConnectionError, VirtualFileSystemError, display_path


@contextmanager
def backend_errors(
    errors: tuple[type[BaseException], ...], action: str, path: str | None, backend_type: str
) -> Iterator[None]:
    """Re-raise a driver exception from ``errors`` as ``BackendConnectionError("<action>: <path>")``.

    Errors of the VFS family pass through unchanged; so does everything not listed in ``errors``.
    """
    try:
        yield
    except VirtualFileSystemError:
        raise
    except errors as exc:
        where = f": {display_path(path)}" if path is not None else ""
        raise BackendConnectionError(f"{action}{where}", path, backend_type) from exc
