"""LangGraph's own checkpointer conformance suite (langgraph-checkpoint-conformance, pinned) on the
in-memory saver and on the MongoDB saver (stand-in): every base and every extended capability passes."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import BASE_CAPABILITIES, EXTENDED_CAPABILITIES
from langgraph.checkpoint.conformance.report import CapabilityReport
from pymongo import AsyncMongoClient

from aimon_mongo.langgraph import AsyncAimonCheckpointSaver, AsyncAimonMemoryCheckpointSaver
from aimon_mongo.mongo import ensure_schema_async
from tests.fixtures.mongo import CLIENT_OPTIONS

# The suite's own check counts (0.0.2): put 17, put_writes 10, get_tuple 10, list 16, delete_thread 5;
# copy_thread 8, delete_for_runs 7, prune 8.
EXPECTED_CHECKS = {
    "put": 17,
    "put_writes": 10,
    "get_tuple": 10,
    "list": 16,
    "delete_thread": 5,
    "copy_thread": 8,
    "delete_for_runs": 7,
    "prune": 8,
}


def assert_full(report: CapabilityReport) -> None:
    report.print_report()
    for name, result in report.results.items():
        assert result.failures == [], f"{name}: {result.failures}"
    assert {c.value for c in BASE_CAPABILITIES | EXTENDED_CAPABILITIES} == set(report.results)
    for name, result in report.results.items():
        assert result.detected, f"{name} was not detected"
        assert result.passed is True, f"{name}: {result.failures}"
        assert (result.tests_passed, result.tests_failed) == (EXPECTED_CHECKS[name], 0), name
    assert report.passed_all_base()
    assert report.passed_all()
    assert report.conformance_level() == "FULL"


async def test_conformance_memory() -> None:
    @checkpointer_test(name="AsyncAimonMemoryCheckpointSaver")
    async def factory() -> AsyncIterator[AsyncAimonMemoryCheckpointSaver]:
        yield AsyncAimonMemoryCheckpointSaver()

    assert_full(await validate(factory))


async def test_conformance_mongodb(mongo_uri: str) -> None:
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(mongo_uri, **CLIENT_OPTIONS)
    names: list[str] = []

    @checkpointer_test(name="AsyncAimonCheckpointSaver")
    async def factory() -> AsyncIterator[AsyncAimonCheckpointSaver]:
        name = f"t_{uuid.uuid4().hex[:16]}"  # a fresh database per capability (the suite reuses thread ids)
        names.append(name)
        await ensure_schema_async(client[name])
        yield AsyncAimonCheckpointSaver(client[name])
        await client.drop_database(name)

    try:
        assert_full(await validate(factory))
    finally:
        for name in names:
            await client.drop_database(name)
        await client.close()
    assert len(names) == len(EXPECTED_CHECKS)


async def test_the_suite_fails_a_broken_saver() -> None:
    """The check above can fail: a saver that drops pending writes does not pass put_writes."""

    class DropsWrites(AsyncAimonMemoryCheckpointSaver):
        async def aput_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
            return None

    @checkpointer_test(name="DropsWrites")
    async def factory() -> AsyncIterator[DropsWrites]:
        yield DropsWrites()

    report = await validate(factory, capabilities={"put_writes"})
    assert report.results["put_writes"].passed is False
    assert not report.passed_all()
