"""Cross-node signals about a session."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, JsonValue

from aimon_mongo.model._base import Frozen, NonBlankStr


class SignalKind(StrEnum):
    """The seven signal kinds; the enum name is the wire value."""

    INTERRUPT = "INTERRUPT"
    EVICT = "EVICT"
    YIELD = "YIELD"
    MESSAGE_ENQUEUED = "MESSAGE_ENQUEUED"
    EVENT = "EVENT"
    TURN_RESULT = "TURN_RESULT"
    STATUS = "STATUS"


class SessionSignal(Frozen):
    """``{sessionId, kind, originNodeId, payload}``; payload values are JSON values."""

    session_id: NonBlankStr
    kind: SignalKind
    origin_node_id: str
    payload: dict[str, JsonValue] = Field(default_factory=dict)
