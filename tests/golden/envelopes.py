"""Golden inbox envelopes shared by every JSON backend (Redis stream field ``p``, PostgreSQL ``payload``).

Each case is one :class:`InboundMessage` and the exact JSON text our encoder writes for it, written out
by hand: a text submission carries no ``userInputEncoded`` (byte for byte what older builds wrote); a
multimodal one carries ``userInput`` = its text rendering plus the ``userInputEncoded`` object.
``UNREADABLE_ENCODED_ENVELOPE_JSON`` is what a node one release ahead might write: a ``userInputEncoded``
this build cannot read, which must degrade to the text beside it when collected.
"""

from __future__ import annotations

from datetime import UTC, datetime

from aimon_mongo.model import (
    FileInput,
    ImageInput,
    InboundMessage,
    MultimodalInput,
    Principal,
    PrincipalType,
    TextInput,
)

AT = datetime(2024, 5, 1, 12, 34, 56, 789000, tzinfo=UTC)
SESSION = "conv-7f3a"


def text_message(session_id: str = SESSION) -> InboundMessage:
    """A plain text turn as older builds submitted it: no turn id, no optional keys."""
    return InboundMessage(
        session_id=session_id,
        agent_ref="support-agent",
        user_input=TextInput(text="Where is my order #1234?"),
        initiator=Principal(type=PrincipalType.USER, id="u-42", display_name="Ada Lovelace"),
        delivered_at=AT,
    )


TEXT_ENVELOPE_JSON = (
    '{"conversationId":"conv-7f3a","agentRef":"support-agent","userInput":"Where is my order #1234?",'
    '"priority":"NEXT","initiator":{"type":"USER","id":"u-42","displayName":"Ada Lovelace"},'
    '"deliveredAt":"2024-05-01T12:34:56.789Z","metadata":{}}'
)


def multimodal_message(session_id: str = SESSION) -> InboundMessage:
    """Text, an image and a text file, with a turn id."""
    inputs = (
        TextInput(text="What is wrong here?"),
        ImageInput(mime_type="image/png", data=b"\x89PNG\r\n"),
        FileInput(mime_type="text/plain", file_name="notes.txt", data=b"line 1\nline 2"),
    )
    return text_message(session_id).model_copy(
        update={"turn_id": "turn-0002", "user_input": MultimodalInput(inputs=inputs)}
    )


MULTIMODAL_ENVELOPE_JSON = (
    '{"conversationId":"conv-7f3a","agentRef":"support-agent",'
    '"userInput":"What is wrong here? [Image: image/png, 6 bytes] line 1\\nline 2",'
    '"userInputEncoded":{"type":"multimodal","inputs":['
    '{"type":"text","text":"What is wrong here?"},'
    '{"type":"image","mimeType":"image/png","data":"iVBORw0K"},'
    '{"type":"file","mimeType":"text/plain","fileName":"notes.txt","data":"bGluZSAxCmxpbmUgMg=="}]},'
    '"priority":"NEXT","turnId":"turn-0002",'
    '"initiator":{"type":"USER","id":"u-42","displayName":"Ada Lovelace"},'
    '"deliveredAt":"2024-05-01T12:34:56.789Z","metadata":{}}'
)

UNREADABLE_ENCODED_ENVELOPE_JSON = (
    '{"conversationId":"conv-7f3a","agentRef":"support-agent","userInput":"[Video: video/mp4, 9 bytes]",'
    '"userInputEncoded":{"type":"video","mimeType":"video/mp4","data":"AAAAAAAAAAAA"},'
    '"priority":"NEXT","turnId":"turn-0003",'
    '"initiator":{"type":"USER","id":"u-42","displayName":"Ada Lovelace"},'
    '"deliveredAt":"2024-05-01T12:34:56.789Z","metadata":{}}'
)
"""Written by a newer node: ``userInputEncoded`` has a type this build does not know."""
