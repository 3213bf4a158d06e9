"""Shared pydantic configuration of the value types."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Self

from pydantic import AfterValidator, BaseModel, ConfigDict

_set_slot = object.__setattr__


class Frozen(BaseModel):
    """Base of every value type: immutable, strict about unknown attributes."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=False)

    @classmethod
    def from_checked_fields(cls, fields: dict[str, Any]) -> Self:
        """An instance built from ``fields`` without running validation: a codec's fast path.

        The caller promises that ``fields`` holds every field of the model (defaults included) and that
        each value already satisfies every rule the model would check (types, non-blank ids, aware UTC
        datetimes, nested values that are instances of their model). It is what ``model_construct`` does,
        minus its per-field bookkeeping; the dict is taken over, not copied. Codec tests re-validate what
        the codecs build this way, so a rule added to a model without the codec learning it shows up.
        """
        obj = cls.__new__(cls)
        _set_slot(obj, "__dict__", fields)
        _set_slot(obj, "__pydantic_fields_set__", set(fields))
        _set_slot(obj, "__pydantic_extra__", None)
        _set_slot(obj, "__pydantic_private__", None)
        return obj


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
