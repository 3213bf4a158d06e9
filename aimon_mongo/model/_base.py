"""Shared pydantic configuration of the value types."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict


class Frozen(BaseModel):
    """Base of every value type: immutable, strict about unknown attributes."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=False)


def _require_aware_utc(value: datetime) -> datetime:
    if value.tzinfo is UTC:
        return value
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("datetime must be timezone-aware (UTC)")
    try:
        return value.astimezone(UTC)
    except OverflowError:  # e.g. 0001-01-01T00:00+01:00 has no UTC form
        raise ValueError("datetime is outside the representable UTC range") from None


UtcDatetime = Annotated[datetime, AfterValidator(_require_aware_utc)]
"""A timezone-aware datetime, normalised to UTC. Naive datetimes are refused."""


def is_blank(value: str) -> bool:
    """True for the empty string and for strings of whitespace only."""
    return not value.strip()


def _require_not_blank(value: str) -> str:
    if is_blank(value):
        raise ValueError("must not be blank")
    return value


NonBlankStr = Annotated[str, AfterValidator(_require_not_blank)]
