"""Argument checks done before anything reaches a store (untrusted strings stay strings)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TypeVar

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model.lease import Lease

T = TypeVar("T")


def require_id(value: object, argument: str) -> str:
    """``value`` if it is a non-empty, non-blank ``str``; else :class:`InvalidArgumentError` naming
    ``argument`` and the offending type (a dict such as ``{"$ne": None}``, bytes, ``None``...)."""
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{argument} must be a str, got {type(value).__name__}: {_shown(value)}")
    if not value.strip():
        raise InvalidArgumentError(f"{argument} must not be empty or blank, got {value!r}")
    if "\x00" in value:
        raise InvalidArgumentError(f"{argument} must not contain a NUL character, got {value!r}")
    return value


def require_positive(ttl: object, argument: str) -> timedelta:
    """``ttl`` if it is a positive :class:`timedelta`."""
    if not isinstance(ttl, timedelta):
        raise InvalidArgumentError(f"{argument} must be a timedelta, got {type(ttl).__name__}")
    if ttl <= timedelta(0):
        raise InvalidArgumentError(f"{argument} must be positive, got {ttl}")
    return ttl


def require_token(token: object, argument: str = "fencing_token") -> int:
    """A fencing token: an ``int`` >= 1 (``bool`` is refused)."""
    if isinstance(token, bool) or not isinstance(token, int):
        raise InvalidArgumentError(f"{argument} must be an int, got {type(token).__name__}")
    if token < 1:
        raise InvalidArgumentError(f"{argument} must be >= 1, got {token}")
    return token


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "…"


def require_instance(value: object, expected: type[T], argument: str) -> T:
    """``value`` if it is an instance of ``expected`` (e.g. an :class:`InboundMessage`)."""
    if not isinstance(value, expected):
        raise InvalidArgumentError(
            f"{argument} must be a {expected.__name__}, got {type(value).__name__}: {_shown(value)}"
        )
    return value


def require_limit(value: object, argument: str = "limit") -> int:
    """A positive ``int`` page size or bound (``bool`` is refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(f"{argument} must be an int, got {type(value).__name__}")
    if value < 1:
        raise InvalidArgumentError(f"{argument} must be >= 1, got {value}")
    return value


def require_aware(value: object, argument: str) -> datetime:
    """A timezone-aware ``datetime`` (naive ones are ambiguous across nodes), as UTC."""
    if not isinstance(value, datetime):
        raise InvalidArgumentError(f"{argument} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidArgumentError(f"{argument} must be timezone-aware, got a naive datetime")
    return value.astimezone(UTC)


def optional_id(value: object, argument: str) -> str | None:
    """``None`` or an id accepted by :func:`require_id`."""
    return None if value is None else require_id(value, argument)


def require_lease(lease: object, argument: str = "lease") -> Lease:
    """A :class:`Lease` whose ids and token pass the checks above (a lease built with ``model_construct``
    skips pydantic's validation, so its fields are checked again)."""
    checked = require_instance(lease, Lease, argument)
    require_id(checked.session_id, f"{argument}.session_id")
    require_id(checked.holder_id, f"{argument}.holder_id")
    require_token(checked.fencing_token, f"{argument}.fencing_token")
    return checked
