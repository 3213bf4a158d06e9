"""Instants as Java's ``Instant.toString()`` renders them, and parsing of ISO-8601 instants.

Rendering: ``YYYY-MM-DDTHH:MM:SS[.fff|.ffffff]Z`` in UTC, with 0, 3 or 6 fraction digits (the shortest
group of three that holds the value; Python datetimes stop at microseconds, so Java's 9-digit group is
never produced). Parsing accepts 0-9 fraction digits (nanoseconds are truncated to microseconds) and a
``Z`` or numeric offset.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from aimon_mongo.errors import CodecError

_ISO = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})\Z"
)


def format_instant(value: datetime) -> str:
    """Render an aware datetime the way ``java.time.Instant.toString()`` does."""
    if value.tzinfo is None:
        raise CodecError("cannot render a naive datetime as an instant")
    utc = value.astimezone(UTC)
    base = utc.strftime("%Y-%m-%dT%H:%M:%S")
    micros = utc.microsecond
    if micros == 0:
        return base + "Z"
    if micros % 1000 == 0:
        return f"{base}.{micros // 1000:03d}Z"
    return f"{base}.{micros:06d}Z"


def parse_instant(text: object, field: str) -> datetime:
    """Parse an ISO-8601 instant stored under ``field``; refuses with :class:`CodecError`."""
    if not isinstance(text, str):
        raise CodecError(f"Missing or non-textual field '{field}'")
    match = _ISO.match(text)
    if match is None:
        raise CodecError(f"field '{field}' is not an ISO-8601 instant")
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    micros = int((fraction or "0").ljust(6, "0")[:6])
    tz = UTC if zone == "Z" else _offset(zone)
    try:
        parsed = datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second or 0), micros, tzinfo=tz
        )
    except ValueError:
        raise CodecError(f"field '{field}' is not a valid instant") from None
    return parsed.astimezone(UTC)


def _offset(zone: str) -> timezone:
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
