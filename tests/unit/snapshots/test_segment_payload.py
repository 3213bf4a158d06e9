"""Sealed segment payloads (``{"version":2,"entries":[...]}``) and their content hash, against literals.

The hashes were computed independently (``printf '%s' ... | sha256sum``)."""

from __future__ import annotations

import pytest

from aimon_mongo.errors import SnapshotCodecError
from aimon_mongo.snapshots import (
    JsonSessionSnapshotCodec,
    LogEntry,
    LogOrigin,
    Message,
    Role,
    ToolUse,
    content_hash,
    decode_entries,
    encode_entries,
)

PAYLOAD = (
    '{"version":2,"entries":[{"seq":4,"origin":"SYNTHETIC","message":{"role":"USER","content":[{"type":"text",'
    '"text":"<reminder>é</reminder>"}]}},{"seq":5,"origin":"CONVERSATION","message":{"role":"ASSISTANT",'
    '"content":[],"toolUses":[{"id":"t","name":"ls","input":{"dir":"/"}}]}}]}'
)
ENTRIES = (
    LogEntry(seq=4, origin=LogOrigin.SYNTHETIC, message=Message.text(Role.USER, "<reminder>é</reminder>")),
    LogEntry(
        seq=5,
        message=Message(role=Role.ASSISTANT, tool_uses=(ToolUse(id="t", name="ls", input={"dir": "/"}),)),
    ),
)


def test_payload_golden() -> None:
    assert encode_entries(ENTRIES) == PAYLOAD
    assert decode_entries(PAYLOAD) == ENTRIES
    codec = JsonSessionSnapshotCodec()
    assert codec.decode_entries(codec.encode_entries(ENTRIES)) == ENTRIES


def test_empty_payload() -> None:
    assert encode_entries(()) == '{"version":2,"entries":[]}'
    assert decode_entries('{"version":2,"entries":[],"later":1}') == ()


@pytest.mark.parametrize(
    ("payload", "digest"),
    [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("é", "4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c"),
        (PAYLOAD, "e91878d2ba0094dc111cc26a03d348b4ad031eef10895b4e098f20db805ed47f"),
    ],
    ids=["empty", "non-ascii", "payload"],
)
def test_content_hash_golden(payload: str, digest: str) -> None:
    assert content_hash(payload) == "sha256:" + digest


def test_content_hash_is_over_the_string_as_written() -> None:
    assert content_hash(PAYLOAD.replace(":", ": ")) != content_hash(PAYLOAD)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ('{"version":1,"entries":[]}', "Encoded log entries are not a version-2 entry list"),
        ('{"entries":[]}', "Encoded log entries are not a version-2 entry list"),
        ("[]", "Encoded log entries are not a version-2 entry list"),
        ("", "Encoded log entries are not a version-2 entry list"),
        ('{"version":2}', "Encoded log entries carry no entry array"),
        ('{"version":2,"entries":{}}', "Encoded log entries carry no entry array"),
        ('{"version":2,"entries":[7]}', "Log entry is not a JSON object"),
        (
            '{"version":2,"entries":[{"seq":1,"origin":"X","message":{"role":"USER"}}]}',
            "Unknown log entry origin: X",
        ),
        (
            '{"version":2,"entries":[{"origin":"SYNTHETIC","message":{"role":"USER"}}]}',
            "Missing or non-integral field 'seq'",
        ),
        (
            '{"version":2,"entries":[{"seq":-1,"origin":"SYNTHETIC","message":{"role":"USER"}}]}',
            "Failed to decode log entries: seq cannot be negative, got: -1",
        ),
        (
            '{"version":2,"entries":[',
            "Failed to decode log entries: not valid JSON (Expecting value at position 24)",
        ),
    ],
)
def test_refused_payloads(payload: str, message: str) -> None:
    with pytest.raises(SnapshotCodecError) as info:
        decode_entries(payload)
    assert str(info.value) == message
