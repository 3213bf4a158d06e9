"""The inbound codec's rules beyond the golden shapes: refusals, BSON specifics, recovery, entry decoding."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import bson
import pytest
from bson import ObjectId
from bson.codec_options import CodecOptions
from bson.decimal128 import Decimal128
from bson.int64 import Int64

from aimon_mongo.codec.inbound import (
    from_json_envelope,
    from_mongo_document,
    recover_address,
    to_json_envelope,
    to_mongo_document,
)
from aimon_mongo.codec.inbox_entry import decode_json_entry, decode_mongo_entry
from aimon_mongo.errors import CodecError, InvalidArgumentError
from aimon_mongo.model import (
    ImageInput,
    InboundMessage,
    MultimodalInput,
    Principal,
    Priority,
    SubmitOptions,
    TextInput,
    UnreadableEntry,
)

OID = ObjectId("65f1a2b3c4d5e6f708192a3b")
AT = datetime(2024, 5, 1, 12, 34, 56, 789000, tzinfo=UTC)


def message(**changes: object) -> InboundMessage:
    base = InboundMessage(
        session_id="conv-1",
        agent_ref="agent",
        user_input=TextInput(text="hello"),
        priority=Priority.NEXT,
        initiator=Principal.user("u-1", "Ada"),
        delivered_at=AT,
    )
    return base.model_copy(update=changes)


_ABSENT = object()  # marks a key to remove


def changed(obj: dict[str, Any], changes: dict[str, object]) -> dict[str, Any]:
    for key, value in changes.items():
        if value is _ABSENT:
            obj.pop(key, None)
        else:
            obj[key] = value
    return obj


def envelope(**changes: object) -> dict[str, Any]:
    return changed(json.loads(to_json_envelope(message())), changes)


def mongo_doc(**payload_changes: object) -> dict[str, Any]:
    doc = to_mongo_document(message(), OID)
    changed(doc["payload"], payload_changes)
    return doc


# --- JSON envelope


def test_entry_id_becomes_the_message_id() -> None:
    assert from_json_envelope(to_json_envelope(message()), entry_id="1714566896789-0").id == "1714566896789-0"
    assert from_json_envelope(to_json_envelope(message())).id is None


def test_the_id_is_not_in_the_envelope() -> None:
    assert "id" not in json.loads(to_json_envelope(message(id="42")))


def test_bytes_are_read_as_utf8_json() -> None:
    text = to_json_envelope(message(user_input=TextInput(text="Grüße")))
    assert from_json_envelope(text.encode("utf-8"), "7").user_input == TextInput(text="Grüße")


def test_entry_id_must_be_text() -> None:
    with pytest.raises(InvalidArgumentError, match="entry_id"):
        from_json_envelope(to_json_envelope(message()), entry_id=b"1-0")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("key", "value"), [("turnId", None), ("contextDiscriminator", None), ("idempotencyKey", None)]
)
def test_optional_keys_null_reads_as_absent(key: str, value: object) -> None:
    decoded = from_json_envelope(json.dumps(envelope(**{key: value})))
    assert decoded == message()


def test_metadata_values_are_read_as_text_and_absent_metadata_is_empty() -> None:
    decoded = from_json_envelope(
        json.dumps(envelope(metadata={"n": 1, "f": 1.5, "b": True, "z": None, "o": {}}))
    )
    assert decoded.metadata == {"n": "1", "f": "1.5", "b": "true", "z": "null", "o": ""}
    assert from_json_envelope(json.dumps(envelope(metadata=_ABSENT))).metadata == {}


@pytest.mark.parametrize("options", [None, "x", 5, []])
def test_non_object_submit_options_read_as_empty(options: object) -> None:
    assert (
        from_json_envelope(json.dumps(envelope(submitOptions=options))).submit_options
        == SubmitOptions.empty()
    )


@pytest.mark.parametrize(
    ("changes", "message_part"),
    [
        ({"conversationId": _ABSENT}, "Missing required field 'conversationId'"),
        ({"conversationId": " "}, "'conversationId' is blank"),
        ({"conversationId": 12}, "'conversationId' must be a string"),
        ({"agentRef": _ABSENT}, "Missing required field 'agentRef'"),
        ({"agentRef": ["a"]}, "'agentRef' must be a string, got array"),
        ({"userInput": _ABSENT}, "Missing required field 'userInput'"),
        ({"userInput": {"type": "text", "text": "restructured"}}, "'userInput' must be a string, got object"),
        ({"priority": _ABSENT}, "Missing required field 'priority'"),
        ({"priority": "SOON"}, "Unknown priority: 'SOON'"),
        ({"priority": "next"}, "Unknown priority"),
        ({"priority": 1}, "Unknown priority ordinal: 1"),
        ({"initiator": _ABSENT}, "Missing initiator field"),
        ({"initiator": "USER:u-1"}, "Missing initiator field \\(not an object"),
        ({"initiator": {"type": "ROBOT", "id": "r2", "displayName": "R2"}}, "Unknown principal type"),
        ({"deliveredAt": _ABSENT}, "Missing required field 'deliveredAt'"),
        ({"deliveredAt": 1714566896789}, "deliveredAt"),
        ({"deliveredAt": "yesterday"}, "'deliveredAt' is not an ISO-8601 instant"),
        ({"turnId": 7}, "'turnId' must be a string or absent"),
        ({"idempotencyKey": {"k": 1}}, "'idempotencyKey' must be a string or absent"),
        ({"metadata": "a=b"}, "'metadata' must be an object"),
    ],
)
def test_damaged_envelopes_refuse(changes: dict[str, object], message_part: str) -> None:
    with pytest.raises(CodecError, match=message_part):
        from_json_envelope(json.dumps(envelope(**changes)))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "null",
        "[]",
        '"text"',
        "{",
        '{"a":NaN}',
        "[" * 10_000,
        "{" * 10_000,
        '{"a":' + "9" * 5000 + "}",
        b"\xff\xfe",
    ],
)
def test_unreadable_text_refuses_with_codec_error_only(text: str | bytes) -> None:
    with pytest.raises(CodecError):
        from_json_envelope(text)


def test_non_text_input_refuses() -> None:
    with pytest.raises(CodecError, match="JSON text"):
        from_json_envelope(12)  # type: ignore[arg-type]


def test_a_refused_envelope_logs_no_degrade_warning(caplog: pytest.LogCaptureFixture) -> None:
    damaged = envelope(userInputEncoded={"type": "video"}, priority="SOON")
    with caplog.at_level(logging.DEBUG), pytest.raises(CodecError):
        from_json_envelope(json.dumps(damaged))
    assert caplog.records == []


def test_nan_in_submit_options_is_refused_on_write() -> None:
    msg = message(submit_options=SubmitOptions(execution_attributes={"x": float("nan")}))
    with pytest.raises(CodecError, match="NaN"):
        to_json_envelope(msg)


# --- MongoDB document


def test_object_id_must_be_an_object_id() -> None:
    with pytest.raises(InvalidArgumentError, match="ObjectId"):
        to_mongo_document(message(), str(OID))  # type: ignore[arg-type]


def test_mongo_id_hex_becomes_the_message_id() -> None:
    assert from_mongo_document(to_mongo_document(message(), OID)).id == "65f1a2b3c4d5e6f708192a3b"


@pytest.mark.parametrize("tz_aware", [False, True])
def test_bson_dates_naive_or_aware_come_back_aware_utc(tz_aware: bool) -> None:
    raw = bson.encode(to_mongo_document(message(), OID))
    doc = bson.decode(raw, codec_options=CodecOptions(tz_aware=tz_aware))
    decoded = from_mongo_document(doc)
    assert decoded.delivered_at == AT
    assert decoded.delivered_at.tzinfo is UTC


def test_bson_keeps_milliseconds_only() -> None:
    fine = message(delivered_at=AT + timedelta(microseconds=456))
    doc = bson.decode(bson.encode(to_mongo_document(fine, OID)))
    assert from_mongo_document(doc).delivered_at == AT


def test_payload_date_in_another_zone_is_normalised() -> None:
    doc = mongo_doc(deliveredAt=datetime(2024, 5, 1, 14, 34, 56, 789000, tzinfo=timezone(timedelta(hours=2))))
    assert from_mongo_document(doc).delivered_at == AT


def test_int64_priority_is_read() -> None:
    doc = mongo_doc()
    doc["priority"] = Int64(2)
    assert from_mongo_document(doc).priority is Priority.LATER


@pytest.mark.parametrize(
    ("top", "message_part"),
    [
        ({"_id": str(OID)}, "'_id' must be an ObjectId"),
        ({"_id": None}, "'_id' must be an ObjectId"),
        ({"conversationId": None}, "Missing required field 'conversationId'"),
        ({"priority": 3}, "Unknown priority ordinal: 3"),
        ({"priority": -1}, "Unknown priority ordinal"),
        ({"priority": True}, "wrong type: boolean"),
        ({"priority": 1.0}, "wrong type: number"),
        ({"priority": "NEXT"}, "Unknown priority: 'NEXT'"),
        ({"priority": None}, "Missing required field 'priority'"),
        ({"payload": None}, "Missing payload field"),
        ({"payload": "x"}, "'payload' must be a document"),
    ],
)
def test_damaged_documents_refuse(top: dict[str, object], message_part: str) -> None:
    doc = mongo_doc()
    doc.update(top)
    with pytest.raises(CodecError, match=message_part):
        from_mongo_document(doc)


@pytest.mark.parametrize(
    ("payload", "message_part"),
    [
        ({"deliveredAt": "2024-05-01T12:34:56.789Z"}, "'payload.deliveredAt' must be a date"),
        ({"deliveredAt": _ABSENT}, "'payload.deliveredAt' must be a date, got null"),
        ({"userInput": b"hello"}, "'userInput' must be a string, got bytes"),
        ({"userInput": 5}, "'userInput' must be a string"),
        (
            {"userInputEncoded": {"type": "text", "text": "x"}},
            "'userInputEncoded' must be a string, got object",
        ),
        ({"agentRef": None}, "Missing required field 'agentRef'"),
        ({"turnId": 5}, "'turnId' must be a string or absent"),
        ({"initiator": None}, "Missing initiator field"),
    ],
)
def test_damaged_payloads_refuse(payload: dict[str, object], message_part: str) -> None:
    with pytest.raises(CodecError, match=message_part):
        from_mongo_document(mongo_doc(**payload))


def test_non_document_refuses() -> None:
    with pytest.raises(CodecError, match="must be a document"):
        from_mongo_document([("_id", OID)])  # type: ignore[arg-type]


def test_bson_values_in_submit_options_are_read_as_json_values() -> None:
    doc = mongo_doc(
        submitOptions={
            "executionAttributes": {
                "when": datetime(2024, 5, 1, 12, 0),
                "count": Int64(5),
                "ref": ObjectId("65f1a2b3c4d5e6f708192a3c"),
                "price": Decimal128("9.99"),
                "blob": b"\x00\x01",
                "list": [datetime(2024, 5, 1, tzinfo=UTC)],
            },
            "userContextInjection": False,
        }
    )
    attrs = from_mongo_document(doc).submit_options.execution_attributes
    assert attrs == {
        "when": "2024-05-01T12:00:00Z",
        "count": 5,
        "ref": "65f1a2b3c4d5e6f708192a3c",
        "price": "9.99",
        "blob": "AAE=",
        "list": ["2024-05-01T00:00:00Z"],
    }
    assert type(attrs["count"]) is int


def test_multimodal_mongo_form_carries_the_encoding_as_a_string() -> None:
    inp = MultimodalInput(inputs=(TextInput(text="look"), ImageInput(mime_type="image/png", data=b"\x89P")))
    doc = to_mongo_document(message(user_input=inp), OID)
    assert doc["payload"]["userInputEncoded"] == (
        '{"type":"multimodal","inputs":[{"type":"text","text":"look"},'
        '{"type":"image","mimeType":"image/png","data":"iVA="}]}'
    )
    assert from_mongo_document(doc).user_input == inp


# --- recover_address


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"turnId":"t-1","idempotencyKey":"k-1","priority":"SOON"}', ("t-1", "k-1")),
        (b'{"turnId":"t-1"}', ("t-1", None)),
        ({"turnId": "t-1", "idempotencyKey": "k-1"}, ("t-1", "k-1")),
        ({"_id": OID, "payload": {"turnId": "t-2", "idempotencyKey": None}}, ("t-2", None)),
        ('{"turnId":"  ","idempotencyKey":{}}', (None, None)),
        ('{"turnId":7,"idempotencyKey":["k"]}', (None, None)),
        ('{"turnId":"t-1",', (None, None)),
        ("[" * 100_000, (None, None)),
        (b"\xff\xfe\x00", (None, None)),
        ([1, 2], (None, None)),
        (None, (None, None)),
        (object(), (None, None)),
        ({"payload": "not a document"}, (None, None)),
    ],
)
def test_recover_address_is_total(raw: object, expected: tuple[str | None, str | None]) -> None:
    assert recover_address(raw) == expected


def test_recover_address_survives_a_mapping_that_raises() -> None:
    class Hostile(dict[str, object]):
        def get(self, key: str, default: object = None) -> object:
            raise RuntimeError("boom")

    assert recover_address(Hostile()) == (None, None)


# --- entry decoding shared by the inbox backends


def test_decode_json_entry_returns_the_message() -> None:
    assert decode_json_entry("5-0", to_json_envelope(message()), "conv-1") == message(id="5-0")


def test_decode_json_entry_reports_an_unreadable_entry(caplog: pytest.LogCaptureFixture) -> None:
    damaged = json.dumps(
        envelope(turnId="t-9", idempotencyKey="k-9", priority="SOON", userInput="SECRET TEXT")
    )
    with caplog.at_level(logging.WARNING):
        result = decode_json_entry("5-1", damaged, "conv-1")
    assert result == UnreadableEntry(
        id="5-1", turn_id="t-9", idempotency_key="k-9", reason="CodecError: Unknown priority: 'SOON'"
    )
    assert result.is_addressable
    assert len(caplog.records) == 1
    logged = caplog.records[0].getMessage()
    assert "conv-1" in logged and "5-1" in logged
    assert "SECRET" not in logged


def test_decode_json_entry_with_unreadable_id_says_unknown() -> None:
    result = decode_json_entry(None, "{", None)
    assert isinstance(result, UnreadableEntry)
    assert result.id == "unknown"
    assert not result.is_addressable


def test_decode_mongo_entry_reports_an_unreadable_entry(caplog: pytest.LogCaptureFixture) -> None:
    doc = mongo_doc(turnId="t-3", userInput=b"SECRET")
    with caplog.at_level(logging.WARNING):
        result = decode_mongo_entry(doc)
    assert isinstance(result, UnreadableEntry)
    assert result.id == str(OID)
    assert result.turn_id == "t-3"
    assert "'userInput' must be a string, got bytes" in result.reason
    logged = caplog.records[0].getMessage()
    assert "conv-1" in logged and str(OID) in logged and "SECRET" not in logged


def test_decode_mongo_entry_of_garbage_never_raises() -> None:
    result = decode_mongo_entry({"_id": 5, "payload": []})  # type: ignore[dict-item]
    assert isinstance(result, UnreadableEntry)
    assert result.id == "unknown"


def test_decode_mongo_entry_returns_the_message() -> None:
    assert decode_mongo_entry(to_mongo_document(message(), OID)) == message(id=str(OID))
