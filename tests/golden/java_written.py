"""Stored forms exactly as a Java node of the reference system writes them (hand-written literals).

Instants carry nine fraction digits in the JSON forms (``java.time.Instant`` keeps nanoseconds) and BSON
dates (milliseconds) in MongoDB; the LLM-call principal is a ``{type, id, displayName}`` object. Shared by
the codec golden tests and the conformance suite's interop test.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bson import ObjectId

from aimon_mongo.model import LlmCallMetadata, Principal, PrincipalType, SubmitOptions
from aimon_mongo.model.instant import Instant

CALL_PRINCIPAL = '{"type":"SERVICE","id":"svc-billing","displayName":"Billing"}'
JAVA_OPTIONS = (
    '{"principal":{"type":"USER","id":"u-42","displayName":"Ada Lovelace"},'
    '"systemPromptVariables":{"tone":"brief","retries":3},"executionAttributes":{"region":"eu"},'
    '"llmCallMetadata":{"component":"router","parentComponent":"gateway","feature":"summary",'
    f'"principal":{CALL_PRINCIPAL},"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","tags":{{"team":"core"}}}}}}'
)
JAVA_ENVELOPE = (
    '{"conversationId":"conv-java","agentRef":"support-agent","userInput":"Summarise the ticket",'
    '"priority":"NOW","turnId":"turn-7","idempotencyKey":"idem-7",'
    '"initiator":{"type":"USER","id":"u-42","displayName":"Ada Lovelace"},'
    '"deliveredAt":"2026-07-07T10:15:30.123456789Z","metadata":{"channel":"web"},'
    f'"submitOptions":{JAVA_OPTIONS}}}'
)
NANO_INSTANT = Instant(2026, 7, 7, 10, 15, 30, 123456, UTC, sub_micros=789)
EXPECTED_OPTIONS = SubmitOptions(
    principal=Principal(type=PrincipalType.USER, id="u-42", display_name="Ada Lovelace"),
    system_prompt_variables={"tone": "brief", "retries": 3},
    execution_attributes={"region": "eu"},
    llm_call_metadata=LlmCallMetadata(
        component="router",
        parent_component="gateway",
        feature="summary",
        principal=Principal(type=PrincipalType.SERVICE, id="svc-billing", display_name="Billing"),
        trace_id="4bf92f3577b34da6a3ce929d0e0e4736",
        tags={"team": "core"},
    ),
)

OID = ObjectId("6868a8a2c0ffee0000000007")
MONGO_AT = datetime(2026, 7, 7, 10, 15, 30, 123000, tzinfo=UTC)  # BSON dates hold milliseconds


def java_mongo_document() -> dict[str, object]:
    return {
        "_id": OID,
        "conversationId": "conv-java",
        "priority": 0,
        "deliveredAt": MONGO_AT,
        "payload": {
            "agentRef": "support-agent",
            "contextDiscriminator": None,
            "userInput": "Summarise the ticket",
            "turnId": "turn-7",
            "idempotencyKey": "idem-7",
            "initiator": {"type": "USER", "id": "u-42", "displayName": "Ada Lovelace"},
            "deliveredAt": MONGO_AT,
            "metadata": {"channel": "web"},
            "submitOptions": json.loads(JAVA_OPTIONS),
        },
    }
