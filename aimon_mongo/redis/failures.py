"""Translation of redis-py failures into the library's error families (pure; shared by both flavours).

Connection failures and timeouts become :class:`~aimon_mongo.errors.BackendUnavailable` naming the
server's ``host:port``; every other Redis error becomes the calling capability's family. Messages name
the operation, never a stored payload.
"""

from __future__ import annotations

import logging
from typing import Any

from redis import exceptions as rx

from aimon_mongo.errors import BackendUnavailable
from aimon_mongo.services.failures import Translator, brief
from aimon_mongo.services.fencing import Stale

log = logging.getLogger(__name__)

STALE_FENCE_MARK = "AIMON_STALE_FENCE"


def endpoint_of(client: Any) -> str:
    """``host:port`` (or the socket path) of a redis-py client, for error messages (a cluster client: the
    node it was built with, as ``cluster host:port``)."""
    nodes = getattr(getattr(client, "nodes_manager", None), "startup_nodes", None)
    if nodes:
        return f"cluster {next(iter(nodes))}"
    kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", {}) or {}
    if kwargs.get("path"):
        return f"unix:{kwargs['path']}"
    return f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}"


def retries_of(client: Any) -> int:
    """How many times a redis-py client re-sends a command after a connection error or timeout: 0 for a
    client built from a URL, several for one built with redis-py's ``Redis(...)`` defaults."""
    getter = getattr(client, "get_retry", None)
    retry = getter() if callable(getter) else None
    count = getattr(retry, "get_retries", None)
    return int(count()) if callable(count) else 0


def warn_if_retrying(client: Any) -> None:
    """A client that re-sends commands after a lost reply re-runs non-idempotent ones: say so, once."""
    retries = retries_of(client)
    if retries:
        log.warning(
            "the Redis client for %s re-sends a command up to %d times after a connection error: a collect whose "
            "reply was lost runs again and the entries it had removed are lost without an error, and a deliver "
            "can be stored twice; build it with retry=Retry(NoBackoff(), 0) (clients built from a URL do not retry)",
            endpoint_of(client),
            retries,
        )


class translated(Translator):
    """Run a block of Redis calls, re-raising its failures as ``family`` / ``BackendUnavailable``."""

    __slots__ = ()

    def translate(self, exc: BaseException) -> None:
        if isinstance(exc, rx.ConnectionError | rx.TimeoutError | ConnectionError | TimeoutError):
            raise BackendUnavailable(
                f"Redis at {self.endpoint} is not reachable ({self.action}): {brief(exc)}"
            ) from exc
        if isinstance(exc, rx.RedisError):
            raise self.family(f"Redis {self.action} failed: {brief(exc)}") from exc


def stale_fence(exc: BaseException) -> Stale | None:
    """The refusal a fenced script signalled with ``exc`` (naming the fence's highest token), or ``None``."""
    text = str(exc)
    if not isinstance(exc, rx.ResponseError) or STALE_FENCE_MARK not in text:
        return None
    tail = text.split(STALE_FENCE_MARK, 1)[1].split()
    highest = int(tail[0]) if tail and tail[0].isdigit() else None
    return Stale(highest)
