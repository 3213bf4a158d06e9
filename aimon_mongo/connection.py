"""Where a MongoDB connection string comes from: one documented precedence for every entry point.

An explicit value (``--uri``, a ``uri=`` argument) wins; then ``AIMON_MONGODB_URI``; then ``MONGODB_URI``.
The library's convenience constructors, the CLI, the demo, the examples and the fsspec filesystem all ask
:func:`resolve_mongodb_uri`, so a user sets one variable and every path agrees on it; with none of them set,
the constructors and the CLI use :data:`DEFAULT_URI` and the demo and the examples start a local stand-in.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any, Final, TypeVar

from aimon_mongo.errors import InvalidArgumentError

C = TypeVar("C")

URI_ENV: Final = "AIMON_MONGODB_URI"
"""The project's own variable: checked first after an explicit value."""

GENERIC_URI_ENV: Final = "MONGODB_URI"
"""The variable the MongoDB ecosystem uses (and our test suite's "use this real deployment")."""

URI_PRECEDENCE: Final = ("explicit --uri / uri=", URI_ENV, GENERIC_URI_ENV)
"""The order in which a connection string is looked for (documentation and error messages use this)."""


def resolve_mongodb_uri(explicit: str | None = None) -> str | None:
    """The connection string to use: ``explicit``, else ``AIMON_MONGODB_URI``, else ``MONGODB_URI``.

    Empty values count as unset. Returns ``None`` when none is given; callers decide what that means (the
    demo starts a stand-in, the CLI says which variables it looked at).
    """
    if explicit:
        return explicit
    for name in (URI_ENV, GENERIC_URI_ENV):
        value = os.environ.get(name)
        if value:
            return value
    return None


def uri_source(explicit: str | None = None) -> str | None:
    """Which of :data:`URI_PRECEDENCE` supplied :func:`resolve_mongodb_uri`'s answer (``None``: none did)."""
    if explicit:
        return URI_PRECEDENCE[0]
    for name in (URI_ENV, GENERIC_URI_ENV):
        if os.environ.get(name):
            return name
    return None


DEFAULT_URI: Final = "mongodb://localhost:27017"
"""What a convenience constructor connects to when no connection string is given anywhere (PyMongo's
own default host and port)."""


def mongodb_uri_or_default(explicit: str | None = None) -> str:
    """:func:`resolve_mongodb_uri`, or :data:`DEFAULT_URI` when nothing is configured."""
    return resolve_mongodb_uri(explicit) or DEFAULT_URI


def open_mongo_client(factory: Callable[..., C], uri: str, *, strict_options: bool = False, **options: Any) -> C:
    """``factory(uri, **options)`` — a PyMongo client class — with an unusable connection string refused as
    :class:`~aimon_mongo.errors.InvalidArgumentError` ``invalid MongoDB URI: <PyMongo's reason>`` (the
    reason names the part at fault, never the whole string, so no password is shown). ``strict_options``:
    an option value PyMongo cannot use and would ignore with a warning (``tls=maybe``) is refused too."""
    from pymongo.errors import ConfigurationError  # here: this module stays importable without PyMongo loaded

    try:
        with warnings.catch_warnings():
            if strict_options:
                warnings.simplefilter("error", UserWarning)
            return factory(uri, **options)
    except (ConfigurationError, ValueError, UserWarning) as exc:  # InvalidURI is a ConfigurationError
        raise InvalidArgumentError(f"invalid MongoDB URI: {exc}") from exc
