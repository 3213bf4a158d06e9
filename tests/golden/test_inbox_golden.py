"""Golden inbox entries: what we write, byte for byte, and what older builds wrote, still read.

Every expected value is written out here by hand. A text submission must stay exactly the document the
older build wrote (no ``userInputEncoded``); a multimodal one carries ``userInput`` = its text rendering plus
``userInputEncoded`` (an object in JSON, the same JSON as a string in MongoDB).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import bson
from bson import ObjectId

from aimon_mongo.codec.inbound import (
    from_json_envelope,
    from_mongo_document,
    to_json_envelope,
    to_mongo_document,
)
from aimon_mongo.model import (
    FileInput,
    ImageInput,
    InboundMessage,
    LlmCallMetadata,
    MultimodalInput,
    Principal,
    PrincipalType,
    Priority,
    SubmitOptions,
    TextInput,
)
from aimon_mongo.model.instant import Instant
from tests.helpers import assert_same_message

OID = ObjectId("65f1a2b3c4d5e6f708192a3b")
AT = datetime(2024, 5, 1, 12, 34, 56, 789000, tzinfo=UTC)
ADA = Principal(type=PrincipalType.USER, id="u-42", display_name="Ada Lovelace")


def text_submission() -> InboundMessage:
    """A plain text turn as the older build submitted it: no turn id, no optional keys."""
    return InboundMessage(
        session_id="conv-7f3a",
        agent_ref="support-agent",
        user_input=TextInput(text='Where is my order #1234? "Grüße" \\ ✓'),
        priority=Priority.NEXT,
        initiator=ADA,
        delivered_at=AT,
    )


def full_text_submission() -> InboundMessage:
    """A text turn with every optional field set."""
    return text_submission().model_copy(
        update={
            "turn_id": "turn-0001",
            "context_discriminator": "billing",
            "priority": Priority.NOW,
            "idempotency_key": "idem-9c1e",
            "metadata": {"channel": "web", "locale": "de-AT"},
            "submit_options": SubmitOptions(
                principal=Principal(type=PrincipalType.SERVICE, id="gateway", display_name="Gateway"),
                execution_attributes={"region": "eu-central", "budget": {"tokens": 4000, "strict": True}},
                llm_call_metadata=LlmCallMetadata(component="router", trace_id="trace-1"),
            ),
        }
    )


def multimodal_submission() -> InboundMessage:
    inputs = (
        TextInput(text="What is wrong here?"),
        ImageInput(mime_type="image/png", data=b"\x89PNG\r\n"),
        FileInput(mime_type="text/plain", file_name="notes.txt", data=b"line 1\nline 2"),
    )
    return text_submission().model_copy(update={"turn_id": "turn-0002", "user_input": MultimodalInput(inputs=inputs)})


TEXT_JSON = (
    '{"conversationId":"conv-7f3a","agentRef":"support-agent",'
    '"userInput":"Where is my order #1234? \\"Grüße\\" \\\\ ✓","priority":"NEXT",'
    '"initiator":{"type":"USER","id":"u-42","displayName":"Ada Lovelace"},'
    '"deliveredAt":"2024-05-01T12:34:56.789Z","metadata":{}}'
)

FULL_TEXT_JSON = (
    '{"conversationId":"conv-7f3a","agentRef":"support-agent",'
    '"userInput":"Where is my order #1234? \\"Grüße\\" \\\\ ✓","priority":"NOW",'
    '"turnId":"turn-0001","contextDiscriminator":"billing","idempotencyKey":"idem-9c1e",'
    '"initiator":{"type":"USER","id":"u-42","displayName":"Ada Lovelace"},'
    '"deliveredAt":"2024-05-01T12:34:56.789Z","metadata":{"channel":"web","locale":"de-AT"},'
    '"submitOptions":{"principal":{"type":"SERVICE","id":"gateway","displayName":"Gateway"},'
    '"executionAttributes":{"region":"eu-central","budget":{"tokens":4000,"strict":true}},'
    '"llmCallMetadata":{"component":"router","traceId":"trace-1"}}}'
)

MULTIMODAL_JSON = (
    '{"conversationId":"conv-7f3a","agentRef":"support-agent",'
    '"userInput":"What is wrong here? [Image: image/png, 6 bytes] line 1\\nline 2",'
    '"userInputEncoded":{"type":"multimodal","inputs":[{"type":"text","text":"What is wrong here?"},'
    '{"type":"image","mimeType":"image/png","data":"iVBORw0K"},'
    '{"type":"file","mimeType":"text/plain","fileName":"notes.txt","data":"bGluZSAxCmxpbmUgMg=="}]},'
    '"priority":"NEXT","turnId":"turn-0002",'
    '"initiator":{"type":"USER","id":"u-42","displayName":"Ada Lovelace"},'
    '"deliveredAt":"2024-05-01T12:34:56.789Z","metadata":{}}'
)


def text_mongo_document() -> dict[str, Any]:
    return {
        "_id": ObjectId("65f1a2b3c4d5e6f708192a3b"),
        "conversationId": "conv-7f3a",
        "priority": 1,
        "deliveredAt": datetime(2024, 5, 1, 12, 34, 56, 789000, tzinfo=UTC),
        "payload": {
            "agentRef": "support-agent",
            "contextDiscriminator": None,
            "userInput": 'Where is my order #1234? "Grüße" \\ ✓',
            "turnId": None,
            "idempotencyKey": None,
            "initiator": {"type": "USER", "id": "u-42", "displayName": "Ada Lovelace"},
            "deliveredAt": datetime(2024, 5, 1, 12, 34, 56, 789000, tzinfo=UTC),
            "metadata": {},
        },
    }


def multimodal_mongo_document() -> dict[str, Any]:
    return {
        "_id": ObjectId("65f1a2b3c4d5e6f708192a3b"),
        "conversationId": "conv-7f3a",
        "priority": 1,
        "deliveredAt": datetime(2024, 5, 1, 12, 34, 56, 789000, tzinfo=UTC),
        "payload": {
            "agentRef": "support-agent",
            "contextDiscriminator": None,
            "userInput": "What is wrong here? [Image: image/png, 6 bytes] line 1\nline 2",
            "userInputEncoded": (
                '{"type":"multimodal","inputs":[{"type":"text","text":"What is wrong here?"},'
                '{"type":"image","mimeType":"image/png","data":"iVBORw0K"},'
                '{"type":"file","mimeType":"text/plain","fileName":"notes.txt","data":"bGluZSAxCmxpbmUgMg=="}]}'
            ),
            "turnId": "turn-0002",
            "idempotencyKey": None,
            "initiator": {"type": "USER", "id": "u-42", "displayName": "Ada Lovelace"},
            "deliveredAt": datetime(2024, 5, 1, 12, 34, 56, 789000, tzinfo=UTC),
            "metadata": {},
        },
    }


def assert_same_document(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    """Equal values, equal key order at every level, and equal BSON bytes (which also pins BSON types)."""
    assert actual == expected
    assert list(actual) == list(expected)
    assert list(actual["payload"]) == list(expected["payload"])
    assert bson.encode(actual) == bson.encode(expected)


# --- what we write


def test_text_submission_is_the_older_builds_json_byte_for_byte() -> None:
    assert to_json_envelope(text_submission()) == TEXT_JSON
    assert "userInputEncoded" not in TEXT_JSON


def test_text_submission_with_every_optional_key() -> None:
    assert to_json_envelope(full_text_submission()) == FULL_TEXT_JSON


def test_text_submission_is_the_older_builds_mongo_document() -> None:
    assert_same_document(to_mongo_document(text_submission(), OID), text_mongo_document())


def test_multimodal_submission_json_carries_rendering_and_encoded_object() -> None:
    assert to_json_envelope(multimodal_submission()) == MULTIMODAL_JSON


def test_multimodal_submission_mongo_carries_rendering_and_encoded_string() -> None:
    assert_same_document(to_mongo_document(multimodal_submission(), OID), multimodal_mongo_document())


def test_goldens_read_back() -> None:
    assert_same_message(from_json_envelope(TEXT_JSON, "1-0"), text_submission().with_id("1-0"))
    assert_same_message(from_json_envelope(FULL_TEXT_JSON, "1-1"), full_text_submission().with_id("1-1"))
    assert_same_message(from_json_envelope(MULTIMODAL_JSON, "1-2"), multimodal_submission().with_id("1-2"))
    assert_same_message(from_mongo_document(text_mongo_document()), text_submission().with_id(str(OID)))
    assert_same_message(from_mongo_document(multimodal_mongo_document()), multimodal_submission().with_id(str(OID)))


# --- what older builds wrote


OLDER_JSON = (
    '{"conversationId":"conv-old","agentRef":"support-agent","userInput":"continue please",'
    '"priority":"LATER","idempotencyKey":"idem-old",'
    '"initiator":{"type":"GROUP","id":"ops","displayName":"Operations"},'
    '"deliveredAt":"2024-05-01T12:34:56.123456789Z","metadata":{"retry":"1"},'
    '"submitOptions":{"userContextInjection":true,"systemPromptVariables":{"tone":"brief"}}}'
)


def test_older_json_envelope_decodes() -> None:
    decoded = from_json_envelope(OLDER_JSON, "1700000000000-0")
    assert_same_message(
        decoded,
        InboundMessage(
            id="1700000000000-0",
            session_id="conv-old",
            agent_ref="support-agent",
            user_input=TextInput(text="continue please"),
            priority=Priority.LATER,
            idempotency_key="idem-old",
            initiator=Principal(type=PrincipalType.GROUP, id="ops", display_name="Operations"),
            delivered_at=Instant(2024, 5, 1, 12, 34, 56, 123456, UTC, sub_micros=789),
            metadata={"retry": "1"},
            submit_options=SubmitOptions(system_prompt_variables={"tone": "brief"}),
        ),
    )
    assert decoded.turn_id is None
    assert decoded.context_discriminator is None
    assert '"deliveredAt":"2024-05-01T12:34:56.123456789Z"' in to_json_envelope(decoded)


def test_older_json_envelope_with_only_the_retired_option_decodes_to_empty_options() -> None:
    older = (
        '{"conversationId":"c","agentRef":"a","userInput":"x","priority":"NOW",'
        '"initiator":{"type":"SYSTEM","id":"system","displayName":"System"},'
        '"deliveredAt":"2024-05-01T12:34:56Z","metadata":{},"submitOptions":{"userContextInjection":false}}'
    )
    assert from_json_envelope(older).submit_options == SubmitOptions.empty()


def older_mongo_document() -> dict[str, Any]:
    """As PyMongo returns it by default: naive UTC dates; no turnId key, no sidecar, retired option."""
    return {
        "_id": ObjectId("6500000000000000000000aa"),
        "conversationId": "conv-old",
        "priority": 0,
        "deliveredAt": datetime(2024, 5, 1, 12, 34, 57, 1000),
        "payload": {
            "agentRef": "support-agent",
            "contextDiscriminator": None,
            "userInput": "stop and summarise",
            "idempotencyKey": None,
            "initiator": {"type": "USER", "id": "u-1", "displayName": "Grace"},
            "deliveredAt": datetime(2024, 5, 1, 12, 34, 56, 123000),
            "metadata": {"source": "slack"},
            "submitOptions": {"userContextInjection": False},
        },
    }


def test_older_mongo_document_decodes() -> None:
    decoded = from_mongo_document(older_mongo_document())
    assert_same_message(
        decoded,
        InboundMessage(
            id="6500000000000000000000aa",
            session_id="conv-old",
            agent_ref="support-agent",
            user_input=TextInput(text="stop and summarise"),
            priority=Priority.NOW,
            initiator=Principal(type=PrincipalType.USER, id="u-1", display_name="Grace"),
            delivered_at=datetime(2024, 5, 1, 12, 34, 56, 123000, tzinfo=UTC),
            metadata={"source": "slack"},
        ),
    )
    assert decoded.turn_id is None
    assert decoded.delivered_at.tzinfo is UTC


def test_older_mongo_document_decodes_after_a_real_bson_round_trip() -> None:
    raw = bson.encode(older_mongo_document())
    assert from_mongo_document(bson.decode(raw)).user_input == TextInput(text="stop and summarise")
