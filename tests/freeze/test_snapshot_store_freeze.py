"""Freeze: the bytes the stores write and where they write them, against hard-coded literals.

Nodes of the reference build read these objects: the envelope's keys and their order, the compact
spelling, the embedded (not stringified) snapshot, the object paths and the segment names.
"""

from __future__ import annotations

import json

from aimon_mongo.model import CompletionReason
from aimon_mongo.schema_gate import assert_conforms
from aimon_mongo.snapshots import (
    Message,
    Role,
    SessionSnapshot,
    TaskResult,
    VfsSessionSnapshotStore,
    VfsTaskOutputStore,
    VfsTaskResultStore,
)
from aimon_mongo.vfs import MemoryFileSystem

SNAPSHOT = SessionSnapshot.of_messages(
    "sess-1", [Message.text(Role.USER, 'Hi "there" — ok'), Message.text(Role.ASSISTANT, "Hello")], system_prompt=None
)
DOC = (
    '{"version":1,"conversationId":"sess-1","systemPrompt":null,"messages":['
    '{"role":"USER","content":[{"type":"text","text":"Hi \\"there\\" — ok"}]},'
    '{"role":"ASSISTANT","content":[{"type":"text","text":"Hello"}]}]}'
)
TAGGED = '{"v":1,"subagentName":"reviewer","contextId":"agent:reviewer:2","snapshot":' + DOC + "}"
UNTAGGED = '{"v":1,"subagentName":"reviewer","snapshot":' + DOC + "}"


def _fs() -> MemoryFileSystem:
    fs = MemoryFileSystem()
    fs.initialize()
    return fs


def test_the_stored_envelope_bytes() -> None:
    fs = _fs()
    store = VfsSessionSnapshotStore(fs)
    store.save("task-9", "reviewer", "agent:reviewer:2", SNAPSHOT)
    store.save("task-10", "reviewer", None, SNAPSHOT)
    assert fs.read("task-snapshot/task-9.json") == TAGGED.encode("utf-8")
    assert fs.read("task-snapshot/task-10.json") == UNTAGGED.encode("utf-8")
    assert fs.ls_recursive(".") == ["task-snapshot/task-10.json", "task-snapshot/task-9.json"]


def test_the_envelope_keys_in_order_and_the_embedded_object() -> None:
    assert list(json.loads(TAGGED)) == ["v", "subagentName", "contextId", "snapshot"]
    assert list(json.loads(UNTAGGED)) == ["v", "subagentName", "snapshot"]
    assert isinstance(json.loads(TAGGED)["snapshot"], dict)
    assert_conforms("snapshot.envelope", TAGGED)
    assert_conforms("snapshot.envelope", UNTAGGED)


def test_a_reference_written_envelope_loads() -> None:
    fs = _fs()
    fs.write("task-snapshot/task-9.json", TAGGED)
    session = VfsSessionSnapshotStore(fs).load("task-9")
    assert session is not None
    assert (session.subagent_name, session.agent_runtime_id, session.snapshot) == (
        "reviewer",
        "agent:reviewer:2",
        SNAPSHOT,
    )


def test_the_task_result_object() -> None:
    fs = _fs()
    result = TaskResult(success=True, final_answer="42", completion_reason=CompletionReason.COMPLETED)
    VfsTaskResultStore(fs).save("task-9", result)
    assert fs.read("task-result/task-9.json") == (
        b'{"version":1,"success":true,"finalAnswer":"42","completionReason":"COMPLETED","iterationCount":0,'
        b'"durationMillis":0,"totalTokens":0,"summaryTruncated":false}'
    )


def test_the_task_output_segment_names() -> None:
    fs = _fs()
    store = VfsTaskOutputStore(fs)
    store.append("task-9", "0123456789")
    store.append("task-9", "x")
    assert fs.ls_recursive(".") == [
        "task-output/task-9/00000000000000000000.seg",
        "task-output/task-9/00000000000000000010.seg",
    ]
    assert fs.read("task-output/task-9/00000000000000000010.seg") == b"x"
