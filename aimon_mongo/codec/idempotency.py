"""Idempotency entries and their result projection, written once for every backend.

* **Result** ``{success, finalAnswer, errorMessage, completionReason, wasStreamed}`` (keys always written,
  absent texts as explicit ``null``): the MongoDB ``result`` subdocument, the Redis ``result`` object and
  the PostgreSQL ``result_blob`` JSONB. An unknown or missing ``completionReason`` reads as
  :meth:`CompletionReason.coarse` of ``success`` (rolling-upgrade tolerance).
* **Entry**, two thin layouts of the same fields:

  - JSON (the Redis value), keys always present in this exact order because Lua scripts match
    substrings of it: ``key, conversationId, inputHash, status, holderId, createdAt, lastTouchedAt,
    ttlMillis, result`` (instants as ISO-8601 text, ``holderId``/``result`` as explicit ``null``);
  - MongoDB: ``_id`` = key, the same fields with BSON dates; the store adds ``expiresAt`` (and
    ``ttlMillis``) with server-side expressions. ``holderId`` may be absent (the reference ``$unset``s
    it), which reads as "no holder".
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any, cast

from pydantic import ValidationError

from aimon_mongo import names as n
from aimon_mongo.codec._fields import stored_texts
from aimon_mongo.codec.instant import format_instant
from aimon_mongo.codec.json_text import compact_json
from aimon_mongo.codec.stored_fields import (
    enum_member,
    instant,
    integer,
    optional_bool,
    optional_str,
    parse_json_object,
    require_object,
    required_bool,
    required_id,
    required_str,
)
from aimon_mongo.errors import CodecError
from aimon_mongo.model.idempotency import CompletionReason, IdempotencyEntry, IdempotencyStatus, TurnResult
from aimon_mongo.stored.idempotency import MongoIdempotencyDocument, RedisIdempotencyValue, TurnResultJson

_REASONS = {r.value: r for r in CompletionReason}
_STATUSES = {s.value: s for s in IdempotencyStatus}
_REASON_TEXTS = stored_texts(CompletionReason)
_STATUS_TEXTS = stored_texts(IdempotencyStatus)


# --- result projection -------------------------------------------------------------------------------


def encode_result(result: TurnResult) -> TurnResultJson:
    """``{"success", "finalAnswer", "errorMessage", "completionReason", "wasStreamed"}`` in that order."""
    return {
        n.RESULT_SUCCESS: result.success,
        n.RESULT_FINAL_ANSWER: result.final_answer,
        n.RESULT_ERROR_MESSAGE: result.error_message,
        n.RESULT_COMPLETION_REASON: _REASON_TEXTS[result.completion_reason],
        n.RESULT_WAS_STREAMED: result.was_streamed,
    }


def decode_result(obj: object) -> TurnResult | None:
    """Read a stored result projection; absent/null is ``None``."""
    if obj is None:
        return None
    doc = require_object(obj, f"field '{n.IDEM_RESULT}'")
    success = required_bool(doc, n.RESULT_SUCCESS)
    reason = doc.get(n.RESULT_COMPLETION_REASON)
    return TurnResult(
        success=success,
        final_answer=optional_str(doc, n.RESULT_FINAL_ANSWER),
        error_message=optional_str(doc, n.RESULT_ERROR_MESSAGE),
        completion_reason=_REASONS.get(reason)
        if isinstance(reason, str) and reason in _REASONS
        else CompletionReason.coarse(success),
        was_streamed=optional_bool(doc, n.RESULT_WAS_STREAMED, False),
    )


# --- entry: JSON layout (Redis value) -----------------------------------------------------------------


def entry_to_json_object(entry: IdempotencyEntry, ttl: timedelta) -> RedisIdempotencyValue:
    """The Redis value as an object, keys in the frozen order; ``ttl`` is the span ``touch`` re-arms."""
    return {
        n.IDEM_KEY: entry.key,
        n.IDEM_CONVERSATION_ID: entry.session_id,
        n.IDEM_INPUT_HASH: entry.input_hash,
        n.IDEM_STATUS: _STATUS_TEXTS[entry.status],
        n.IDEM_HOLDER_ID: entry.holder_id,
        n.IDEM_CREATED_AT: format_instant(entry.created_at),
        n.IDEM_LAST_TOUCHED_AT: format_instant(entry.last_touched_at),
        n.IDEM_TTL_MILLIS: ttl_millis(ttl),
        n.IDEM_RESULT: None if entry.result is None else encode_result(entry.result),
    }


def entry_to_json(entry: IdempotencyEntry, ttl: timedelta) -> str:
    """Compact JSON text of :func:`entry_to_json_object` (what Redis stores)."""
    return compact_json(entry_to_json_object(entry, ttl))


def entry_from_json(text: str | bytes) -> tuple[IdempotencyEntry, int | None]:
    """The entry and its stored ``ttlMillis`` (``None`` when absent) from the Redis value text."""
    doc = parse_json_object(text, "idempotency entry")
    return decode_entry(doc, n.IDEM_KEY), stored_ttl_millis(doc)


# --- entry: MongoDB layout ----------------------------------------------------------------------------


def entry_to_mongo(entry: IdempotencyEntry) -> MongoIdempotencyDocument:
    """The ``idempotency_entries`` fields (``_id`` = key), without ``expiresAt``/``ttlMillis``, which the
    store computes on the server (so the document is filled key by key: mypy checks each of them)."""
    doc = cast("MongoIdempotencyDocument", {})
    doc[n.F_ID] = entry.key
    doc[n.F_CONVERSATION_ID] = entry.session_id
    doc[n.F_INPUT_HASH] = entry.input_hash
    doc[n.F_STATUS] = _STATUS_TEXTS[entry.status]
    doc[n.F_HOLDER_ID] = entry.holder_id
    doc[n.F_CREATED_AT] = entry.created_at
    doc[n.F_LAST_TOUCHED_AT] = entry.last_touched_at
    doc[n.F_RESULT] = None if entry.result is None else encode_result(entry.result)
    return doc


def entry_from_mongo(doc: Mapping[str, Any]) -> IdempotencyEntry:
    """Read an ``idempotency_entries`` document."""
    return decode_entry(doc, n.F_ID)


# --- shared -------------------------------------------------------------------------------------------


def decode_entry(obj: object, key_field: str) -> IdempotencyEntry:
    """Read the entry fields of either layout (``key_field`` is ``"key"`` or ``"_id"``)."""
    doc = require_object(obj, "idempotency entry")
    status = enum_member(doc.get(n.IDEM_STATUS), _STATUSES, "idempotency status")
    fields = {
        "key": required_id(doc, key_field),
        "session_id": required_id(doc, n.IDEM_CONVERSATION_ID),
        "input_hash": required_str(doc, n.IDEM_INPUT_HASH),
        "status": status,
        "holder_id": optional_str(doc, n.IDEM_HOLDER_ID),
        "result": decode_result(doc.get(n.IDEM_RESULT)),
        "created_at": instant(doc.get(n.IDEM_CREATED_AT), n.IDEM_CREATED_AT),
        "last_touched_at": instant(doc.get(n.IDEM_LAST_TOUCHED_AT), n.IDEM_LAST_TOUCHED_AT),
    }
    try:
        return IdempotencyEntry(**fields)
    except ValidationError:
        raise CodecError("Cannot reconstruct the idempotency entry") from None


def stored_ttl_millis(doc: Mapping[str, Any]) -> int | None:
    """The ``ttlMillis`` of a stored entry, ``None`` when absent."""
    value = doc.get(n.IDEM_TTL_MILLIS)
    return None if value is None else integer(value, n.IDEM_TTL_MILLIS)


def ttl_millis(ttl: timedelta) -> int:
    """A TTL as whole milliseconds (at least 1)."""
    return max(1, ttl // timedelta(milliseconds=1))
