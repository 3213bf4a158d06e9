"""How a service names the failure of a driver call.

A service wraps every driver call in ``with driver.failures(Family, "what it was doing"):``. Each backend
supplies that one translator (MongoDB :class:`aimon_mongo.mongo.failures.failures`, Redis
``AsyncRedisIO.guard``, PostgreSQL ``AsyncPgPool.failures``, memory :class:`no_failures`; the filesystems'
:class:`aimon_mongo.vfs.guard.backend_errors` is one too): its own
driver's errors become :class:`~aimon_mongo.errors.BackendUnavailable` (the store is not there) or the
capability's family the service names; errors of our own families pass through unchanged. So the error
family and the words of every message are policy, written once in the service, and the knowledge of
which driver exception means what stays in the backend.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from types import TracebackType
from typing import Protocol

from aimon_mongo.errors import AimonStorageError


class Failures(Protocol):
    """A backend's translator: ``failures(family, action)`` is a context manager (see the module text)."""

    def __call__(self, family: type[AimonStorageError], action: str) -> AbstractContextManager[None]: ...


CAUSE_LIMIT = 300
"""The longest driver message a translated error repeats."""


def brief(exc: BaseException) -> str:
    """A driver exception's message (its type name when it has none), cut to :data:`CAUSE_LIMIT`
    characters."""
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= CAUSE_LIMIT else text[:CAUSE_LIMIT] + "…"


def cause_text(exc: BaseException) -> str:
    """``<Type>: <message>`` of a driver exception (just ``<Type>`` when it has no message), cut to a
    readable length; a driver's message never holds a payload or file content."""
    text = brief(exc)
    return type(exc).__name__ if text == type(exc).__name__ else f"{type(exc).__name__}: {text}"


class Translator:
    """Base of the backends' translators (a :class:`Failures`): a context manager that lets success and
    errors of our own families through and hands any other exception to :meth:`translate`, which raises the
    library's error for it, or returns when the exception is not its driver's (it then propagates
    unchanged). A plain class rather than ``@contextmanager``: it wraps every store call, and this form
    costs a fraction of a generator's. ``endpoint`` (``host:port``) is for the messages of a translator
    that names its server."""

    __slots__ = ("action", "endpoint", "family")

    def __init__(self, family: type[AimonStorageError], action: str, endpoint: str = "") -> None:
        self.family = family
        self.action = action
        self.endpoint = endpoint

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if exc is not None and not isinstance(exc, AimonStorageError):
            self.translate(exc)

    def translate(self, exc: BaseException) -> None:
        """Raise the library's error for ``exc`` (``from exc``), or return if ``exc`` is not the driver's."""
        raise NotImplementedError


class no_failures:  # lower case: used like a function, ``with no_failures(Family, "what"):``
    """The translator of a store whose primitives cannot fail (the in-memory backend): lets everything
    through unchanged."""

    __slots__ = ()

    def __init__(self, family: type[AimonStorageError], action: str) -> None:
        del family, action

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        return None
