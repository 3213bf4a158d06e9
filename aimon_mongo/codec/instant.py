"""Instants as Java's ``Instant.toString()`` renders them, and parsing of ISO-8601 instants.

Rendering: ``YYYY-MM-DDTHH:MM:SS[.fff|.ffffff]Z`` in UTC, with 0, 3 or 6 fraction digits (the shortest
group of three that holds the value; Python datetimes stop at microseconds, so Java's 9-digit group is
never produced). Years always have four digits (``0999-...``), as in Java. Parsing accepts 0-9 fraction
digits (nanoseconds are truncated to microseconds) and a ``Z`` or numeric offset; anything else, including
non-ASCII digits and offsets of a day or more, refuses with :class:`CodecError`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from aimon_mongo.errors import CodecError

_ISO = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,9})?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})",
    re.ASCII,
)


def format_instant(value: datetime) -> str:
    """Render an aware datetime the way ``java.time.Instant.toString()`` does."""
    if value.tzinfo is not UTC:
        if value.tzinfo is None or value.utcoffset() is None:
            raise CodecError("cannot render a naive datetime as an instant")
        try:
            value = value.astimezone(UTC)
        except OverflowError:
            raise CodecError("datetime is outside the representable UTC range") from None
    # isoformat() of a UTC datetime: "YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00"; Java writes "Z" and the
    # shortest of 0/3/6 fraction digits.
    text = value.isoformat()
    micros = value.microsecond
    if micros and micros % 1000 == 0:
        return text[:-9] + "Z"
    return text[:-6] + "Z"


def parse_instant(text: object, field: str) -> datetime:
    """Parse an ISO-8601 instant stored under ``field`` into an aware UTC datetime.

    Refuses with :class:`CodecError` naming ``field`` (never the stored text).
    """
    if not isinstance(text, str):
        if text is None:
            raise CodecError(f"Missing required field '{field}'")
        raise CodecError(f"field '{field}' must be an ISO-8601 instant string, got {type(text).__name__}")
    if _ISO.fullmatch(text) is None:
        raise CodecError(f"field '{field}' is not an ISO-8601 instant")
    try:
        parsed = datetime.fromisoformat(text)
        return parsed if parsed.tzinfo is UTC else parsed.astimezone(UTC)
    except (ValueError, OverflowError):
        raise CodecError(f"field '{field}' is not a valid instant") from None
