"""The task-result store on every backend: the codec's flat document at ``task-result/<task_id>.json``."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model import CompletionReason
from aimon_mongo.snapshots import TaskResult
from tests.snapshot_stores.conftest import raw
from tests.snapshot_stores.samples import Failing

RESULT = TaskResult(
    success=True,
    final_answer="done: ünïcode",
    completion_reason=CompletionReason.COMPLETED,
    iteration_count=3,
    duration_millis=1234,
    total_tokens=999,
)


async def test_save_load_evict(make_store: Any) -> None:
    store, fs = await make_store("result")
    await store.save("t-1", RESULT)
    assert await fs.ls("task-result") == ["task-result/t-1.json"]
    assert await store.load("t-1") == RESULT
    failed = TaskResult(success=False, error_message="boom", completion_reason=CompletionReason.ERROR)
    await store.save("t-1", failed)
    assert await store.load("t-1") == failed
    await store.evict("t-1")
    assert await store.load("t-1") is None
    await store.evict("t-1")


async def test_unreadable_results_load_as_none_with_a_warning(
    make_store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    store, fs = await make_store("result")
    await fs.write("task-result/t-1.json", '{"version":2,"success":true}')
    await fs.write("task-result/t-2.json", "garbage")
    with caplog.at_level(logging.WARNING):
        assert await store.load("t-1") is None
        assert await store.load("t-2") is None
        assert await store.load("t-3") is None
    messages = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert messages == [
        "Failed to load task result for task t-1: TaskResultCodecError: "
        "Unsupported task result format version: 2 (expected 1)",
        messages[1],
    ]
    assert messages[1].startswith("Failed to load task result for task t-2: TaskResultCodecError: ")


async def test_backend_failures_never_escape(make_store: Any, caplog: pytest.LogCaptureFixture) -> None:
    _, fs = await make_store("result")
    store, _ = await make_store("result", fs=Failing(raw(fs), {"write", "read", "delete"}))
    with caplog.at_level(logging.WARNING):
        await store.save("t-1", RESULT)
        assert await store.load("t-1") is None
        await store.evict("t-1")
    assert [r.getMessage().split(":")[0] for r in caplog.records if r.levelno >= logging.WARNING] == [
        "Failed to save task result for task t-1",
        "Failed to load task result for task t-1",
    ]
    assert "ünïcode" not in caplog.text


async def test_bad_arguments_raise(make_store: Any) -> None:
    store, fs = await make_store("result")
    with pytest.raises(InvalidArgumentError, match="task id"):
        await store.save("../escape", RESULT)
    with pytest.raises(InvalidArgumentError, match="result must be a TaskResult"):
        await store.save("t-1", {"success": True})
    assert await fs.ls_recursive(".") == []
