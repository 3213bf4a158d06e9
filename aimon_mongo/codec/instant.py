"""Instants as Java's ``Instant.toString()`` renders them, and parsing of ISO-8601 instants.

Rendering: ``YYYY-MM-DDTHH:MM:SS[.fff|.ffffff|.fffffffff]Z`` in UTC, with 0, 3, 6 or 9 fraction digits (the
shortest group of three that holds the value, as Java writes it). Nine digits appear only for an
:class:`~aimon_mongo.model.instant.Instant` that carries nanoseconds below its microsecond, which is what
parsing returns for such text: a nine-digit instant a Java node wrote is written back with the same digits.
Years always have four digits (``0999-...``), as in Java. Parsing accepts 0-9 fraction digits and a ``Z`` or
numeric offset; anything else, including non-ASCII digits and offsets of a day or more, refuses with
:class:`CodecError` naming the field and (clipped, escaped) the text: an instant is never payload.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from aimon_mongo.codec._shown import shown
from aimon_mongo.errors import CodecError
from aimon_mongo.model.instant import Instant, with_nanos

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)


def as_utc(value: datetime) -> datetime:
    """An aware UTC datetime; a naive one is read as UTC (how PyMongo returns BSON dates without
    ``tz_aware``). A datetime that has no UTC form refuses with :class:`CodecError`."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    if value.tzinfo is UTC:
        return value
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise CodecError("datetime is outside the representable UTC range") from None


def to_millis(value: datetime) -> datetime:
    """``value`` truncated to the millisecond, the precision BSON stores dates with."""
    return value.replace(microsecond=value.microsecond - value.microsecond % 1000)


def epoch_millis(value: datetime) -> int:
    """An aware datetime as milliseconds since the Unix epoch (truncated)."""
    return (value - _EPOCH) // _MILLISECOND


def from_epoch_millis(millis: int) -> datetime:
    """Milliseconds since the Unix epoch (a server clock's) as an aware UTC datetime."""
    return _EPOCH + timedelta(milliseconds=int(millis))


_ISO = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.([0-9]{1,9}))?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})",
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
    sub_micros = value.sub_micros if type(value) is Instant else 0
    # isoformat() of a UTC datetime: "YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00"; Java writes "Z" and the
    # shortest of 0/3/6/9 fraction digits.
    text = datetime.isoformat(value)
    if sub_micros:
        if not value.microsecond:  # isoformat() wrote no fraction at all
            return f"{text[:-6]}.000000{sub_micros:03d}Z"
        return f"{text[:-6]}{sub_micros:03d}Z"
    micros = value.microsecond
    if micros and micros % 1000 == 0:
        return text[:-9] + "Z"
    return text[:-6] + "Z"


def parse_instant(text: object, field: str) -> datetime:
    """Parse an ISO-8601 instant stored under ``field`` into an aware UTC datetime.

    Digits below the microsecond are kept: the result is then an :class:`Instant`. Refuses with
    :class:`CodecError` naming ``field`` and the offending text (clipped, control characters escaped).
    """
    if not isinstance(text, str):
        if text is None:
            raise CodecError(f"Missing required field '{field}'")
        raise CodecError(f"field '{field}' must be an ISO-8601 instant string, got {type(text).__name__}")
    match = _ISO.fullmatch(text)
    if match is None:
        raise CodecError(f"field '{field}' is not an ISO-8601 instant: {shown(text)}")
    try:
        parsed = datetime.fromisoformat(text)
        parsed = parsed if parsed.tzinfo is UTC else parsed.astimezone(UTC)
    except (ValueError, OverflowError):
        raise CodecError(f"field '{field}' is not a valid instant: {shown(text)}") from None
    fraction = match.group(1)
    if fraction is None or len(fraction) <= 6:
        return parsed
    return with_nanos(parsed, int(fraction[6:].ljust(3, "0")))
