"""Assertions shared by the codec tests."""

from __future__ import annotations

from typing import Any

from aimon_mongo.model import InboundMessage

JSON_ENVELOPE_KEYS = (
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
)
"""Every key of the JSON envelope, in the frozen write order (the freeze tests pin it separately)."""


def dump(msg: InboundMessage) -> dict[str, Any]:
    """Every field of ``msg`` as plain data, with empty call metadata read as absent (as it is stored).

    Unlike ``==`` this sees display names: principals compare equal by type and id only.
    """
    data = msg.model_dump()
    llm = data["submit_options"]["llm_call_metadata"]
    if llm is not None and not any(v for v in llm.values()):
        data["submit_options"]["llm_call_metadata"] = None
    return data


def assert_same_message(actual: InboundMessage, expected: InboundMessage) -> None:
    """Equal, field by field (display names included), and valid by the model's own rules."""
    assert actual == expected
    assert dump(actual) == dump(expected)
    revalidated = InboundMessage.model_validate(actual.model_dump())
    assert dump(revalidated) == dump(actual)
