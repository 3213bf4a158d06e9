"""Read-only operator views over any session backend: the console and the ``aimon-mongo`` command read here.

:class:`Inspector` is the one service (waiting entries per session and priority, a page of sessions, peek,
claimed entries with their attempts, lease holders on the server's clock, quarantine pages, task pages); a
driver per backend answers the store's questions (:mod:`.mongo`, :mod:`.redis`, :mod:`.postgres`), and every
front end gets the same result types (:class:`InboxStats`, :class:`LeaseState`, :class:`SessionRow`,
``QuarantinedEntry``, ``BackgroundTask``). :func:`inspector_for` builds the inspector of a sync bundle; the
in-memory backend has none (its state lives in one process: read it through its stores).
"""

from __future__ import annotations

from typing import Any

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.inspect.service import (
    PRIORITY_NAMES,
    ClaimedEntry,
    InboxStats,
    InspectionDriver,
    Inspector,
    LeaseState,
    SessionDetail,
    SessionRow,
    empty_stats,
)

__all__ = [
    "PRIORITY_NAMES",
    "ClaimedEntry",
    "InboxStats",
    "InspectionDriver",
    "Inspector",
    "LeaseState",
    "SessionDetail",
    "SessionRow",
    "empty_stats",
    "inspector_for",
]


def inspector_for(bundle: Any) -> Inspector:
    """The :class:`Inspector` over a sync session bundle (MongoDB, Redis or PostgreSQL), reading through the
    bundle's own connection (closing the bundle ends it). Any other bundle is
    :class:`~aimon_mongo.errors.InvalidArgumentError` naming its type."""
    kinds = {cls.__name__ for cls in type(bundle).__mro__}
    kind = type(bundle).__name__
    driver: InspectionDriver
    if "MongoSessionBackends" in kinds:
        from aimon_mongo.inspect.mongo import MongoInspectionDriver

        driver = MongoInspectionDriver(bundle.database, bundle.collection_names)
    elif "RedisSessionBackends" in kinds:
        from aimon_mongo.inspect.redis import RedisInspectionDriver

        driver = RedisInspectionDriver(bundle)
    elif "PostgresSessionBackends" in kinds:
        from aimon_mongo.inspect.postgres import PostgresInspectionDriver

        driver = PostgresInspectionDriver(bundle)
    else:
        raise InvalidArgumentError(
            f"no inspection driver for a {kind} (MongoDB, Redis and PostgreSQL bundles have one)"
        )
    return Inspector(driver, bundle.inbox)
