"""Freeze tests: MongoDB collections, index names and keys in the schema the Python bootstrap creates and in
db/mongodb/init.js, against hard-coded literals (the constants of names.py are pinned in
test_names_frozen.py)."""

from __future__ import annotations

import re
from pathlib import Path

from aimon_mongo.mongo.schema import session_schema

INIT_JS = Path(__file__).resolve().parents[2] / "db" / "mongodb" / "init.js"


def _init_js() -> str:
    text = INIT_JS.read_text(encoding="utf-8")
    text = re.sub(r"//[^\n]*", "", text)  # comments
    return re.sub(r"\s+", " ", text)


def test_python_schema() -> None:
    shape = [
        (
            spec.name,
            spec.capped_size,
            [(i.name, list(i.keys), i.unique, i.expire_after_seconds, i.partial_filter) for i in spec.indexes],
        )
        for spec in session_schema()
    ]
    assert shape == [
        ("conversation_locks", None, []),
        ("conversation_inbox", None, [
            ("by_conv_priority_fifo", [("conversationId", 1), ("priority", 1), ("deliveredAt", 1)], False, None, None),
        ]),
        ("conversation_inbox_quarantine", None, [
            ("by_conv_quarantined_at", [("conversationId", 1), ("quarantinedAt", 1)], False, None, None),
        ]),
        ("idempotency_entries", None, [
            ("ttl_expires_at", [("expiresAt", 1)], False, 0, None),
            ("by_status_touch", [("status", 1), ("lastTouchedAt", 1)], False, None, None),
        ]),
        ("conversation_signals", 67108864, []),
        ("background_task", None, [
            ("by_state", [("state", 1)], False, None, None),
            ("by_context", [("contextId", 1)], False, None, None),
        ]),
        ("scheduled_task_interrupts", 1048576, []),
        ("session_records", None, []),
        ("session_log_segments", None, [("by_session", [("sessionId", 1)], False, None, None)]),
        ("session_fences", None, []),
        ("langgraph_checkpoints", None, [
            ("by_thread_ns_checkpoint", [("thread_id", 1), ("checkpoint_ns", 1), ("checkpoint_id", -1)], False, None, None),  # noqa: E501
            ("by_thread_ns_value_key", [("thread_id", 1), ("checkpoint_ns", 1), ("values.key", 1)], False, None, None),
            ("by_run_id", [("run_id", 1)], False, None, {"run_id": {"$exists": True}}),
        ]),
        ("langgraph_threads", None, [
            ("by_expires_at", [("expires_at", 1)], False, None, None),
            ("ttl_purge_at", [("purge_at", 1)], False, 0, None),
        ]),
        ("langgraph_values.files", None, [("by_thread", [("metadata.thread_id", 1)], False, None, None)]),
        ("langgraph_values.chunks", None, [("files_id_1_n_1", [("files_id", 1), ("n", 1)], True, None, None)]),
    ]  # fmt: skip


def test_init_js_statements() -> None:
    script = _init_js()
    assert 'typeof dbName === "string" && dbName.length > 0 ? dbName : "aimon_session"' in script
    for plain in (
        "conversation_locks", "conversation_inbox", "conversation_inbox_quarantine", "idempotency_entries",
        "background_task", "session_records", "session_log_segments", "session_fences", "langgraph_checkpoints",
        "langgraph_threads", "langgraph_values.files", "langgraph_values.chunks",
    ):  # fmt: skip
        assert f'ensureCollection("{plain}");' in script
    assert 'ensureCollection("conversation_signals", { capped: true, size: 64 * 1024 * 1024 });' in script
    assert 'ensureCollection("scheduled_task_interrupts", { capped: true, size: 1024 * 1024 });' in script
    for statement in (
        'ensureIndex("conversation_inbox", { conversationId: 1, priority: 1, deliveredAt: 1 }, { name: "by_conv_priority_fifo" });',  # noqa: E501
        'ensureIndex("conversation_inbox_quarantine", { conversationId: 1, quarantinedAt: 1 }, { name: "by_conv_quarantined_at" });',  # noqa: E501
        'ensureIndex("idempotency_entries", { expiresAt: 1 }, { name: "ttl_expires_at", expireAfterSeconds: 0 });',
        'ensureIndex("idempotency_entries", { status: 1, lastTouchedAt: 1 }, { name: "by_status_touch" });',
        'ensureIndex("background_task", { state: 1 }, { name: "by_state" });',
        'ensureIndex("background_task", { contextId: 1 }, { name: "by_context" });',
        'ensureIndex("session_log_segments", { sessionId: 1 }, { name: "by_session" });',
        'ensureIndex("langgraph_checkpoints", { thread_id: 1, checkpoint_ns: 1, checkpoint_id: -1 }, { name: "by_thread_ns_checkpoint" });',  # noqa: E501
        'ensureIndex("langgraph_checkpoints", { thread_id: 1, checkpoint_ns: 1, "values.key": 1 }, { name: "by_thread_ns_value_key" });',  # noqa: E501
        'ensureIndex("langgraph_checkpoints", { run_id: 1 }, { name: "by_run_id", partialFilterExpression: { run_id: { $exists: true } } });',  # noqa: E501
        'ensureIndex("langgraph_threads", { expires_at: 1 }, { name: "by_expires_at" });',
        'ensureIndex("langgraph_threads", { purge_at: 1 }, { name: "ttl_purge_at", expireAfterSeconds: 0 });',
        'ensureIndex("langgraph_values.files", { "metadata.thread_id": 1 }, { name: "by_thread" });',
        'ensureIndex("langgraph_values.chunks", { files_id: 1, n: 1 }, { name: "files_id_1_n_1", unique: true });',
    ):  # fmt: skip
        assert statement in script
    assert script.count('ensureIndex("') == 14
    assert script.count('ensureCollection("') == 14


def test_init_js_uses_only_run_command_forms() -> None:
    script = _init_js()
    for helper in ("getCollectionNames(", "getIndexes(", ".createCollection(", ".createIndex(", ".find("):
        assert helper not in script
    assert "listCollections: 1" in script and "createIndexes: collection" in script
    assert "hello: 1" in script and "not a replica set" in script
