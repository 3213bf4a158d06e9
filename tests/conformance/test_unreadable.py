"""Unreadable inbox entries: reported, quarantined with their raw form, replayable after repair."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from aimon_mongo.errors import CodecError, InvalidArgumentError, SessionInboxError
from aimon_mongo.model import (
    FileInput,
    LlmCallMetadata,
    MultimodalInput,
    Principal,
    SubmitOptions,
    TextInput,
)
from tests.conformance.helpers import message, new_id


async def test_damaged_entry_among_good_ones(cluster: Any, caplog: pytest.LogCaptureFixture) -> None:
    node = await cluster.node("node-a")
    session = new_id()
    await node.inbox.deliver(message(session, turn_id="good-1", text="first"))
    if not cluster.can_damage_entries:
        # Declared: this inbox keeps objects, so nothing is ever unreadable or quarantined.
        batch = await node.inbox.collect(session)
        assert [m.turn_id for m in batch.messages] == ["good-1"] and batch.unreadable == ()
        assert await node.inbox.list_quarantined() == []
        with pytest.raises(SessionInboxError):
            await node.inbox.replay_quarantined("no-such-entry")
        return

    damaged_id = await cluster.store_damaged_entry(
        message(session, turn_id="bad-1", idempotency_key="key-bad", text="secret payload text")
    )
    await node.inbox.deliver(message(session, turn_id="good-2", text="second"))

    with caplog.at_level(logging.WARNING):
        batch = await node.inbox.collect(session)
    assert [m.turn_id for m in batch.messages] == ["good-1", "good-2"]
    assert len(batch.unreadable) == 1
    unreadable = batch.unreadable[0]
    assert unreadable.id == damaged_id
    assert (unreadable.turn_id, unreadable.idempotency_key) == ("bad-1", "key-bad")
    assert unreadable.is_addressable
    assert "secret payload text" not in unreadable.reason
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(session in w and damaged_id in w for w in warnings), warnings
    assert not any("secret payload text" in w for w in warnings)
    assert await node.inbox.is_empty(session)

    quarantined = await node.inbox.list_quarantined(session)
    assert len(quarantined) == 1
    entry = quarantined[0]
    assert (entry.session_id, entry.entry_id) == (session, damaged_id)
    assert "ROBOT" in str(entry.raw) and "secret payload text" in str(entry.raw)
    assert entry.error
    assert [q.id for q in await node.inbox.list_quarantined()] == [entry.id]
    assert await node.inbox.list_quarantined(new_id()) == []

    # Replaying the unrepaired form refuses and keeps the entry.
    with pytest.raises(CodecError):
        await node.inbox.replay_quarantined(entry.id)
    assert [q.id for q in await node.inbox.list_quarantined(session)] == [entry.id]

    new_entry_id = await node.inbox.replay_quarantined(entry.id, cluster.repair(entry.raw))
    assert await node.inbox.list_quarantined(session) == []
    replayed = await node.inbox.collect(session)
    assert replayed.unreadable == ()
    assert [(m.id, m.turn_id, m.user_input.as_text()) for m in replayed.messages] == [
        (new_entry_id, "bad-1", "secret payload text")
    ]


async def test_delete_quarantined(cluster: Any) -> None:
    node = await cluster.node("node-a")
    session = new_id()
    if not cluster.can_damage_entries:
        assert await node.inbox.delete_quarantined("anything") is False
        return
    await cluster.store_damaged_entry(message(session, turn_id="bad"))
    batch = await node.inbox.collect(session)
    assert len(batch.unreadable) == 1 and batch.messages == ()
    [entry] = await node.inbox.list_quarantined(session)
    assert await node.inbox.delete_quarantined(entry.id) is True
    assert await node.inbox.delete_quarantined(entry.id) is False
    assert await node.inbox.list_quarantined(session) == []
    with pytest.raises(SessionInboxError):
        await node.inbox.replay_quarantined(entry.id)


@pytest.mark.parametrize("bad", [None, {"$ne": None}, b"id", ""])
async def test_quarantine_ids_are_checked(node: Any, bad: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="quarantine_id"):
        await node.inbox.replay_quarantined(bad)
    with pytest.raises(InvalidArgumentError, match="quarantine_id"):
        await node.inbox.delete_quarantined(bad)


MARKER = "MARKER-7f3a-payload"


async def test_reason_names_the_failing_envelope_value_never_a_payload_value(
    cluster: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """An entry whose ``deliveredAt`` is not an instant: the reason, the WARN and the quarantine listing name
    the refused value (``'not-a-timestamp'``); a marker in every payload field (the text, the encoded
    multimodal input, metadata, submit-option values) appears in none of them — only in the raw form kept."""
    if not cluster.can_damage_entries:
        return  # declared: the in-memory inbox keeps objects, nothing is ever unreadable
    node = await cluster.node("node-a")
    session = new_id()
    payload_heavy = message(
        session,
        turn_id="t-bad",
        user_input=MultimodalInput(
            inputs=(
                TextInput(text=MARKER),
                FileInput(mime_type="text/plain", file_name=f"{MARKER}.txt", data=MARKER.encode()),
            )
        ),
        metadata={"note": MARKER},
        submit_options=SubmitOptions(
            system_prompt_variables={"v": MARKER},
            execution_attributes={"a": [MARKER]},
            llm_call_metadata=LlmCallMetadata(feature=MARKER, principal=Principal.user(MARKER)),
        ),
    )
    entry_id = await cluster.store_entry_with_bad_instant(payload_heavy, "not-a-timestamp")
    with caplog.at_level(logging.WARNING):
        batch = await node.inbox.collect(session)
    [unreadable] = batch.unreadable
    assert unreadable.id == entry_id
    assert "deliveredAt" in unreadable.reason and "'not-a-timestamp'" in unreadable.reason
    assert MARKER not in unreadable.reason
    logged = [r.getMessage() for r in caplog.records]
    assert any(entry_id in line and "'not-a-timestamp'" in line for line in logged), logged
    assert not any(MARKER in line for line in logged)
    [quarantined] = await node.inbox.list_quarantined(session)
    assert "'not-a-timestamp'" in quarantined.error and MARKER not in quarantined.error
    assert MARKER in str(quarantined.raw)  # the raw form is kept whole, for the operator to repair
