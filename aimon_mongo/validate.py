"""Argument checks done before anything reaches a store (untrusted strings stay strings)."""

from __future__ import annotations

from datetime import timedelta

from aimon_mongo.errors import InvalidArgumentError


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
