"""How a refused stored value is named in an error: only ever for non-payload fields.

An unreadable-entry reason names the value that failed when the field is an envelope field (an instant, a
priority, an id): the operator then sees ``deliveredAt`` = ``'not-a-timestamp'`` instead of guessing.
Payload fields (``userInput``, ``userInputEncoded``, metadata and option values, signal payloads, task
descriptions, ...) are never shown: a value is named only for a field in :data:`VALUE_NAMED_FIELDS` (an
allowlist, so a field added later stays silent until someone decides otherwise) and for instants. The value
is clipped to a short length and rendered with ``repr``, so control characters, line breaks and other
unprintable characters appear escaped and cannot forge log lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from aimon_mongo import names as n

SHOWN_LIMIT: Final = 40
"""Characters of a refused value kept in an error message."""

VALUE_NAMED_FIELDS: Final = frozenset(
    {
        n.ENV_CONVERSATION_ID,
        n.ENV_AGENT_REF,
        n.ENV_PRIORITY,
        n.ENV_TURN_ID,
        n.ENV_CONTEXT_DISCRIMINATOR,
        n.ENV_IDEMPOTENCY_KEY,
        n.ENV_DELIVERED_AT,
        n.F_ID,
        f"{n.F_PAYLOAD}.{n.ENV_DELIVERED_AT}",
    }
)
"""Envelope fields whose refused value an error may name (ids, the tier, the instant): never payload."""


def shown(value: str, limit: int = SHOWN_LIMIT) -> str:
    """``value`` as it may appear in an error: clipped to ``limit`` characters, quoted, escaped."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


def json_type(value: object) -> str:
    """The JSON (or Python) type name of ``value``, for error messages that must not echo the value."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def found(value: object, field: str) -> str:
    """What an error says it found under ``field``: the type, plus the value itself when ``field`` is a
    non-payload field (:data:`VALUE_NAMED_FIELDS`) and the value a scalar (text, number, boolean)."""
    kind = json_type(value)
    if field not in VALUE_NAMED_FIELDS:
        return kind
    if isinstance(value, str):
        return f"{kind} {shown(value)}"
    if isinstance(value, bool):
        return f"{kind} {'true' if value else 'false'}"
    if isinstance(value, int | float):
        return f"{kind} {shown(repr(value))[1:-1]}"
    return kind
