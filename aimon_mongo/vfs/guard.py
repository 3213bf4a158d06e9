"""Translation of driver failures into the VFS error family (pure; used by both flavours).

:class:`backend_errors` is a :class:`~aimon_mongo.services.failures.Translator`, the one translation mechanism
the session stores use too: errors of our own families pass through, the listed driver errors become
:class:`~aimon_mongo.errors.BackendConnectionError` (or :class:`~aimon_mongo.errors.VfsBackendUnavailable`),
and anything else propagates unchanged.
"""

from __future__ import annotations

from aimon_mongo.errors import BackendConnectionError, VfsBackendUnavailable, display_path
from aimon_mongo.services.failures import Translator, cause_text


class backend_errors(Translator):  # lower case: used like a function, ``with backend_errors(...):``
    """Re-raise a driver exception from ``errors`` as ``BackendConnectionError("<action>: <path>: <cause>")``.

    An exception from ``unavailable`` (the store cannot be reached) becomes :class:`VfsBackendUnavailable`
    saying ``MongoDB unreachable``, the words the session stores use. Errors of our own families (the VFS
    family among them) pass through unchanged; so does everything not listed in ``errors``. The driver's
    exception stays the ``__cause__``.
    """

    __slots__ = ("backend_type", "errors", "path", "unavailable")

    def __init__(
        self,
        errors: tuple[type[BaseException], ...],
        action: str,
        path: str | None,
        backend_type: str,
        unavailable: tuple[type[BaseException], ...] = (),
    ) -> None:
        super().__init__(BackendConnectionError, action)
        self.errors = errors
        self.path = path
        self.backend_type = backend_type
        self.unavailable = unavailable

    def translate(self, exc: BaseException) -> None:
        if not isinstance(exc, self.errors):
            return
        where = f": {display_path(self.path)}" if self.path is not None else ""
        if self.unavailable and isinstance(exc, self.unavailable):
            message = f"{self.action}{where}: {backend_type_name(self.backend_type)} unreachable ({cause_text(exc)})"
            raise VfsBackendUnavailable(message, self.path, self.backend_type) from exc
        raise BackendConnectionError(f"{self.action}{where}: {cause_text(exc)}", self.path, self.backend_type) from exc


def backend_type_name(backend_type: str) -> str:
    """How messages name a backend's store: ``MongoDB`` for GridFS, else the backend type."""
    return "MongoDB" if backend_type == "GRIDFS" else backend_type
