"""``AsyncMongoSessionBackends.from_uri`` (async source; the sync twin is generated): a bundle that owns its client.

The connection string follows :mod:`aimon_mongo.connection` (``uri``, else ``AIMON_MONGODB_URI``, else
``MONGODB_URI``, else ``mongodb://localhost:27017``). The client comes from :mod:`aimon_mongo.mongo.clients`
(``tz_aware``, at most :data:`~aimon_mongo.mongo.clients.DEFAULT_SERVER_SELECTION_TIMEOUT_MS` waiting for a
server unless the URI or ``client_options`` say otherwise); the bundle's ``close()`` closes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from pymongo import AsyncMongoClient

from aimon_mongo.connection import mongodb_uri_or_default
from aimon_mongo.mongo.clients import DEFAULT_SERVER_SELECTION_TIMEOUT_MS, open_client
from aimon_mongo.validate import require_id

if TYPE_CHECKING:
    from aimon_mongo._async.mongo.backends import AsyncMongoSessionBackends

B = TypeVar("B", bound="AsyncMongoSessionBackends")

__all__ = ["DEFAULT_SERVER_SELECTION_TIMEOUT_MS", "client_for", "open_backends"]


def client_for(uri: str | None, client_options: Mapping[str, Any] | None = None) -> AsyncMongoClient[Any]:
    """A new, not yet connected client for ``uri`` (resolved by :mod:`aimon_mongo.connection`); an unusable
    connection string is :class:`~aimon_mongo.errors.InvalidArgumentError`."""
    return open_client(AsyncMongoClient, mongodb_uri_or_default(uri), connect=False, **(client_options or {}))


def open_backends(
    cls: type[B],
    uri: str | None,
    node_id: str,
    database: str,
    ensure_schema: bool,
    client_options: Mapping[str, Any] | None,
    options: Mapping[str, Any],
) -> B:
    """``cls`` on database ``database`` of a client it owns (see the module docstring)."""
    require_id(node_id, "node_id")
    require_id(database, "database")
    client = client_for(uri, client_options)
    try:
        bundle = cls(client[database], node_id, ensure_schema=ensure_schema, **options)
    except BaseException:
        del client  # not connected yet (connect=False): nothing to close  # sync: client.close()
        raise
    bundle._owned_client = client
    return bundle
