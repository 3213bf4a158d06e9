"""Driver errors → the library's error families (one place, used by every MongoDB store)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pymongo.errors import ConnectionFailure, PyMongoError

from aimon_mongo.errors import AimonStorageError, BackendUnavailable


@contextmanager
def failures(family: type[AimonStorageError], what: str) -> Iterator[None]:
    """Re-raise a PyMongo error as :class:`BackendUnavailable` (unreachable, timed out) or as ``family``.

    ``what`` names the operation (and may name ids, never payloads). Errors of our own families pass
    through unchanged.
    """
    try:
        yield
    except ConnectionFailure as exc:
        raise BackendUnavailable(f"MongoDB unreachable during {what}: {type(exc).__name__}: {exc}") from exc
    except PyMongoError as exc:
        raise family(f"{what} failed: {type(exc).__name__}: {_short(exc)}") from exc


def _short(exc: PyMongoError) -> str:
    text = str(exc)
    return text if len(text) <= 300 else text[:300] + "…"
