"""How psycopg failures become aimon errors (pure: no I/O).

A failure to reach the server (no connection, a broken one, the pool timing out, the server shutting
the session down) becomes :class:`~aimon_mongo.errors.BackendUnavailable` naming ``host:port``; anything
else becomes the error family of the capability that failed. Messages carry the SQLSTATE and psycopg's
text, which names objects and constraints but never parameter values.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from aimon_mongo.errors import AimonStorageError, BackendRefused, BackendUnavailable, InvalidArgumentError
from aimon_mongo.services.failures import Translator

# SQLSTATE classes/codes that mean "the server is not there for us": connection exceptions (08...),
# operator intervention (admin/crash shutdown, cannot connect now), and too many connections.
_UNAVAILABLE_CODES = frozenset({"57P01", "57P02", "57P03", "53300"})


def endpoint(conninfo: str, kwargs: dict[str, Any] | None = None) -> str:
    """``host:port`` of a connection string (several hosts joined by ``,``), for error messages."""
    try:
        params = conninfo_to_dict(conninfo, **(kwargs or {}))
    except psycopg.Error:
        return "<unparsable conninfo>"
    hosts = str(params.get("host") or params.get("hostaddr") or "localhost").split(",")
    ports = str(params.get("port") or "5432").split(",")
    if len(ports) == 1:
        ports = ports * len(hosts)
    return ",".join(f"{host}:{port}" for host, port in zip(hosts, ports, strict=False))


def require_conninfo(conninfo: str, name: str) -> str:
    """``conninfo`` when psycopg can parse it (a URI or ``key=value`` pairs), else
    :class:`~aimon_mongo.errors.InvalidArgumentError` with psycopg's reason (the string itself is not
    repeated: it may hold a password). Checked at construction: an unparsable string never connects, so the
    pool would otherwise retry it until its timeout."""
    try:
        conninfo_to_dict(conninfo)
    except psycopg.Error as exc:
        raise InvalidArgumentError(f"{name} is not a PostgreSQL connection string: {_reason(exc)}") from exc
    return conninfo


def is_unavailable(exc: BaseException) -> bool:
    """True when ``exc`` says the server could not be reached or dropped the connection."""
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = exc.sqlstate
    return state is None or state.startswith("08") or state in _UNAVAILABLE_CODES


_REFUSALS = ("does not exist", "authentication failed", "no pg_hba.conf entry")
"""What the server's FATAL answer to a connection attempt says when it was reached and refused it (libpq
gives such a failure no SQLSTATE): retrying will not help, the connection settings must change."""


def refusal(exc: BaseException) -> str | None:
    """The server's reason when ``exc`` is a connection it reached and refused (``database "x" does not
    exist``, a failed login), else ``None``."""
    if not isinstance(exc, psycopg.OperationalError) or exc.sqlstate is not None:
        return None
    _, fatal, said = str(exc).partition("FATAL:")
    said = " ".join(said.split())
    return said if fatal and any(marker in said for marker in _REFUSALS) else None


def translate(exc: psycopg.Error, family: type[AimonStorageError], where: str) -> AimonStorageError:
    """The aimon error for ``exc`` raised while talking to the server at ``where`` (``host:port``)."""
    refused = refusal(exc)
    if refused is not None:
        return BackendRefused(f"PostgreSQL at {where} refused the connection: {refused}")
    reason = _reason(exc)
    if is_unavailable(exc):
        return BackendUnavailable(f"PostgreSQL at {where} is not reachable: {reason}")
    return family(f"PostgreSQL at {where} failed: {reason}")


class translated(Translator):
    """Run a block of PostgreSQL calls, re-raising psycopg failures as ``family`` / ``BackendUnavailable``
    (the translator a service wraps around each driver call; see :mod:`aimon_mongo.services`). ``action``
    names the operation (ids, never values)."""

    __slots__ = ()

    def translate(self, exc: BaseException) -> None:
        if not isinstance(exc, psycopg.Error):
            return  # not psycopg's: it propagates unchanged
        refused = refusal(exc)
        if refused is not None:
            raise BackendRefused(
                f"PostgreSQL at {self.endpoint} refused the connection ({self.action}): {refused}"
            ) from exc
        reason = _reason(exc)
        if is_unavailable(exc):
            raise BackendUnavailable(
                f"PostgreSQL at {self.endpoint} is not reachable ({self.action}): {reason}"
            ) from exc
        raise self.family(f"PostgreSQL {self.action} failed at {self.endpoint}: {reason}") from exc


_MISSING_SCHEMA = frozenset({"42P01", "3F000"})  # undefined_table, invalid_schema_name
SCHEMA_HINT = "the schema's tables are missing: run ensure_schema() once, or apply sql/V*.sql"
"""Added to an error that names a missing table or schema (nothing ran the migrations there yet)."""


def _reason(exc: psycopg.Error) -> str:
    first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if not exc.sqlstate:
        return f"{type(exc).__name__}: {first_line}"
    hint = f" ({SCHEMA_HINT})" if exc.sqlstate in _MISSING_SCHEMA else ""
    return f"[{exc.sqlstate}] {first_line}{hint}"
