"""``SessionSignal`` ↔ ``{conversationId, kind, originNodeId, payload}`` (every backend).

The same object is the MongoDB document of ``conversation_signals`` (plus the server's ``_id``), the
Redis pub/sub message (as JSON text) and the PostgreSQL row (columns + ``payload`` JSONB). Keys are
written in that order. Decoding ignores unknown keys (``_id``, a foreign ``createdAt``); an unknown
``kind`` makes the whole signal undecodable (as in the reference), refused with :class:`CodecError`.
"""

from __future__ import annotations

from typing import Any, cast

from pydantic import ValidationError

from aimon_mongo import names as n
from aimon_mongo.codec._fields import stored_texts
from aimon_mongo.codec.json_text import compact_json
from aimon_mongo.codec.stored_fields import (
    enum_member,
    json_object,
    parse_json_object,
    require_object,
    required_id,
    required_str,
)
from aimon_mongo.errors import CodecError
from aimon_mongo.model.signal import SessionSignal, SignalKind
from aimon_mongo.stored.signal import RedisSignalMessage

_KINDS = {k.value: k for k in SignalKind}
_KIND_TEXTS = stored_texts(SignalKind)


def encode_signal(signal: SessionSignal) -> RedisSignalMessage:
    """``{"conversationId", "kind", "originNodeId", "payload"}`` in that order."""
    return {
        n.SIG_CONVERSATION_ID: signal.session_id,
        n.SIG_KIND: _KIND_TEXTS[signal.kind],
        n.SIG_ORIGIN_NODE_ID: signal.origin_node_id,
        n.SIG_PAYLOAD: dict(signal.payload),
    }


def signal_to_mongo(signal: SessionSignal) -> dict[str, Any]:
    """:func:`encode_signal` as the mutable document PyMongo's ``insert_one`` takes (it adds ``_id``)."""
    return cast("dict[str, Any]", encode_signal(signal))


def decode_signal(obj: object) -> SessionSignal:
    """Read a stored signal object; refuses with :class:`CodecError` (unknown kind, missing keys...)."""
    doc = require_object(obj, "signal")
    fields = {
        "session_id": required_id(doc, n.SIG_CONVERSATION_ID),
        "kind": decode_kind(doc.get(n.SIG_KIND)),
        "origin_node_id": required_str(doc, n.SIG_ORIGIN_NODE_ID),
        "payload": json_object(doc.get(n.SIG_PAYLOAD), n.SIG_PAYLOAD),
    }
    try:
        return SessionSignal(**fields)
    except ValidationError:  # pragma: no cover - the fields above are already what the model accepts
        raise CodecError("Cannot reconstruct the signal") from None


def decode_kind(value: object) -> SignalKind:
    """A stored kind name; an unknown one refuses (newer nodes roll kinds out behind shims)."""
    return enum_member(value, _KINDS, "signal kind")


def signal_to_json(signal: SessionSignal) -> str:
    """Compact JSON text of :func:`encode_signal` (the Redis message)."""
    return compact_json(encode_signal(signal))


def signal_from_json(text: str | bytes) -> SessionSignal:
    """Decode the JSON text form; refuses with :class:`CodecError` only."""
    return decode_signal(parse_json_object(text, "signal"))
