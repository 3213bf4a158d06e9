"""Session totals ↔ ``{turnCount, iterations, promptTokens, completionTokens, totalTokens, reasoningTokens}``.

The same object is the MongoDB ``sessionTotals`` subdocument, the Redis record hash field (JSON text), the
PostgreSQL ``session_totals`` JSONB and the ``totals`` of a ``STATUS`` signal. Every key is written; a
missing key reads as 0 and numbers may come back as integral floats (JSON readers widen/narrow).
"""

from __future__ import annotations

from typing import Any

from aimon_mongo import names as n
from aimon_mongo.codec.json_text import compact_json
from aimon_mongo.codec.stored_fields import optional_int, parse_json_object, require_object
from aimon_mongo.model.record import SessionTotals
from aimon_mongo.stored.session_record import SessionTotalsJson

_KEYS = (
    (n.TOTALS_TURN_COUNT, "turn_count"),
    (n.TOTALS_ITERATIONS, "iterations"),
    (n.TOTALS_PROMPT_TOKENS, "prompt_tokens"),
    (n.TOTALS_COMPLETION_TOKENS, "completion_tokens"),
    (n.TOTALS_TOTAL_TOKENS, "total_tokens"),
    (n.TOTALS_REASONING_TOKENS, "reasoning_tokens"),
)


def encode_totals(totals: SessionTotals) -> SessionTotalsJson:
    """Every counter under its stored key, in the frozen order."""
    return {
        n.TOTALS_TURN_COUNT: totals.turn_count,
        n.TOTALS_ITERATIONS: totals.iterations,
        n.TOTALS_PROMPT_TOKENS: totals.prompt_tokens,
        n.TOTALS_COMPLETION_TOKENS: totals.completion_tokens,
        n.TOTALS_TOTAL_TOKENS: totals.total_tokens,
        n.TOTALS_REASONING_TOKENS: totals.reasoning_tokens,
    }


def decode_totals(obj: object) -> SessionTotals:
    """Read a stored totals object; refuses with :class:`~aimon_mongo.errors.CodecError`."""
    doc = require_object(obj, "session totals")
    values: dict[str, Any] = {attr: optional_int(doc, key, 0) for key, attr in _KEYS}
    return SessionTotals(**values)


def totals_to_json(totals: SessionTotals) -> str:
    """Compact JSON text of :func:`encode_totals`."""
    return compact_json(encode_totals(totals))


def totals_from_json(text: str | bytes) -> SessionTotals:
    """Read the JSON text form."""
    return decode_totals(parse_json_object(text, "session totals"))
