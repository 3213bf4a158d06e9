"""An inbox entry written by a Java node of the reference system, collected through every store.

What the reference writes — a nine-digit ``deliveredAt`` in the JSON forms and the LLM-call principal as a
``{type, id, displayName}`` object — is read by every backend's collect, nothing refused or degraded; the
MongoDB form keeps its BSON date (milliseconds, as the reference stores it there).
"""

from __future__ import annotations

import json
from typing import Any

from aimon_mongo.codec.instant import format_instant
from aimon_mongo.model import Priority
from tests.conformance.helpers import new_id
from tests.golden.java_written import (
    EXPECTED_OPTIONS,
    JAVA_ENVELOPE,
    MONGO_AT,
    java_mongo_document,
)


async def test_an_entry_a_java_node_wrote_is_collected_whole(cluster: Any) -> None:
    if cluster.stored_form is None:
        return  # declared: the in-memory inbox keeps objects; no other build writes into it
    node = await cluster.node("node-a")
    session = new_id()
    if cluster.stored_form == "mongo-document":
        raw: Any = java_mongo_document()
        del raw["_id"]
        raw["conversationId"] = session
        raw.pop("deliveredAt")  # the server's clock stamps the top level, as the Java node's deliver does
        expected_at = format_instant(MONGO_AT)
    else:
        envelope = json.loads(JAVA_ENVELOPE)
        envelope["conversationId"] = session
        raw = json.dumps(envelope, separators=(",", ":"), ensure_ascii=False)
        expected_at = "2026-07-07T10:15:30.123456789Z"
    entry_id = await cluster.store_raw_entry(session, Priority.NOW, raw)

    batch = await node.inbox.collect(session)
    assert batch.unreadable == ()
    [msg] = batch.messages
    assert msg.id == entry_id and msg.turn_id == "turn-7"
    assert msg.submit_options == EXPECTED_OPTIONS
    assert format_instant(msg.delivered_at) == expected_at
