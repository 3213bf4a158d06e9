"""Stored shapes pinned against hard-coded literals: envelope and document keys (sets and order), the
UserInputCodec field names and type tags, the SubmitOptions key sets, the stored enum values.

Nothing here reads a constant from names.py: an encoder and a decoder that share a renamed constant would
still round-trip, and only a literal written here notices.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bson import ObjectId

from aimon_mongo.codec import submit_options, user_input
from aimon_mongo.codec.inbound import to_json_envelope, to_mongo_document
from aimon_mongo.model import (
    AudioInput,
    FileInput,
    ImageInput,
    InboundMessage,
    LlmCallMetadata,
    MultimodalInput,
    Principal,
    PrincipalType,
    Priority,
    SignalKind,
    SubmitOptions,
    TaskState,
    TextInput,
)
from aimon_mongo.model.idempotency import IdempotencyStatus

FULL_OPTIONS = SubmitOptions(
    principal=Principal(type=PrincipalType.USER, id="u", display_name="U"),
    system_prompt_variables={"a": 1},
    execution_attributes={"b": 2},
    llm_call_metadata=LlmCallMetadata(
        component="c",
        parent_component="p",
        feature="f",
        principal=Principal(type=PrincipalType.SERVICE, id="w", display_name="W"),
        trace_id="t",
        tags={"k": "v"},
    ),
)


def minimal_message() -> InboundMessage:
    return InboundMessage(
        session_id="s",
        agent_ref="a",
        user_input=TextInput(text="t"),
        initiator=Principal.system(),
        delivered_at=datetime(2024, 1, 1, tzinfo=UTC),
    )


def full_message() -> InboundMessage:
    return minimal_message().model_copy(
        update={
            "turn_id": "t",
            "context_discriminator": "c",
            "idempotency_key": "k",
            "user_input": MultimodalInput(inputs=(TextInput(text="x"),)),
            "metadata": {"m": "v"},
            "submit_options": FULL_OPTIONS,
        }
    )


def test_json_envelope_keys_in_order() -> None:
    assert list(json.loads(to_json_envelope(full_message()))) == [
        "conversationId",
        "agentRef",
        "userInput",
        "userInputEncoded",
        "priority",
        "turnId",
        "contextDiscriminator",
        "idempotencyKey",
        "initiator",
        "deliveredAt",
        "metadata",
        "submitOptions",
    ]
    assert list(json.loads(to_json_envelope(minimal_message()))) == [
        "conversationId",
        "agentRef",
        "userInput",
        "priority",
        "initiator",
        "deliveredAt",
        "metadata",
    ]


def test_json_envelope_value_types() -> None:
    env = json.loads(to_json_envelope(full_message()))
    assert isinstance(env["userInput"], str)
    assert isinstance(env["userInputEncoded"], dict)
    assert env["priority"] == "NEXT"
    assert list(env["initiator"]) == ["type", "id", "displayName"]


def test_mongo_document_keys_in_order() -> None:
    doc = to_mongo_document(full_message(), ObjectId())
    assert list(doc) == ["_id", "conversationId", "priority", "deliveredAt", "payload"]
    assert list(doc["payload"]) == [
        "agentRef",
        "contextDiscriminator",
        "userInput",
        "userInputEncoded",
        "turnId",
        "idempotencyKey",
        "initiator",
        "deliveredAt",
        "metadata",
        "submitOptions",
    ]
    minimal = to_mongo_document(minimal_message(), ObjectId())
    assert list(minimal["payload"]) == [
        "agentRef",
        "contextDiscriminator",
        "userInput",
        "turnId",
        "idempotencyKey",
        "initiator",
        "deliveredAt",
        "metadata",
    ]
    assert minimal["payload"]["contextDiscriminator"] is None
    assert minimal["payload"]["turnId"] is None
    assert minimal["payload"]["idempotencyKey"] is None


def test_mongo_document_value_types() -> None:
    doc = to_mongo_document(full_message(), ObjectId())
    assert type(doc["priority"]) is int
    assert doc["priority"] == 1
    assert isinstance(doc["payload"]["userInputEncoded"], str)
    assert json.loads(doc["payload"]["userInputEncoded"])["type"] == "multimodal"
    assert isinstance(doc["payload"]["deliveredAt"], datetime)


def test_mongo_submit_options_use_the_shared_key_sets() -> None:
    options = to_mongo_document(full_message(), ObjectId())["payload"]["submitOptions"]
    assert set(options) == {"principal", "systemPromptVariables", "executionAttributes", "llmCallMetadata"}
    assert set(options["principal"]) == {"type", "id", "displayName"}
    assert set(options["llmCallMetadata"]) == {
        "component",
        "parentComponent",
        "feature",
        "principal",
        "traceId",
        "tags",
    }
    # The call principal is a Principal object, as the reference writes it (not a string).
    assert options["llmCallMetadata"]["principal"] == {"type": "SERVICE", "id": "w", "displayName": "W"}


def test_submit_options_published_key_sets() -> None:
    assert (
        frozenset({"principal", "systemPromptVariables", "executionAttributes", "llmCallMetadata"})
        == submit_options.TOP_LEVEL_FIELDS
    )
    assert (
        frozenset({"component", "parentComponent", "feature", "principal", "traceId", "tags"})
        == submit_options.LLM_CALL_METADATA_FIELDS
    )
    assert list(submit_options.encode(FULL_OPTIONS)) == [
        "principal",
        "systemPromptVariables",
        "executionAttributes",
        "llmCallMetadata",
    ]


def test_user_input_field_names_and_tags() -> None:
    shapes = {
        "text": user_input.encode(TextInput(text="x")),
        "image": user_input.encode(ImageInput(mime_type="image/png", data=b"x")),
        "audio": user_input.encode(AudioInput(mime_type="audio/ogg", data=b"x")),
        "file": user_input.encode(FileInput(mime_type="a/b", file_name="f", data=b"x")),
        "multimodal": user_input.encode(MultimodalInput(inputs=(TextInput(text="x"),))),
    }
    assert {tag: shape["type"] for tag, shape in shapes.items()} == {
        "text": "text",
        "image": "image",
        "audio": "audio",
        "file": "file",
        "multimodal": "multimodal",
    }
    assert {tag: list(shape) for tag, shape in shapes.items()} == {
        "text": ["type", "text"],
        "image": ["type", "mimeType", "data"],
        "audio": ["type", "mimeType", "data"],
        "file": ["type", "mimeType", "fileName", "data"],
        "multimodal": ["type", "inputs"],
    }
    assert frozenset({"text", "image", "audio", "file", "multimodal"}) == user_input.TYPE_TAGS


def test_stored_enum_values() -> None:
    assert {p.name: p.value for p in Priority} == {"NOW": 0, "NEXT": 1, "LATER": 2}
    assert [t.value for t in PrincipalType] == ["USER", "GROUP", "SYSTEM", "SERVICE"]
    assert [k.value for k in SignalKind] == [
        "INTERRUPT",
        "EVICT",
        "YIELD",
        "MESSAGE_ENQUEUED",
        "EVENT",
        "TURN_RESULT",
        "STATUS",
    ]
    assert [s.value for s in TaskState] == ["PENDING", "RUNNING", "COMPLETED", "FAILED", "KILLED"]
    assert [s.value for s in IdempotencyStatus] == ["IN_FLIGHT", "DONE"]
