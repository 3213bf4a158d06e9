"""Shared pydantic configuration of the value types."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict


class Frozen(BaseModel):
    """Base of every value type: immutable, strict about unknown attributes."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=False)


def _require_aware_utc(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("datetime must be timezone-aware (UTC)")
    return value.astimezone(UTC)


UtcDatetime = Annotated[datetime, AfterValidator(_require_aware_utc)]
"""A timezone-aware datetime, normalised to UTC. Naive datetimes are refused."""


def _require_not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


NonBlankStr = Annotated[str, AfterValidator(_require_not_blank)]
