"""Driver errors → the library's error families (one place, used by every MongoDB store)."""

from __future__ import annotations

from types import TracebackType

from pymongo.errors import ConnectionFailure, DocumentTooLarge, PyMongoError

from aimon_mongo.errors import AimonStorageError, BackendUnavailable
from aimon_mongo.mongo.unreachable import describe_unreachable


class failures:  # lower case: used like a function, ``with failures(Family, "what"):``
    """Re-raise a PyMongo error as :class:`BackendUnavailable` (unreachable, timed out) or as ``family``.

    ``what`` names the operation (and may name ids, never payloads). A document over the server's BSON size
    limit (PyMongo's ``DocumentTooLarge``, raised before anything is sent) becomes ``family`` naming the
    limit. Errors of our own families pass through unchanged. A class rather than a generator-based
    context manager: it wraps every store call.
    """

    __slots__ = ("_family", "_what")

    def __init__(self, family: type[AimonStorageError], action: str) -> None:
        self._family = family
        self._what = action

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if isinstance(exc, DocumentTooLarge):  # a bson InvalidDocument, not a PyMongoError
            raise self._family(
                f"{self._what} refused: the document is larger than MongoDB's BSON document limit "
                f"(16 MiB by default; the server's maxBsonObjectSize): {exc}"
            ) from exc
        if exc is None or not isinstance(exc, PyMongoError):
            return  # nothing to translate; never swallows
        if isinstance(exc, ConnectionFailure):
            raise BackendUnavailable(f"MongoDB unreachable during {self._what}: {describe_unreachable(exc)}") from exc
        raise self._family(f"{self._what} failed: {type(exc).__name__}: {_short(exc)}") from exc


def _short(exc: PyMongoError) -> str:
    text = str(exc)
    return text if len(text) <= 300 else text[:300] + "…"
