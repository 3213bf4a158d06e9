"""The seed's degrade matrix, in both stored forms.

Only ``userInputEncoded`` degrades: whatever is wrong with it, the entry decodes to ``TextInput(userInput)``
with exactly one WARN that names the session and does not carry the payload. Everything else in the
envelope refuses with :class:`CodecError`: it says the entry is damaged, not newer, and the string beside
it stands in for nothing.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

import pytest
from bson import ObjectId

from aimon_mongo.codec.inbound import from_json_envelope, from_mongo_document
from aimon_mongo.errors import CodecError
from aimon_mongo.model import TextInput

SESSION = "conv-degrade-1"
RENDERING = "PAYLOAD-TEXT look at [Image: image/png, 3 bytes]"
SECRET_DATA = "U0VDUkVUREFUQQ=="  # base64 of "SECRETDATA"
_ABSENT = object()  # marks a key to leave out


def nested(depth: int) -> dict[str, Any]:
    """A leaf at ``depth`` (the top object is depth 0)."""
    obj: dict[str, Any] = {"type": "text", "text": "PAYLOAD-LEAF"}
    for _ in range(depth):
        obj = {"type": "multimodal", "inputs": [obj]}
    return obj


# Each case: the encoded value as a JSON value (Redis/PostgreSQL form); the Mongo form stores its JSON text.
UNREADABLE_ENCODINGS: dict[str, Any] = {
    "a sixth input type": {"type": "video", "mimeType": "video/mp4", "data": SECRET_DATA},
    "an image with a video MIME type": {"type": "image", "mimeType": "video/mp4", "data": SECRET_DATA},
    "bad base64": {"type": "image", "mimeType": "image/png", "data": "SECRET DATA!"},
    "nesting 33": nested(33),
    "a JSON array": [{"type": "text", "text": "PAYLOAD-LEAF"}],
}
INVALID_JSON_TEXT = '{"type":"text","text":"PAYLOAD-LEAF"'


def json_envelope(**changes: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "conversationId": SESSION,
        "agentRef": "agent",
        "userInput": RENDERING,
        "priority": "NEXT",
        "turnId": "turn-1",
        "initiator": {"type": "USER", "id": "u-1", "displayName": "Ada"},
        "deliveredAt": "2024-05-01T12:34:56.789Z",
        "metadata": {},
    }
    obj.update(changes)
    return {k: v for k, v in obj.items() if v is not _ABSENT}


def mongo_document(top: dict[str, Any] | None = None, **payload_changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "agentRef": "agent",
        "contextDiscriminator": None,
        "userInput": RENDERING,
        "turnId": "turn-1",
        "idempotencyKey": None,
        "initiator": {"type": "USER", "id": "u-1", "displayName": "Ada"},
        "deliveredAt": datetime(2024, 5, 1, 12, 34, 56, 789000),
        "metadata": {},
    }
    payload.update(payload_changes)
    doc: dict[str, Any] = {
        "_id": ObjectId("65f1a2b3c4d5e6f708192a3b"),
        "conversationId": SESSION,
        "priority": 1,
        "deliveredAt": datetime(2024, 5, 1, 12, 34, 56, 790000, tzinfo=UTC),
        "payload": {k: v for k, v in payload.items() if v is not _ABSENT},
    }
    doc.update(top or {})
    return {k: v for k, v in doc.items() if v is not _ABSENT}


def assert_degraded_once(caplog: pytest.LogCaptureFixture, decoded_input: object) -> None:
    assert decoded_input == TextInput(text=RENDERING)
    assert len(caplog.records) == 1, [r.getMessage() for r in caplog.records]
    record = caplog.records[0]
    assert record.levelno == logging.WARNING
    text = record.getMessage()
    assert SESSION in text
    for payload in ("PAYLOAD", "SECRET", SECRET_DATA, RENDERING):
        assert payload not in text


# --- degrade: JSON form (Redis, PostgreSQL)


@pytest.mark.parametrize("encoded", list(UNREADABLE_ENCODINGS.values()), ids=list(UNREADABLE_ENCODINGS))
def test_json_form_degrades(encoded: Any, caplog: pytest.LogCaptureFixture) -> None:
    text = json.dumps(json_envelope(userInputEncoded=encoded))
    with caplog.at_level(logging.DEBUG):
        decoded = from_json_envelope(text, "1-0")
    assert_degraded_once(caplog, decoded.user_input)
    assert decoded.turn_id == "turn-1"


def test_json_form_degrades_on_invalid_json_text(caplog: pytest.LogCaptureFixture) -> None:
    text = json.dumps(json_envelope(userInputEncoded=INVALID_JSON_TEXT))
    with caplog.at_level(logging.DEBUG):
        decoded = from_json_envelope(text, "1-0")
    assert_degraded_once(caplog, decoded.user_input)


# --- degrade: Mongo form (the encoding is JSON text)


@pytest.mark.parametrize("encoded", list(UNREADABLE_ENCODINGS.values()), ids=list(UNREADABLE_ENCODINGS))
def test_mongo_form_degrades(encoded: Any, caplog: pytest.LogCaptureFixture) -> None:
    doc = mongo_document(userInputEncoded=json.dumps(encoded))
    with caplog.at_level(logging.DEBUG):
        decoded = from_mongo_document(doc)
    assert_degraded_once(caplog, decoded.user_input)
    assert decoded.turn_id == "turn-1"


def test_mongo_form_degrades_on_invalid_json_text(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        decoded = from_mongo_document(mongo_document(userInputEncoded=INVALID_JSON_TEXT))
    assert_degraded_once(caplog, decoded.user_input)


# --- refuse: everything that is not the encoded input

JSON_REFUSALS: dict[str, dict[str, Any]] = {
    "malformed initiator (text)": {"initiator": "USER:u-1"},
    "malformed initiator (no id)": {"initiator": {"type": "USER", "displayName": "Ada"}},
    "malformed initiator (array)": {"initiator": ["USER", "u-1", "Ada"]},
    "unknown initiator type": {"initiator": {"type": "ROBOT", "id": "r2", "displayName": "R2"}},
    "unknown priority": {"priority": "URGENT"},
    "missing conversationId": {"conversationId": _ABSENT},
    "missing agentRef": {"agentRef": _ABSENT},
    "missing userInput": {"userInput": _ABSENT},
    "missing priority": {"priority": _ABSENT},
    "missing initiator": {"initiator": _ABSENT},
    "missing deliveredAt": {"deliveredAt": _ABSENT},
}


@pytest.mark.parametrize("changes", list(JSON_REFUSALS.values()), ids=list(JSON_REFUSALS))
def test_json_form_refuses(changes: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    # An unreadable encoding beside the damage must not log a degrade warning for a refused entry.
    text = json.dumps(json_envelope(userInputEncoded={"type": "video"}, **changes))
    with caplog.at_level(logging.DEBUG), pytest.raises(CodecError):
        from_json_envelope(text, "1-0")
    assert caplog.records == []


MONGO_PAYLOAD_REFUSALS: dict[str, dict[str, Any]] = {
    "malformed initiator (text)": {"initiator": "USER:u-1"},
    "malformed initiator (no id)": {"initiator": {"type": "USER", "displayName": "Ada"}},
    "unknown initiator type": {"initiator": {"type": "ROBOT", "id": "r2", "displayName": "R2"}},
    "missing agentRef": {"agentRef": _ABSENT},
    "missing userInput": {"userInput": _ABSENT},
    "missing initiator": {"initiator": _ABSENT},
    "missing payload deliveredAt": {"deliveredAt": _ABSENT},
    "non-string userInput": {"userInput": {"type": "text", "text": "restructured"}},
}
MONGO_TOP_REFUSALS: dict[str, dict[str, Any]] = {
    "unknown priority": {"priority": 7},
    "missing _id": {"_id": _ABSENT},
    "missing conversationId": {"conversationId": _ABSENT},
    "missing priority": {"priority": _ABSENT},
    "missing payload": {"payload": _ABSENT},
}


@pytest.mark.parametrize("changes", list(MONGO_PAYLOAD_REFUSALS.values()), ids=list(MONGO_PAYLOAD_REFUSALS))
def test_mongo_form_refuses_a_damaged_payload(
    changes: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    doc = mongo_document(userInputEncoded='{"type":"video"}', **changes)
    with caplog.at_level(logging.DEBUG), pytest.raises(CodecError):
        from_mongo_document(doc)
    assert caplog.records == []


@pytest.mark.parametrize("top", list(MONGO_TOP_REFUSALS.values()), ids=list(MONGO_TOP_REFUSALS))
def test_mongo_form_refuses_a_damaged_document(top: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG), pytest.raises(CodecError):
        from_mongo_document(mongo_document(top, userInputEncoded='{"type":"video"}'))
    assert caplog.records == []


def test_undamaged_cases_decode_without_warning(caplog: pytest.LogCaptureFixture) -> None:
    """The fixtures above are valid apart from the one change each case makes."""
    with caplog.at_level(logging.DEBUG):
        assert from_json_envelope(json.dumps(json_envelope())).user_input == TextInput(text=RENDERING)
        assert from_mongo_document(mongo_document()).user_input == TextInput(text=RENDERING)
    assert caplog.records == []
