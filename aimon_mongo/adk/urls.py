"""How the ADK services read their URLs, and the in-process stores ``memory://`` URLs share.

* ``mongodb://host:port/DB?…`` / ``mongodb+srv://…``: the database is the URL's path (the query is kept for
  the client); ``database=`` overrides it.
* ``memory://`` (or ``memory://<name>``): every service opened from the same URL in one process shares one
  store, so two services from one URL stand for two nodes. The store lives as long as a service holding it
  does; a service opened when none is left starts an empty one.
* ``redis://…`` / ``rediss://…`` / ``postgresql://…`` (sessions), ``file:///abs/dir`` (artifacts).
* Each may carry the prefix ``aimon+`` (``aimon+mongodb://…``): the schemes registered with ADK's service
  registry for ``adk web`` / ``adk api_server`` (:mod:`aimon_mongo.adk.registry`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit, urlunsplit

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.mongo.clients import display_uri

if TYPE_CHECKING:
    from aimon_mongo._async.vfs.memory import AsyncMemoryFileSystem
    from aimon_mongo.memory.storage import MemoryStorage

T = TypeVar("T", bound=object)

REGISTRY_PREFIX = "aimon+"
"""The prefix of the URL schemes registered with ADK (``aimon+mongodb://``, ``aimon+memory://`` …)."""

_lock = threading.Lock()
# a store lives while a service opened from its URL holds it (then the next service starts an empty one)
_memory_storages: weakref.WeakValueDictionary[str, MemoryStorage] = weakref.WeakValueDictionary()
_memory_filesystems: weakref.WeakValueDictionary[str, AsyncMemoryFileSystem] = weakref.WeakValueDictionary()


def without_registry_prefix(url: str) -> str:
    """``url`` without a leading ``aimon+`` (the form ADK's service registry hands over)."""
    if not isinstance(url, str):
        raise InvalidArgumentError(f"url must be a str, got {type(url).__name__}")
    return url[len(REGISTRY_PREFIX) :] if url.startswith(REGISTRY_PREFIX) else url


def scheme_of(url: str) -> str:
    """The URL's scheme, lower-cased; :class:`InvalidArgumentError` when it has none."""
    scheme = urlsplit(url).scheme.lower()
    if not scheme or "://" not in url:
        raise InvalidArgumentError(f"not a URL (no scheme://): {display_uri(url)!r}")
    return scheme


def mongo_database_of(url: str, database: str | None) -> tuple[str, str | None]:
    """``(client_url, database)``: the URL as the client takes it (path removed, query kept) and the
    database (``database`` when given, else the URL's path, else ``None`` for the library's default)."""
    parts = urlsplit(url)
    path_db = parts.path.strip("/") or None
    if path_db is not None and "/" in path_db:
        raise InvalidArgumentError(f"a MongoDB URL's path names one database, got {path_db!r}")
    client_url = urlunsplit((parts.scheme, parts.netloc, "/", parts.query, ""))
    return client_url, database if database is not None else path_db


def memory_name(url: str) -> str:
    """The store name of a ``memory://`` URL (``""`` for ``memory://``)."""
    rest = url.partition("://")[2]
    return rest.strip("/")


def shared_memory_storage(url: str) -> MemoryStorage:
    """The one session storage of ``url`` in this process (created on first use)."""
    from aimon_mongo.memory.storage import MemoryStorage

    return _shared(_memory_storages, url, MemoryStorage)


def shared_memory_filesystem(url: str) -> AsyncMemoryFileSystem:
    """The one in-memory filesystem of ``url`` in this process (created on first use)."""
    from aimon_mongo._async.vfs.memory import AsyncMemoryFileSystem

    return _shared(_memory_filesystems, url, AsyncMemoryFileSystem)


def _shared(table: weakref.WeakValueDictionary[str, T], url: str, make: Callable[[], T]) -> T:
    with _lock:
        name = memory_name(url)
        found = table.get(name)
        if found is None:
            found = table[name] = make()
        return found
