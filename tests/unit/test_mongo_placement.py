"""The placement module: the layout it shards, the layouts it refuses, and the generated docs block."""

from __future__ import annotations

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.mongo.collections import MongoCollectionNames
from aimon_mongo.mongo.placement import Kind, collection_map, main, placement, shard_commands


def test_default_layout_shards_what_it_declares() -> None:
    assert shard_commands() == [
        {"shardCollection": "aimon_session.conversation_locks", "key": {"_id": "hashed"}},
        {"shardCollection": "aimon_session.conversation_inbox", "key": {"conversationId": "hashed"}},
        {"shardCollection": "aimon_session.idempotency_entries", "key": {"_id": "hashed"}},
        {"shardCollection": "aimon_session.background_task", "key": {"_id": "hashed"}},
        {"shardCollection": "aimon_session.session_records", "key": {"_id": "hashed"}},
        {"shardCollection": "aimon_session.session_log_segments", "key": {"sessionId": "hashed"}},
        {"shardCollection": "aimon_session.session_fences", "key": {"_id": "hashed"}},
        {"shardCollection": "aimon.fs.chunks", "key": {"files_id": 1, "n": 1}},
    ]


def test_the_duplicate_key_protocols_are_id_only_and_capped_ones_unsharded() -> None:
    kinds = {name: p.kind for name, p in collection_map().items()}
    for name in ("conversation_locks", "session_fences", "session_records", "idempotency_entries"):
        assert kinds[name] is Kind.ID_ONLY
    for name in ("conversation_signals", "scheduled_task_interrupts"):
        assert kinds[name] is Kind.UNSHARDED


@pytest.mark.parametrize("role", ["locks", "fences", "records", "idempotency"])
def test_a_duplicate_key_protocol_on_another_key_is_refused(role: str) -> None:
    with pytest.raises(InvalidArgumentError, match=rf"{role!r} may be sharded on `_id` only"):
        shard_commands(overrides={role: [("holderId", 1)]})


@pytest.mark.parametrize("role", ["signals", "scheduled_task_interrupts"])
def test_a_capped_collection_cannot_be_given_a_key(role: str) -> None:
    with pytest.raises(InvalidArgumentError, match="must stay unsharded"):
        shard_commands(overrides={role: {"conversationId": "hashed"}})


def test_a_key_hot_operations_do_not_carry_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match=r"uses \['priority'\].*every shard"):
        shard_commands(overrides={"inbox": [("priority", 1)]})
    with pytest.raises(InvalidArgumentError, match="uses"):
        shard_commands(overrides={"segments": {"_id": "hashed"}})


def test_refusal_comes_before_any_command_and_bad_keys_name_the_value() -> None:
    with pytest.raises(InvalidArgumentError, match="'nowhere'"):
        shard_commands(overrides={"nowhere": None})
    with pytest.raises(InvalidArgumentError, match="-1"):
        shard_commands(overrides={"inbox": {"conversationId": -1}})
    with pytest.raises(InvalidArgumentError, match="more than one hashed"):
        shard_commands(overrides={"chunks": {"files_id": "hashed", "n": "hashed"}})


def test_overrides_and_custom_names() -> None:
    names = MongoCollectionNames(inbox="my_inbox")
    commands = shard_commands("s", names, vfs_db=None, overrides={"inbox": {"conversationId": 1}, "tasks": None})
    assert {"shardCollection": "s.my_inbox", "key": {"conversationId": 1}} in commands
    assert not any(c["shardCollection"] == "s.background_task" for c in commands)
    assert not any("chunks" in c["shardCollection"] for c in commands)
    assert placement("quarantine").key is None


def test_the_operations_page_is_generated_from_the_module() -> None:
    assert main(["--check"]) == 0, "run: python -m aimon_mongo.mongo.placement"
