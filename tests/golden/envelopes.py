"""Golden inbox envelopes shared by the JSON backends (Redis stream field ``p``, PostgreSQL ``payload``).

Each backend's test stores the message below and compares what the store holds with the hard-coded JSON
text here (hand-checked against the reference's key order: conversationId, agentRef, userInput,
[userInputEncoded], priority, [turnId], [contextDiscriminator], [idempotencyKey], initiator, deliveredAt,
metadata, [submitOptions]). One file, so both backends are pinned to the same bytes.
"""

from __future__ import annotations

from datetime import UTC, datetime

from aimon_mongo.model import (
    ImageInput,
    InboundMessage,
    MultimodalInput,
    Principal,
    Priority,
    SubmitOptions,
    TextInput,
)

TEXT_MESSAGE = InboundMessage(
    session_id="conv-7",
    turn_id="turn-1",
    agent_ref="assistant",
    context_discriminator="ctx-2",
    user_input=TextInput(text="Hello, world"),
    priority=Priority.NEXT,
    idempotency_key="idem-9",
    initiator=Principal.user("u-1", "Ann"),
    delivered_at=datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC),
    metadata={"channel": "web"},
)

# A text submission: no "userInputEncoded", byte-for-byte what older builds wrote.
TEXT_ENVELOPE_JSON = (
    '{"conversationId":"conv-7","agentRef":"assistant","userInput":"Hello, world","priority":"NEXT",'
    '"turnId":"turn-1","contextDiscriminator":"ctx-2","idempotencyKey":"idem-9",'
    '"initiator":{"type":"USER","id":"u-1","displayName":"Ann"},"deliveredAt":"2026-01-02T03:04:05.678Z",'
    '"metadata":{"channel":"web"}}'
)

MULTIMODAL_MESSAGE = InboundMessage(
    session_id="conv-7",
    agent_ref="assistant",
    user_input=MultimodalInput(inputs=(TextInput(text="Look"), ImageInput(mime_type="image/png", data=b"\x89PNG"))),
    priority=Priority.NOW,
    initiator=Principal.system(),
    delivered_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    submit_options=SubmitOptions(principal=Principal.user("u-1", "Ann"), system_prompt_variables={"tone": "dry"}),
)

# A multimodal submission: "userInput" keeps the text rendering, "userInputEncoded" the structure.
MULTIMODAL_ENVELOPE_JSON = (
    '{"conversationId":"conv-7","agentRef":"assistant","userInput":"Look [Image: image/png, 4 bytes]",'
    '"userInputEncoded":{"type":"multimodal","inputs":[{"type":"text","text":"Look"},'
    '{"type":"image","mimeType":"image/png","data":"iVBORw=="}]},"priority":"NOW",'
    '"initiator":{"type":"SYSTEM","id":"system","displayName":"System"},"deliveredAt":"2026-01-02T03:04:05Z",'
    '"metadata":{},"submitOptions":{"principal":{"type":"USER","id":"u-1","displayName":"Ann"},'
    '"systemPromptVariables":{"tone":"dry"}}}'
)

# Written by a node one release ahead: an input type this build does not know. Collecting it must degrade
# to the text beside it (FUTURE_INPUT_TEXT), never refuse the entry.
FUTURE_INPUT_ENVELOPE_JSON = (
    '{"conversationId":"conv-7","agentRef":"assistant","userInput":"[Video: video/mp4, 1024 bytes]",'
    '"userInputEncoded":{"type":"video","mimeType":"video/mp4","data":"AAAA"},"priority":"NEXT",'
    '"turnId":"turn-2","initiator":{"type":"USER","id":"u-1","displayName":"Ann"},'
    '"deliveredAt":"2026-01-02T03:04:05.678Z","metadata":{}}'
)
FUTURE_INPUT_TEXT = "[Video: video/mp4, 1024 bytes]"
