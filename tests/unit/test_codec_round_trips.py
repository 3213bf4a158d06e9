"""Property tests: every model through every codec and back, unchanged."""

from __future__ import annotations

import json
import logging
from typing import Any

import bson
import pytest
from bson import ObjectId
from bson.codec_options import CodecOptions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from aimon_mongo.codec import user_input
from aimon_mongo.codec.inbound import (
    from_json_envelope,
    from_mongo_document,
    recover_address,
    to_json_envelope,
    to_mongo_document,
)
from aimon_mongo.codec.inbox_entry import decode_json_entry, decode_mongo_entry
from aimon_mongo.model import InboundMessage, TextInput, UserInput
from tests import strategies as s
from tests.helpers import JSON_ENVELOPE_KEYS, assert_same_message

PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(s.user_inputs() | s.deep_inputs)
def test_user_input_round_trips_in_both_forms(inp: UserInput) -> None:
    assert user_input.decode(user_input.encode(inp)) == inp
    assert user_input.decode_from_string(user_input.encode_to_string(inp)) == inp
    assert user_input.decode_or_text(user_input.encode(inp), inp.as_text(), "s") == inp


@PROPERTY
@given(s.inbound_messages(), st.none() | s.non_blank_texts)
def test_json_envelope_round_trip(msg: InboundMessage, entry_id: str | None) -> None:
    text = to_json_envelope(msg)
    decoded = from_json_envelope(text, entry_id)
    assert_same_message(decoded, msg.model_copy(update={"id": entry_id}))
    # Written exactly as the json module writes it compactly, keys in the frozen order.
    obj = json.loads(text)
    assert text == json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    assert list(obj) == [key for key in JSON_ENVELOPE_KEYS if key in obj]
    assert isinstance(obj["userInput"], str)
    assert ("userInputEncoded" in obj) == (not isinstance(msg.user_input, TextInput))
    assert ("submitOptions" in obj) == (not msg.submit_options.is_empty())
    assert recover_address(text) == (_present(msg.turn_id), _present(msg.idempotency_key))


@PROPERTY
@given(s.inbound_messages(inputs=s.deep_inputs))
def test_json_envelope_round_trip_at_every_nesting_depth(msg: InboundMessage) -> None:
    assert_same_message(from_json_envelope(to_json_envelope(msg), "1-0"), msg.with_id("1-0"))


@PROPERTY
@given(s.inbound_messages())
def test_mongo_document_round_trip(msg: InboundMessage) -> None:
    oid = ObjectId()
    doc = to_mongo_document(msg, oid)
    assert_same_message(from_mongo_document(doc), msg.with_id(str(oid)))
    assert recover_address(doc) == (_present(msg.turn_id), _present(msg.idempotency_key))


@PROPERTY
@given(s.inbound_messages(bson_safe=True, millis=True), st.booleans())
def test_mongo_document_round_trip_through_bson_bytes(msg: InboundMessage, tz_aware: bool) -> None:
    oid = ObjectId()
    raw = bson.encode(to_mongo_document(msg, oid))
    doc = bson.decode(raw, codec_options=CodecOptions(tz_aware=tz_aware))
    assert_same_message(from_mongo_document(doc), msg.with_id(str(oid)))


@PROPERTY
@given(s.inbound_messages(inputs=s.deep_inputs, bson_safe=True, millis=True))
def test_mongo_round_trip_at_every_nesting_depth(msg: InboundMessage) -> None:
    oid = ObjectId()
    doc = bson.decode(bson.encode(to_mongo_document(msg, oid)))
    assert_same_message(from_mongo_document(doc), msg.with_id(str(oid)))


@PROPERTY
@given(s.inbound_messages())
def test_entry_helpers_decode_what_was_written_without_logging(msg: InboundMessage) -> None:
    logger = logging.getLogger("aimon_mongo")
    records: list[logging.LogRecord] = []
    handler = _ListHandler(records)
    logger.addHandler(handler)
    try:
        assert decode_json_entry("9-0", to_json_envelope(msg), msg.session_id) == msg.with_id("9-0")
        oid = ObjectId()
        assert decode_mongo_entry(to_mongo_document(msg, oid)) == msg.with_id(str(oid))
    finally:
        logger.removeHandler(handler)
    assert records == []


MODEL_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "Principal": s.principals,
    "LlmCallMetadata": s.llm_call_metadata(),
    "SubmitOptions": s.submit_options(),
    "UserInput": s.user_inputs(),
    "InboundMessage": s.inbound_messages(),
    "UnreadableEntry": s.unreadable_entries,
    "CollectedBatch": s.collected_batches,
    "SessionSignal": s.signals,
    "TurnResult": s.turn_results,
    "IdempotencyEntry": s.idempotency_entries(),
    "BackgroundTask": s.background_tasks(),
    "TaskQuery": s.task_queries,
    "Lease": s.leases,
}


@pytest.mark.parametrize("strategy", list(MODEL_STRATEGIES.values()), ids=list(MODEL_STRATEGIES))
def test_every_strategy_yields_valid_models(strategy: st.SearchStrategy[BaseModel]) -> None:
    """The shared strategies produce instances that survive pydantic's own dump/validate round trip."""

    @PROPERTY
    @given(strategy)
    def check(value: BaseModel) -> None:
        again = type(value).model_validate(value.model_dump())
        assert again == value
        assert again.model_dump() == value.model_dump()

    check()


def _present(value: str | None) -> str | None:
    return value if value is not None and value.strip() else None


class _ListHandler(logging.Handler):
    def __init__(self, records: list[logging.LogRecord]) -> None:
        super().__init__(logging.DEBUG)
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
