"""Argument checks done before anything reaches a store (untrusted strings stay strings)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from aimon_mongo.codec.inbound import OPTIONS_MAX_DEPTH
from aimon_mongo.codec.stored_fields import MAX_JSON_DEPTH
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model.inbound import InboundMessage
from aimon_mongo.model.lease import Lease
from aimon_mongo.model.signal import SessionSignal

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


def require_holder(value: object, argument: str, forbidden: str, why: str) -> str:
    """A holder id accepted by :func:`require_id` that holds none of the ``forbidden`` characters (those a
    store's stored format reserves, named by ``why``)."""
    holder = require_id(value, argument)
    if any(c in holder for c in forbidden):
        raise InvalidArgumentError(
            f"{argument} must not contain any of {forbidden!r} on this store ({why}), got {holder!r}"
        )
    return holder


def require_positive(ttl: object, argument: str) -> timedelta:
    """``ttl`` if it is a positive :class:`timedelta`."""
    if not isinstance(ttl, timedelta):
        raise InvalidArgumentError(f"{argument} must be a timedelta, got {type(ttl).__name__}: {_shown(ttl)}")
    if ttl <= timedelta(0):
        raise InvalidArgumentError(f"{argument} must be positive, got {ttl}")
    return ttl


def require_token(token: object, argument: str = "fencing_token") -> int:
    """A fencing token: an ``int`` >= 1 (``bool`` is refused)."""
    if isinstance(token, bool) or not isinstance(token, int):
        raise InvalidArgumentError(f"{argument} must be an int, got {type(token).__name__}: {_shown(token)}")
    if token < 1:
        raise InvalidArgumentError(f"{argument} must be >= 1, got {token}")
    return token


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "…"


def a_or_an(name: str) -> str:
    """``"an InboundMessage"``, ``"a Lease"``: the type name with its indefinite article."""
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def require_instance(value: object, expected: type[T], argument: str) -> T:
    """``value`` if it is an instance of ``expected`` (e.g. an :class:`InboundMessage`)."""
    if not isinstance(value, expected):
        wanted, got = expected.__name__, type(value).__name__
        if wanted == got:  # e.g. mongomock's Database for PyMongo's: name both by module
            wanted, got = f"{expected.__module__}.{wanted}", f"{type(value).__module__}.{got}"
        raise InvalidArgumentError(f"{argument} must be {a_or_an(wanted)}, got {got}: {_shown(value)}")
    return value


def require_limit(value: object, argument: str = "limit") -> int:
    """A positive ``int`` page size or bound (``bool`` is refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(f"{argument} must be an int, got {type(value).__name__}: {_shown(value)}")
    if value < 1:
        raise InvalidArgumentError(f"{argument} must be >= 1, got {value}")
    return value


def require_aware(value: object, argument: str) -> datetime:
    """A timezone-aware ``datetime`` (naive ones are ambiguous across nodes), as UTC."""
    if not isinstance(value, datetime):
        raise InvalidArgumentError(f"{argument} must be a datetime, got {type(value).__name__}: {_shown(value)}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidArgumentError(f"{argument} must be timezone-aware, got the naive datetime {value.isoformat()}")
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


def require_nesting(value: T, argument: str, limit: int, depth: int = 0) -> T:
    """``value`` if nothing inside it sits more than ``limit`` levels deep (``value`` itself at ``depth``,
    each object or array one level more); else :class:`InvalidArgumentError` naming ``argument`` and the
    limit. Iterative, so a value nested 10,000 deep is refused rather than ending in a RecursionError."""
    stack: list[tuple[object, int]] = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if level > limit:
            raise InvalidArgumentError(f"{argument} is nested deeper than {limit} levels")
        if isinstance(item, Mapping):
            stack.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((child, level + 1) for child in item)
    return value


def require_message(message: object, argument: str = "message") -> InboundMessage:
    """An :class:`InboundMessage` whose option maps every backend can store *and read back*.

    The model refuses deep maps already; this catches messages whose validation was skipped
    (``model_construct``), which would otherwise reach an encoder (a RecursionError in BSON) or be stored
    and then be unreadable: the limit is the readers' (the ``submitOptions`` subtree at level 0).
    """
    checked = require_instance(message, InboundMessage, argument)
    options = checked.submit_options
    for name, value in (
        ("system_prompt_variables", options.system_prompt_variables),
        ("execution_attributes", options.execution_attributes),
    ):
        if value:
            require_nesting(value, f"{argument}.submit_options.{name}", OPTIONS_MAX_DEPTH - 1, depth=1)
    return checked


def require_signal(signal: object, argument: str = "signal") -> SessionSignal:
    """A :class:`SessionSignal` whose payload the receivers can decode (the payload at level 0)."""
    checked = require_instance(signal, SessionSignal, argument)
    if checked.payload:
        require_nesting(checked.payload, f"{argument}.payload", MAX_JSON_DEPTH)
    return checked


def optional_budget_override(value: object) -> dict[str, Any] | None:
    """``None`` or a session record's budget override: a dict every backend can store and read back
    (nested at most :data:`MAX_JSON_DEPTH` levels, the readers' limit, the dict itself at level 0)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidArgumentError(
            f"budget_override must be a dict or None, got {type(value).__name__}: {_shown(value)}"
        )
    return require_nesting(value, "budget_override", MAX_JSON_DEPTH)


def require_messages(messages: object, argument: str = "messages") -> list[InboundMessage]:
    """Every item of a list or tuple checked by :func:`require_message`; a bad one is named by its index
    (``messages[3] must be ...``). A string, a mapping or any other non-sequence is refused as a whole."""
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
        raise InvalidArgumentError(
            f"{argument} must be a list or tuple of InboundMessage, got {type(messages).__name__}"
        )
    return [require_message(item, f"{argument}[{index}]") for index, item in enumerate(messages)]


def delivery_action(messages: Sequence[InboundMessage]) -> str:
    """How a ``deliver_many`` call is named in an error: its size and its session (or how many sessions)."""
    sessions = {message.session_id for message in messages}
    target = f"session {next(iter(sessions))!r}" if len(sessions) == 1 else f"{len(sessions)} sessions"
    return f"inbox deliver of {len(messages)} entries to {target}"
