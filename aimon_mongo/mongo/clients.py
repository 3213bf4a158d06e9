"""The one place a PyMongo client is built, and the one way a MongoDB connection string is shown.

Every client this package opens — bundles (``from_uri``), filesystems (``GridFSFileSystem.from_uri``), the
LangGraph saver (``from_conn_string``), the console, the CLI, the demo and the pytest plugin — comes from
:func:`mongo_client` or :func:`async_mongo_client` (both :func:`open_client`), so they agree on:

* ``tz_aware=True`` (stored datetimes come back aware, in UTC);
* one server-selection timeout, :data:`DEFAULT_SERVER_SELECTION_TIMEOUT_MS`, unless the connection string,
  the ``timeout_ms`` argument or the options say otherwise;
* one error for an unusable connection string: :class:`~aimon_mongo.errors.InvalidArgumentError`
  ``invalid MongoDB URI: <PyMongo's reason>`` (the reason names the part at fault, never the whole string,
  so no password is shown).

:func:`display_uri` (the string with its credentials masked) and :func:`uri_hosts` (``host:port`` list) are
how a connection string appears in a message, a log line or a page.

PyMongo is imported when a client is built, not when this module is imported.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar
from urllib.parse import quote, unquote

from aimon_mongo.errors import InvalidArgumentError

if TYPE_CHECKING:
    from pymongo import AsyncMongoClient, MongoClient

C = TypeVar("C")

DEFAULT_SERVER_SELECTION_TIMEOUT_MS: Final = 10_000
"""How long an operation waits for a reachable server by default (PyMongo's own default is 30 s)."""

MASK: Final = "***"
"""What stands where a credential was."""

_SECRET_OPTION: Final = re.compile(r"pass|secret|token|^authmechanismproperties$", re.IGNORECASE)
"""Connection-string options whose values are credentials: ``password``, ``sslpassword``,
``tlsCertificateKeyFilePassword``, ``authMechanismProperties`` (it may hold a session token) and any whose name
says secret or token."""
_OPTION = re.compile(r"(?P<key>[^&;=]+)=(?P<value>[^&;#]*)")
_USERINFO = re.compile(r"^[a-z][a-z0-9+.-]*://(?P<user>[^:@/?#]*)(?::(?P<password>[^@/?#]*))?@", re.IGNORECASE)
_DSN_PASSWORD = re.compile(r"(?P<key>\bpassword\s*=\s*)(?P<value>'(?:[^'\\]|\\.)*'|[^\s]+)", re.IGNORECASE)
"""A ``password=`` pair of a libpq ``key=value`` connection string (its value bare or single-quoted)."""


def mongo_client(
    uri: str, *, timeout_ms: int | None = None, strict_options: bool = False, **options: Any
) -> MongoClient[dict[str, Any]]:
    """A PyMongo ``MongoClient`` for ``uri`` built the one way (see the module text).

    ``timeout_ms`` sets the server-selection timeout (it wins over the connection string); ``strict_options``
    refuses an option value PyMongo cannot use and would ignore with a warning (``tls=maybe``); other
    ``options`` go to PyMongo as given (``connect=False``, ``event_listeners=[...]``, ...).
    """
    from pymongo import MongoClient

    return open_client(MongoClient, uri, timeout_ms=timeout_ms, strict_options=strict_options, **options)


def async_mongo_client(
    uri: str, *, timeout_ms: int | None = None, strict_options: bool = False, **options: Any
) -> AsyncMongoClient[dict[str, Any]]:
    """The ``AsyncMongoClient`` twin of :func:`mongo_client` (same arguments, same defaults)."""
    from pymongo import AsyncMongoClient

    return open_client(AsyncMongoClient, uri, timeout_ms=timeout_ms, strict_options=strict_options, **options)


def client_options(uri: str, timeout_ms: int | None = None, **options: Any) -> dict[str, Any]:
    """The keyword arguments :func:`mongo_client` gives PyMongo for ``uri`` (``tz_aware``, the timeout, then
    ``options``)."""
    built: dict[str, Any] = {"tz_aware": True}
    if timeout_ms is not None:
        built["serverSelectionTimeoutMS"] = timeout_ms
    elif "serverselectiontimeoutms=" not in uri.lower():
        built["serverSelectionTimeoutMS"] = DEFAULT_SERVER_SELECTION_TIMEOUT_MS
    built.update(options)
    return built


def open_client(
    factory: Callable[..., C], uri: str, *, timeout_ms: int | None = None, strict_options: bool = False, **options: Any
) -> C:
    """:func:`mongo_client` for the PyMongo client class ``factory`` (``MongoClient`` or ``AsyncMongoClient``):
    what the ``_async`` sources call, so their generated twins build the other flavour."""
    from pymongo.errors import ConfigurationError

    if not isinstance(uri, str) or not uri:
        raise InvalidArgumentError(f"a MongoDB connection string must be a non-empty string, got {uri!r}")
    try:
        with warnings.catch_warnings():
            if strict_options:
                warnings.simplefilter("error", UserWarning)
            return factory(uri, **client_options(uri, timeout_ms, **options))
    except (ConfigurationError, ValueError, UserWarning) as exc:  # InvalidURI is a ConfigurationError
        raise InvalidArgumentError(f"invalid MongoDB URI: {exc}") from exc


def display_uri(uri: str) -> str:
    """``uri`` as it may be shown: the user name and password replaced by :data:`MASK`
    (``mongodb://***@host/db``), and so are the values of the options that carry credentials
    (``authMechanismProperties``, ``tlsCertificateKeyFilePassword``). A string that is not a URI (a bare
    ``host:port`` list) is shown as given, unless it has an ``@``: then only what follows it; a libpq
    ``key=value`` connection string (``host=db password=pw``) has its ``password`` value masked. The same rules
    hold for the other backends' URIs (``redis://user:pw@host``, ``postgresql://host/db?sslpassword=pw``), so
    front ends use this one function for any of them."""
    scheme, sep, rest = uri.partition("://")
    if not sep:
        if _DSN_PASSWORD.search(uri):
            return _DSN_PASSWORD.sub(lambda m: m["key"] + MASK, uri)
        return f"{MASK}@{uri.rsplit('@', 1)[1]}" if "@" in uri else uri
    hosts, slash, tail = rest.partition("/")
    if "@" in hosts:
        hosts = f"{MASK}@{hosts.rsplit('@', 1)[1]}"
    path, question, query = tail.partition("?")
    if query:
        query = _OPTION.sub(_mask_option, query)
    return f"{scheme}://{hosts}{slash}{path}{question}{query}"


def _mask_option(match: re.Match[str]) -> str:
    key = match.group("key")
    return f"{key}={quote(MASK)}" if _SECRET_OPTION.search(key) else match.group(0)


def uri_secrets(uri: str) -> list[str]:
    """The credentials in ``uri`` — the password of its user part, the values of its secret options (as
    :func:`display_uri` masks them), the ``password`` of a libpq ``key=value`` string — each as written and
    percent-decoded, so that a front end can scrub them from free text (an error message quoting a server)."""
    found: list[str] = []
    if "://" not in uri:
        found += [m["value"].strip("'") for m in _DSN_PASSWORD.finditer(uri)]
    else:
        user = _USERINFO.match(uri)
        if user and user["password"]:
            found.append(user["password"])
        for option in _OPTION.finditer(uri.partition("?")[2]):
            if option["value"] and _SECRET_OPTION.search(option["key"]):
                found.append(option["value"])
    return sorted(s for s in {*found, *(unquote(s) for s in found)} if s)


def uri_hosts(uri: str) -> str:
    """The ``host:port`` list of ``uri`` (a URI or a bare host list, as ``MongoClient`` takes; the one host
    of a ``redis://`` or ``postgresql://`` URL), never its credentials; ``<invalid URI>`` when it cannot be
    parsed. ``mongodb+srv://`` shows the SRV name (no DNS lookup is made)."""
    from pymongo.errors import ConfigurationError, InvalidURI
    from pymongo.uri_parser import split_hosts

    scheme, sep, rest = uri.partition("://")
    try:
        if not sep:
            nodes = split_hosts(uri)
        else:
            hosts = rest.partition("/")[0].rpartition("@")[2]
            if scheme == "mongodb+srv":
                return hosts or "<invalid URI>"
            if scheme in ("redis", "rediss", "postgresql", "postgres"):  # one host
                from urllib.parse import urlsplit

                found = urlsplit(uri)
                host = found.hostname or "localhost"
                return f"{host}:{found.port}" if found.port else host
            if scheme != "mongodb":
                return "<invalid URI>"
            nodes = split_hosts(hosts)
    except (InvalidURI, ValueError, ConfigurationError):
        return "<invalid URI>"
    return ", ".join(f"{host}:{port}" for host, port in nodes)
