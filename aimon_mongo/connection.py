"""Where a MongoDB connection string comes from: one documented precedence for every entry point.

An explicit value (``--uri``, a ``uri=`` argument) wins; then ``AIMON_MONGODB_URI``; then ``MONGODB_URI``.
The library's convenience constructors, the CLI, the demo, the examples and the fsspec filesystem all ask
:func:`resolve_mongodb_uri`, so a user sets one variable and every path agrees on it; with none of them set,
the constructors and the CLI use :data:`DEFAULT_URI` and the demo and the examples start a local stand-in.
A client is built by :mod:`aimon_mongo.mongo.clients`.
"""

from __future__ import annotations

import os
from typing import Final

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
