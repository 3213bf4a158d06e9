"""Driver errors → the library's error families (one place, used by every MongoDB store)."""

from __future__ import annotations

from pymongo.errors import ConnectionFailure, DocumentTooLarge, PyMongoError

from aimon_mongo.errors import BackendUnavailable
from aimon_mongo.mongo.unreachable import describe_unreachable
from aimon_mongo.services.failures import Translator, cause_text


class failures(Translator):  # lower case: used like a function, ``with failures(Family, "what"):``
    """Re-raise a PyMongo error as :class:`BackendUnavailable` (unreachable, timed out) or as ``family``.

    ``action`` names the operation (and may name ids, never payloads). A document over the server's BSON
    size limit (PyMongo's ``DocumentTooLarge``, raised before anything is sent) becomes ``family`` naming
    the limit. Errors of our own families pass through unchanged.
    """

    __slots__ = ()

    def translate(self, exc: BaseException) -> None:
        if isinstance(exc, DocumentTooLarge):  # a bson InvalidDocument, not a PyMongoError
            raise self.family(
                f"{self.action} refused: the document is larger than MongoDB's BSON document limit "
                f"(16 MiB by default; the server's maxBsonObjectSize): {exc}"
            ) from exc
        if not isinstance(exc, PyMongoError):
            return  # not PyMongo's: it propagates unchanged
        if isinstance(exc, ConnectionFailure):
            raise BackendUnavailable(f"MongoDB unreachable during {self.action}: {describe_unreachable(exc)}") from exc
        raise self.family(f"{self.action} failed: {cause_text(exc)}") from exc
