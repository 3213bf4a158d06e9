"""One way to open a session backend from a URL: :func:`open_backends` and :func:`open_async_backends`.

The URL's scheme picks the backend, and the bundle is built by that backend's own constructor
(``memory://`` → ``MemorySessionBackends``, ``mongodb://`` / ``mongodb+srv://`` →
``MongoSessionBackends.from_uri``, ``redis://`` / ``rediss://`` → ``RedisSessionBackends``,
``postgresql://`` / ``postgres://`` → ``PostgresSessionBackends``; the ``Async…`` class for the async
flavour). Keyword options go to that bundle unchanged (``database=`` for MongoDB, ``key_prefixes=`` for
Redis, ``schema=`` for PostgreSQL, ``clock=``, ...); an option the bundle does not take is refused with
:class:`~aimon_mongo.errors.UnknownOptionError` naming it and the options it does take.

``ensure_schema=True`` is accepted by every backend and creates what is missing: MongoDB's collections
and indexes and PostgreSQL's schema and tables on the bundle's first use (before anything else runs);
Redis and memory have nothing to create. An unknown scheme is refused with
:class:`~aimon_mongo.errors.InvalidArgumentError` naming the scheme (never the rest of the URL, which
may carry a password).

This module imports no backend until one is asked for (``import aimon_mongo`` stays cheap).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

from aimon_mongo.errors import InvalidArgumentError, UnknownOptionError

if TYPE_CHECKING:
    from aimon_mongo._async.ports import AsyncSessionBackends
    from aimon_mongo._sync.ports import SessionBackends

__all__ = ["BACKEND_SCHEMES", "backend_of", "open_async_backends", "open_backends"]

BACKEND_SCHEMES: Final[dict[str, str]] = {
    "memory": "memory",
    "mongodb": "mongo",
    "mongodb+srv": "mongo",
    "redis": "redis",
    "rediss": "redis",
    "postgresql": "postgres",
    "postgres": "postgres",
}
"""URL scheme → backend (``memory``, ``mongo``, ``redis``, ``postgres``)."""

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,31}")
_KNOWN = ", ".join(f"{scheme}://" for scheme in BACKEND_SCHEMES)


def backend_of(url: object) -> str:
    """The backend a URL names (``memory``, ``mongo``, ``redis`` or ``postgres``), by its scheme
    (case-insensitive). :class:`InvalidArgumentError` for anything else, naming the scheme only."""
    if not isinstance(url, str):
        raise InvalidArgumentError(f"a backend URL must be a str, got {type(url).__name__}")
    scheme, sep, _ = url.partition("://")
    if not sep or not scheme:
        raise InvalidArgumentError(f"a backend URL starts with a scheme (one of {_KNOWN}); this one has none")
    found = BACKEND_SCHEMES.get(scheme.strip().lower())
    if found is None:
        if _SCHEME.fullmatch(scheme) is None:  # not a scheme at all: it may hold a user name or password
            raise InvalidArgumentError(f"a backend URL starts with a scheme (one of {_KNOWN}); this one has none")
        raise InvalidArgumentError(f"unknown backend URL scheme {scheme!r}: one of {_KNOWN}")
    return found


def open_backends(url: str, *, node_id: str, **options: Any) -> SessionBackends:
    """The sync session bundle of node ``node_id`` on the backend ``url`` names (see the module text).

    The bundle owns what it opened (client, pool) and closes it with ``close()``; use it as a context
    manager. ``options`` are the bundle's keyword arguments; ``ensure_schema=True`` creates what is
    missing on the first use.
    """
    return _open(url, node_id, options, flavour="sync")  # type: ignore[no-any-return]


def open_async_backends(url: str, *, node_id: str, **options: Any) -> AsyncSessionBackends:
    """The async session bundle of node ``node_id`` on the backend ``url`` names (see the module text).

    Nothing connects here (the first operation does), so this is a plain function: ``async with
    open_async_backends(url, node_id=...) as node:`` closes the bundle on exit.
    """
    return _open(url, node_id, options, flavour="async")  # type: ignore[no-any-return]


def _open(url: str, node_id: str, options: dict[str, Any], flavour: str) -> Any:
    backend = backend_of(url)
    ensure = options.pop("ensure_schema", False)
    if not isinstance(ensure, bool):
        raise InvalidArgumentError(f"ensure_schema must be a bool, got {type(ensure).__name__}")
    opener = _OPENERS[backend]
    return opener(url, node_id, ensure, options, flavour == "async")


def _check_options(backend: str, options: dict[str, Any], *takers: tuple[Callable[..., Any], Iterable[str]]) -> None:
    """Refuse an option that no ``(callable, supplied)`` of ``takers`` accepts by keyword (``supplied``:
    the parameters the opener fills itself)."""
    accepted: set[str] = set()
    for taker, supplied in takers:
        skip = {"self", "ensure_schema", *supplied}
        for parameter in inspect.signature(taker).parameters.values():
            by_keyword = parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
            if by_keyword and parameter.name not in skip:
                accepted.add(parameter.name)
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise UnknownOptionError(
            f"the {backend} bundle takes no option {', '.join(map(repr, unknown))} "
            f"(it takes ensure_schema, {', '.join(sorted(accepted))})"
        )


def _memory(url: str, node_id: str, ensure: bool, options: dict[str, Any], is_async: bool) -> Any:
    if url.partition("://")[2].strip("/"):
        raise InvalidArgumentError("a memory:// URL takes no host or path (pass storage= to share state)")
    from aimon_mongo.memory import AsyncMemorySessionBackends, MemorySessionBackends

    cls = AsyncMemorySessionBackends if is_async else MemorySessionBackends
    _check_options("memory", options, (cls.__init__, ("node_id",)))
    return cls(node_id, **options)  # nothing to create for ensure_schema


def _mongo(url: str, node_id: str, ensure: bool, options: dict[str, Any], is_async: bool) -> Any:
    from aimon_mongo.mongo import AsyncMongoSessionBackends, MongoSessionBackends

    cls = AsyncMongoSessionBackends if is_async else MongoSessionBackends
    _check_options("MongoDB", options, (cls.from_uri, ("uri", "node_id")), (cls.__init__, ("database", "node_id")))
    return cls.from_uri(url, node_id=node_id, ensure_schema=ensure, **options)


def _redis(url: str, node_id: str, ensure: bool, options: dict[str, Any], is_async: bool) -> Any:
    from aimon_mongo.redis import AsyncRedisSessionBackends, RedisSessionBackends

    cls = AsyncRedisSessionBackends if is_async else RedisSessionBackends
    _check_options("Redis", options, (cls.__init__, ("client", "node_id")))
    return cls(url, node_id, **options)  # Redis has nothing to create for ensure_schema


def _postgres(url: str, node_id: str, ensure: bool, options: dict[str, Any], is_async: bool) -> Any:
    from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends

    cls = AsyncPostgresSessionBackends if is_async else PostgresSessionBackends
    _check_options("PostgreSQL", options, (cls.__init__, ("source", "node_id")))
    return cls(url, node_id, ensure_schema=ensure, **options)


_OPENERS: Final[dict[str, Callable[[str, str, bool, dict[str, Any], bool], Any]]] = {
    "memory": _memory,
    "mongo": _mongo,
    "redis": _redis,
    "postgres": _postgres,
}
