"""The inbox envelope (:class:`InboundMessage`) in its two stored forms.

**JSON envelope** (Redis stream field, PostgreSQL ``payload`` JSONB), compact JSON with keys in this order,
optional ones only when present::

    conversationId, agentRef, userInput, [userInputEncoded], priority, [turnId], [contextDiscriminator],
    [idempotencyKey], initiator, deliveredAt, metadata, [submitOptions]

**MongoDB document** (``conversation_inbox``)::

    {_id: ObjectId, conversationId, priority: <ordinal>, deliveredAt: <date>,
     payload: {agentRef, contextDiscriminator, userInput, [userInputEncoded], turnId, idempotencyKey,
               initiator, deliveredAt, metadata, [submitOptions]}}

``userInput`` is always the text rendering (``as_text()``); ``userInputEncoded`` (an object in JSON, the same
JSON as a *string* in MongoDB) is written only for non-text input, so a text submission is byte-for-byte
what older builds wrote. On read only ``userInputEncoded`` degrades (to ``TextInput(userInput)`` with one
WARN naming the session); everything else refuses with :class:`CodecError`, and nothing else escapes.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, cast

from bson import ObjectId
from pydantic import ValidationError

from aimon_mongo.codec import submit_options, user_input
from aimon_mongo.codec._fields import json_type, text_map
from aimon_mongo.codec._shown import found, shown
from aimon_mongo.codec.instant import as_utc, format_instant, parse_instant
from aimon_mongo.codec.json_text import compact_json, parse_json
from aimon_mongo.codec.principal import decode_principal, encode_principal
from aimon_mongo.errors import CodecError, InvalidArgumentError
from aimon_mongo.model._base import is_blank
from aimon_mongo.model.inbound import InboundMessage
from aimon_mongo.model.priority import Priority
from aimon_mongo.model.submit_options import SubmitOptions
from aimon_mongo.model.user_input import TextInput
from aimon_mongo.names import (
    ENV_AGENT_REF,
    ENV_CONTEXT_DISCRIMINATOR,
    ENV_CONVERSATION_ID,
    ENV_DELIVERED_AT,
    ENV_IDEMPOTENCY_KEY,
    ENV_INITIATOR,
    ENV_METADATA,
    ENV_PRIORITY,
    ENV_SUBMIT_OPTIONS,
    ENV_TURN_ID,
    ENV_USER_INPUT,
    ENV_USER_INPUT_ENCODED,
    F_CONVERSATION_ID,
    F_DELIVERED_AT,
    F_ID,
    F_PAYLOAD,
    F_PRIORITY,
    UI_TAG_TEXT,
)
from aimon_mongo.stored.inbox import (
    InboxEnvelopeJson,
    MongoInboxDocument,
    MongoInboxPayload,
    PriorityName,
    PriorityOrdinal,
)
from aimon_mongo.stored.submit_options import SubmitOptionsJson

__all__ = [
    "from_json_envelope",
    "from_mongo_document",
    "recover_address",
    "to_json_envelope",
    "to_mongo_document",
]

_PRIORITY_NAME = cast("dict[Priority, PriorityName]", {p: p.name for p in Priority})
_PRIORITY_ORDINAL = cast("dict[Priority, PriorityOrdinal]", {p: p.value for p in Priority})
_PRIORITY_BY_NAME = {p.name: p for p in Priority}
_PRIORITY_BY_ORDINAL = {p.value: p for p in Priority}
_EMPTY_OPTIONS = SubmitOptions.empty()
OPTIONS_MAX_DEPTH = 256  # deeper submitOptions subtrees are refused on read (the model refuses them earlier)


# --------------------------------------------------------------------------------------------- encode


def to_json_envelope(msg: InboundMessage) -> str:
    """The Redis/PostgreSQL form of ``msg``: compact JSON text, keys in the frozen order."""
    inp = msg.user_input
    out: InboxEnvelopeJson = {}  # type: ignore[typeddict-item]  # filled in the frozen key order, key by key
    out[ENV_CONVERSATION_ID] = msg.session_id
    out[ENV_AGENT_REF] = msg.agent_ref
    out[ENV_USER_INPUT] = inp.as_text()
    if type(inp) is not TextInput:
        out[ENV_USER_INPUT_ENCODED] = user_input.encode(inp)
    out[ENV_PRIORITY] = _PRIORITY_NAME[msg.priority]
    if msg.turn_id is not None:
        out[ENV_TURN_ID] = msg.turn_id
    if msg.context_discriminator is not None:
        out[ENV_CONTEXT_DISCRIMINATOR] = msg.context_discriminator
    if msg.idempotency_key is not None:
        out[ENV_IDEMPOTENCY_KEY] = msg.idempotency_key
    out[ENV_INITIATOR] = encode_principal(msg.initiator)
    out[ENV_DELIVERED_AT] = format_instant(msg.delivered_at)
    out[ENV_METADATA] = msg.metadata
    options = _options_subtree(msg)
    if options is None:
        return compact_json(out, only_text=True)  # nothing but strings: the fast writer applies
    out[ENV_SUBMIT_OPTIONS] = options
    return compact_json(out)


def to_mongo_document(msg: InboundMessage, object_id: ObjectId) -> MongoInboxDocument:
    """The MongoDB form of ``msg`` under the pre-allocated ``object_id``.

    The top-level ``deliveredAt`` is the envelope's instant here; the store overwrites it with the server
    clock (``$$NOW``) on delivery. BSON dates keep milliseconds, so the stored instants lose any finer part.
    """
    if not isinstance(object_id, ObjectId):
        raise InvalidArgumentError(f"object_id must be a bson ObjectId, got {type(object_id).__name__}")
    inp = msg.user_input
    payload: MongoInboxPayload = {}  # type: ignore[typeddict-item]  # filled in the frozen key order
    payload[ENV_AGENT_REF] = msg.agent_ref
    payload[ENV_CONTEXT_DISCRIMINATOR] = msg.context_discriminator
    payload[ENV_USER_INPUT] = inp.as_text()
    if type(inp) is not TextInput:
        payload[ENV_USER_INPUT_ENCODED] = user_input.encode_to_string(inp)
    payload[ENV_TURN_ID] = msg.turn_id
    payload[ENV_IDEMPOTENCY_KEY] = msg.idempotency_key
    payload[ENV_INITIATOR] = encode_principal(msg.initiator)
    payload[ENV_DELIVERED_AT] = msg.delivered_at
    payload[ENV_METADATA] = dict(msg.metadata)
    options = _options_subtree(msg)
    if options is not None:
        payload[ENV_SUBMIT_OPTIONS] = options
    return {
        F_ID: object_id,
        F_CONVERSATION_ID: msg.session_id,
        F_PRIORITY: _PRIORITY_ORDINAL[msg.priority],
        F_DELIVERED_AT: msg.delivered_at,
        F_PAYLOAD: payload,
    }


def _options_subtree(msg: InboundMessage) -> SubmitOptionsJson | None:
    """The ``submitOptions`` subtree, or ``None`` when the options are empty (the key is then omitted)."""
    if msg.submit_options is _EMPTY_OPTIONS:
        return None
    return submit_options.encode(msg.submit_options) or None


# --------------------------------------------------------------------------------------------- decode


def from_json_envelope(text: str | bytes, entry_id: str | None = None) -> InboundMessage:
    """Read the Redis/PostgreSQL form; ``entry_id`` (the stream entry id / row id) becomes ``msg.id``.

    Refuses with :class:`CodecError` (and nothing else) when the envelope is damaged: not a JSON object, a
    required key missing or of the wrong type, an unknown priority name or principal type, a bad instant.
    An unreadable ``userInputEncoded`` does not refuse: it degrades to ``TextInput(userInput)``.
    """
    if entry_id is not None and not isinstance(entry_id, str):
        raise InvalidArgumentError(f"entry_id must be a str, got {type(entry_id).__name__}")
    obj = parse_json(text, "inbox envelope")
    if type(obj) is not dict:
        raise CodecError(f"inbox envelope must be a JSON object, got {json_type(obj)}")
    name = obj.get(ENV_PRIORITY)
    priority = _PRIORITY_BY_NAME.get(name) if type(name) is str else None
    if priority is None:
        raise CodecError(_bad_priority(name))
    delivered_at = parse_instant(obj.get(ENV_DELIVERED_AT), ENV_DELIVERED_AT)
    return _build(
        entry_id,
        obj.get(ENV_CONVERSATION_ID),
        obj,
        priority,
        delivered_at,
        obj.get(ENV_USER_INPUT_ENCODED),
        obj.get(ENV_SUBMIT_OPTIONS),
    )


def from_mongo_document(doc: Mapping[str, Any]) -> InboundMessage:
    """Read the MongoDB form; the ``_id`` hex becomes ``msg.id``.

    BSON dates are accepted naive (PyMongo's default, read as UTC) or aware, and come back aware UTC.
    ``userInput`` / ``userInputEncoded`` must be strings (a non-string refuses, as in the reference).
    Refuses with :class:`CodecError` and nothing else.
    """
    if not isinstance(doc, Mapping):
        raise CodecError(f"inbox document must be a document, got {json_type(doc)}")
    oid = doc.get(F_ID)
    if not isinstance(oid, ObjectId):
        raise CodecError(f"field '{F_ID}' must be an ObjectId, got {found(oid, F_ID)}")
    ordinal = doc.get(F_PRIORITY)
    priority = None
    if isinstance(ordinal, int) and not isinstance(ordinal, bool):
        priority = _PRIORITY_BY_ORDINAL.get(ordinal)
    if priority is None:
        raise CodecError(_bad_priority(ordinal))
    payload = doc.get(F_PAYLOAD)
    if not isinstance(payload, Mapping):
        raise CodecError(f"Missing {F_PAYLOAD} field" if payload is None else _not_document(payload))
    raw_at = payload.get(ENV_DELIVERED_AT)
    if not isinstance(raw_at, datetime):
        at_field = f"{F_PAYLOAD}.{ENV_DELIVERED_AT}"
        raise CodecError(f"field '{at_field}' must be a date, got {found(raw_at, at_field)}")
    encoded = payload.get(ENV_USER_INPUT_ENCODED)
    if encoded is not None and not isinstance(encoded, str):
        raise CodecError(f"field '{ENV_USER_INPUT_ENCODED}' must be a string, got {json_type(encoded)}")
    raw_options = payload.get(ENV_SUBMIT_OPTIONS)
    if raw_options is not None:
        raw_options = _bson_to_json(raw_options, 0)
    return _build(str(oid), doc.get(F_CONVERSATION_ID), payload, priority, as_utc(raw_at), encoded, raw_options)


def _build(
    message_id: str | None,
    session_id: object,
    body: Mapping[str, Any],
    priority: Priority,
    delivered_at: datetime,
    encoded: object,
    raw_options: object,
) -> InboundMessage:
    """Read the keys both forms share from ``body`` (the envelope or the Mongo payload) and validate once.

    The stored values go to :meth:`InboundMessage.model_validate` as they are (strict: strings stay
    strings, no bytes or numbers read as text); a refusal is translated by :func:`_refusal` into the
    codec's message naming the stored key. ``userInputEncoded`` is read last, so only an otherwise
    readable envelope can log the degrade WARN.
    """
    get = body.get
    text, metadata = get(ENV_USER_INPUT), get(ENV_METADATA)
    decoded: object = None  # the user input read from userInputEncoded, or why it could not be read
    if encoded is not None:
        if type(text) is not str:  # the text rendering is stored beside any encoded input
            raise _stored_refusal(ENV_USER_INPUT, text)
        try:
            decoded = user_input.decode_encoded(encoded)
        except Exception as exc:  # the degrade rule: logged below, once the rest has been read
            decoded = exc
    fields: dict[str, Any] = {
        "id": message_id,
        "turn_id": get(ENV_TURN_ID),
        "session_id": session_id,
        "agent_ref": get(ENV_AGENT_REF),
        "context_discriminator": get(ENV_CONTEXT_DISCRIMINATOR),
        "user_input": {"type": UI_TAG_TEXT, "text": text}
        if decoded is None or isinstance(decoded, Exception)
        else decoded,
        "priority": priority,
        "idempotency_key": get(ENV_IDEMPOTENCY_KEY),
        "initiator": decode_principal(get(ENV_INITIATOR), ENV_INITIATOR),
        "delivered_at": delivered_at,
        "metadata": {} if metadata is None else metadata,
        "submit_options": _EMPTY_OPTIONS if raw_options is None else submit_options.decode(raw_options),
    }
    try:
        msg = InboundMessage.model_validate(fields, strict=True)
    except ValidationError as exc:
        if _first_field(exc) != "metadata":
            raise _refusal(exc) from None
        # metadata values that are not text are read as text (the reference's asText()), then validated
        fields["metadata"] = text_map(metadata, ENV_METADATA)
        try:
            msg = InboundMessage.model_validate(fields, strict=True)
        except ValidationError as again:
            raise _refusal(again) from None
    if isinstance(decoded, Exception):
        user_input.warn_unreadable(decoded, msg.session_id)
    return msg


_STORED_KEYS = {
    "session_id": ENV_CONVERSATION_ID,
    "agent_ref": ENV_AGENT_REF,
    "user_input": ENV_USER_INPUT,
    "turn_id": ENV_TURN_ID,
    "context_discriminator": ENV_CONTEXT_DISCRIMINATOR,
    "idempotency_key": ENV_IDEMPOTENCY_KEY,
}
"""Model field -> the stored key a refusal names (the fields the codec hands to the model as stored)."""
_OPTIONAL = frozenset({ENV_TURN_ID, ENV_CONTEXT_DISCRIMINATOR, ENV_IDEMPOTENCY_KEY})


def _first_field(exc: ValidationError) -> object:
    loc = exc.errors(include_url=False)[0].get("loc", ())
    return loc[0] if loc else None


def _refusal(exc: ValidationError) -> CodecError:
    """The model's first refusal of a stored value as the codec's message, naming the stored key."""
    error = exc.errors(include_url=False)[0]
    loc = error.get("loc", ())
    key = _STORED_KEYS.get(str(loc[0])) if loc else None
    if key is None:  # not a field read as stored: name the model's location, never the value
        where = ".".join(str(part) for part in loc) or "message"
        return CodecError(f"cannot reconstruct the inbox message: {where}: {error.get('type', 'invalid')}")
    value = error.get("input")
    if error.get("type") == "value_error" and isinstance(value, str) and is_blank(value):
        return CodecError(f"field '{key}' is blank")
    return _stored_refusal(key, value)


def _stored_refusal(key: str, value: object) -> CodecError:
    """A stored value of the wrong type under ``key`` (an absent or null one for a required key)."""
    if value is None and key not in _OPTIONAL:
        return CodecError(f"Missing required field '{key}'")
    expected = "a string or absent" if key in _OPTIONAL else "a string"
    return CodecError(f"field '{key}' must be {expected}, got {found(value, key)}")


def _bson_to_json(value: object, depth: int) -> object:
    """BSON values of a ``submitOptions`` subtree as JSON values (dates as instants, others as text)."""
    if value is None or isinstance(value, str | bool | float):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, Mapping | list | tuple):
        if depth >= OPTIONS_MAX_DEPTH:
            raise CodecError(f"submit options nested deeper than {OPTIONS_MAX_DEPTH} levels")
        if isinstance(value, Mapping):
            return {str(k): _bson_to_json(v, depth + 1) for k, v in value.items()}
        return [_bson_to_json(v, depth + 1) for v in value]
    if isinstance(value, datetime):
        return format_instant(as_utc(value))
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def _bad_priority(value: object) -> str:
    if value is None:
        return f"Missing required field '{ENV_PRIORITY}'"
    if isinstance(value, str):
        return f"Unknown priority: {shown(value)}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"Unknown priority ordinal: {value}" if -1000 < value < 1000 else "Unknown priority ordinal"
    return f"field '{ENV_PRIORITY}' has the wrong type: {found(value, ENV_PRIORITY)}"


def _not_document(value: object) -> str:
    return f"field '{F_PAYLOAD}' must be a document, got {json_type(value)}"


# --------------------------------------------------------------------------------------------- recover


def recover_address(raw: object) -> tuple[str | None, str | None]:
    """``(turn id, idempotency key)`` of a stored entry that may be unreadable; never raises.

    ``raw`` may be JSON text or bytes, a parsed envelope, a MongoDB document (ids in ``payload``) or
    anything else. Blank or non-text values count as absent. Nothing else of the entry is returned.
    """
    try:
        return _recover(raw)
    except Exception:  # total by contract: garbage in, (None, None) out
        return None, None


def _recover(raw: object) -> tuple[str | None, str | None]:
    if isinstance(raw, bytes | bytearray | memoryview):
        raw = bytes(raw).decode("utf-8", errors="replace")
    if isinstance(raw, str):
        raw = json.loads(raw)
    if not isinstance(raw, Mapping):
        return None, None
    nested = raw.get(F_PAYLOAD)
    inner = nested if isinstance(nested, Mapping) else None
    return _address(raw, inner, ENV_TURN_ID), _address(raw, inner, ENV_IDEMPOTENCY_KEY)


def _address(outer: Mapping[str, Any], inner: Mapping[str, Any] | None, key: str) -> str | None:
    for source in (outer, inner):
        if source is None:
            continue
        value = source.get(key)
        if isinstance(value, str) and value.strip():
            return str(value)
    return None
