"""The conversation lease ("the lock") with its fencing token."""

from __future__ import annotations

from pydantic import Field

from aimon_mongo.model._base import Frozen, NonBlankStr, UtcDatetime


class Lease(Frozen):
    """A held lease. ``fencing_token`` strictly increases per session, across release and expiry."""

    session_id: NonBlankStr
    holder_id: NonBlankStr
    fencing_token: int = Field(ge=1)
    expires_at: UtcDatetime
