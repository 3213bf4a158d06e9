"""assert_conforms: the one-line check of stored values against their declared root."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from bson import Int64, ObjectId

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate import assert_conforms, conformance_errors

LEASE = {
    "_id": "s-1",
    "holderId": "node-a",
    "fencingToken": Int64(3),
    "leaseExpiresAt": datetime(2026, 1, 1, tzinfo=UTC),
    "acquiredAt": datetime(2026, 1, 1, tzinfo=UTC),
}

ENVELOPE = {
    "conversationId": "s-1",
    "agentRef": "reviewer",
    "userInput": "hi",
    "priority": "NEXT",
    "initiator": {"type": "USER", "id": "u1", "displayName": "U"},
    "deliveredAt": "2026-01-01T10:00:00.123Z",
    "metadata": {},
}


def test_a_conforming_document_passes() -> None:
    assert_conforms("mongo.lease.document", LEASE)
    assert_conforms("mongo.lease.document", {**LEASE, "holderId": None})
    assert_conforms("inbox.json-envelope", ENVELOPE)
    assert_conforms("inbox.json-envelope", json.dumps(ENVELOPE))  # JSON text is parsed first
    assert_conforms("redis.lease.value", "node-a:17")


def test_scalar_types_are_exact() -> None:
    assert conformance_errors("mongo.lease.document", {**LEASE, "fencingToken": 3}) == [
        "$.fencingToken: expected int64, got int"
    ]
    assert conformance_errors("mongo.lease.document", {**LEASE, "acquiredAt": "2026-01-01T00:00:00Z"}) == [
        "$.acquiredAt: expected date, got str"
    ]
    assert "$.ttlMillis: expected integer, got bool" in conformance_errors(
        "redis.idempotency.value", {"ttlMillis": True}
    )
    errors = conformance_errors(
        "postgres.inbox.row",
        {
            "id": 2**63,
            "conversation_id": "s",
            "agent_ref": "a",
            "priority": 1,
            "payload": ENVELOPE,
            "delivered_at": datetime(2026, 1, 1, tzinfo=UTC),
        },
    )
    assert errors == ["$.id: expected pg.bigint, got int"]


def test_keys_literals_and_formats() -> None:
    errors = conformance_errors(
        "inbox.json-envelope",
        {**ENVELOPE, "priority": "SOON", "deliveredAt": "2026-01-01 10:00", "sessionId": "x"},
    )
    assert errors == [
        "$.deliveredAt: text does not follow format 'instant' (ISO-8601 instant in UTC as "
        "java.time.Instant.toString() writes it (0, 3, 6 or 9 fraction digits, Z))",
        '$.priority: matches none of: "LATER" | "NEXT" | "NOW" (got str)',
        "$.sessionId: key not declared for this object",
    ]
    missing = {k: v for k, v in ENVELOPE.items() if k != "conversationId"}
    assert conformance_errors("inbox.json-envelope", missing) == ["$.conversationId: required key missing"]
    assert conformance_errors("redis.lease.value", "node-a") == [
        '$: text does not follow format \'holder-token\' ("<holderId>:<fencingToken>" (holder id without ":"))'
    ]


def test_unions_report_the_variant_the_discriminator_picks() -> None:
    assert conformance_errors("user-input", {"type": "image", "mimeType": "image/png", "data": "a b"}) == [
        "$.data: text does not follow format 'base64' (standard base64 with padding, no line breaks)"
    ]
    errors = conformance_errors("user-input", {"type": "video", "data": ""})
    assert len(errors) == 1 and errors[0].startswith('$: matches none of: object (type="audio")')


def test_json_text_inside_a_string_is_checked() -> None:
    document = {
        "_id": ObjectId(),
        "conversationId": "s-1",
        "priority": 1,
        "deliveredAt": datetime(2026, 1, 1, tzinfo=UTC),
        "payload": {
            "agentRef": "a",
            "contextDiscriminator": None,
            "userInput": "[Image: image/png, 1 bytes]",
            "userInputEncoded": '{"type":"image","mimeType":"image/png"}',
            "turnId": None,
            "idempotencyKey": None,
            "initiator": {"type": "SYSTEM", "id": "system", "displayName": "System"},
            "deliveredAt": datetime(2026, 1, 1, tzinfo=UTC),
            "metadata": {},
        },
    }
    assert conformance_errors("mongo.inbox.document", document) == [
        "$.payload.userInputEncoded<json-text>.data: required key missing"
    ]
    document["payload"]["userInputEncoded"] = {"type": "text", "text": "x"}  # an object is not JSON text
    assert conformance_errors("mongo.inbox.document", document) == [
        "$.payload.userInputEncoded: expected json-text (a string), got dict"
    ]


def test_messages_name_paths_and_types_never_values() -> None:
    secret = "s3cr3t-payload-text"
    errors = conformance_errors("inbox.json-envelope", {**ENVELOPE, "userInput": {"x": secret}, "agentRef": 12})
    assert errors == ["$.agentRef: expected string, got int", "$.userInput: expected string, got dict"]
    assert secret not in "".join(errors)


def test_unknown_root_is_an_error() -> None:
    with pytest.raises(SchemaGateError, match="no declared root 'nope'"):
        conformance_errors("nope", {})
    with pytest.raises(AssertionError, match=r"does not conform to stored root 'mongo\.lease\.document'"):
        assert_conforms("mongo.lease.document", {})
