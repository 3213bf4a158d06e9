"""Translation of driver failures into the VFS error family (pure; used by both flavours)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from aimon_mongo.errors import BackendConnectionError, VfsBackendUnavailable, VirtualFileSystemError, display_path

_CAUSE_LIMIT = 300


def cause_text(exc: BaseException) -> str:
    """``<Type>: <message>`` of a driver exception, cut to a readable length (it never holds file content)."""
    text = str(exc)
    if len(text) > _CAUSE_LIMIT:
        text = text[:_CAUSE_LIMIT] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@contextmanager
def backend_errors(
    errors: tuple[type[BaseException], ...],
    action: str,
    path: str | None,
    backend_type: str,
    unavailable: tuple[type[BaseException], ...] = (),
) -> Iterator[None]:
    """Re-raise a driver exception from ``errors`` as ``BackendConnectionError("<action>: <path>: <cause>")``.

    An exception from ``unavailable`` (the store cannot be reached) becomes :class:`VfsBackendUnavailable`
    saying ``MongoDB unreachable``, the words the session stores use. Errors of the VFS family pass through
    unchanged; so does everything not listed in ``errors``. The driver's exception stays the ``__cause__``.
    """
    try:
        yield
    except VirtualFileSystemError:
        raise
    except errors as exc:
        where = f": {display_path(path)}" if path is not None else ""
        if unavailable and isinstance(exc, unavailable):
            message = f"{action}{where}: {backend_type_name(backend_type)} unreachable ({cause_text(exc)})"
            raise VfsBackendUnavailable(message, path, backend_type) from exc
        raise BackendConnectionError(f"{action}{where}: {cause_text(exc)}", path, backend_type) from exc


def backend_type_name(backend_type: str) -> str:
    """How messages name a backend's store: ``MongoDB`` for GridFS, else the backend type."""
    return "MongoDB" if backend_type == "GRIDFS" else backend_type
