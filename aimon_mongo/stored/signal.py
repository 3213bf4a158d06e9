"""Cross-node signals: ``{conversationId, kind, originNodeId, payload}``; kinds are the enum names.

The payload is a flat map of JSON values whose keys depend on the kind (see the routing facts); an
unknown kind makes the whole signal undecodable for older nodes.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, TypedDict

from bson import ObjectId

from aimon_mongo.model.signal import SignalKind
from aimon_mongo.stored.declare import Family, Jsonb, PgBigint, PgText, PgTimestamptz, root

FORMAT_VERSION: Final = 1
FAMILY: Final = Family("signal", FORMAT_VERSION)


@root("mongo.signal.document", FAMILY)
class MongoSignalDocument(TypedDict):
    """A document of the capped ``conversation_signals`` (no ``createdAt`` is written)."""

    _id: ObjectId
    conversationId: str
    kind: SignalKind
    originNodeId: str
    payload: dict[str, Any]


@root("redis.signal.message", FAMILY)
class RedisSignalMessage(TypedDict):
    """The JSON published on ``aimon:conv:control:<id>`` or ``aimon:conv:events:<id>``."""

    conversationId: str
    kind: SignalKind
    originNodeId: str
    payload: dict[str, Any]


@root("postgres.signal.row", FAMILY)
class PostgresSignalRow(TypedDict):
    """A row of ``conversation_signal``; NOTIFY carries only the id."""

    id: PgBigint
    conversation_id: PgText
    kind: SignalKind
    origin_node_id: PgText
    payload: Annotated[object, Jsonb(dict[str, Any])]
    created_at: PgTimestamptz
