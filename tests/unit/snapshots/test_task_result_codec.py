"""``JsonTaskResultCodec`` (fact sheet B.8): the flat document, its tolerance and its refusals."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from snapshot_strategies import json_values

from aimon_mongo.errors import CodecError, TaskResultCodecError
from aimon_mongo.model import CompletionReason
from aimon_mongo.snapshots import JsonTaskResultCodec, TaskResult

CODEC = JsonTaskResultCodec()
KEYS = [
    "version",
    "success",
    "finalAnswer",
    "errorMessage",
    "completionReason",
    "iterationCount",
    "durationMillis",
    "totalTokens",
    "summaryTruncated",
]


def test_full_result_golden() -> None:
    result = TaskResult(
        success=True,
        final_answer="Done: 3 files changed",
        completion_reason=CompletionReason.MAX_ITERATIONS,
        iteration_count=12,
        duration_millis=98_765_432_101,
        total_tokens=45_000,
        summary_truncated=True,
    )
    doc = (
        '{"version":1,"success":true,"finalAnswer":"Done: 3 files changed",'
        '"completionReason":"MAX_ITERATIONS","iterationCount":12,"durationMillis":98765432101,"totalTokens":45000,"summaryTruncated":true}'
    )
    assert CODEC.encode(result) == doc
    assert CODEC.decode(doc) == result


def test_failed_result_golden() -> None:
    result = TaskResult(success=False, error_message="boom", completion_reason=CompletionReason.ERROR)
    doc = (
        '{"version":1,"success":false,"errorMessage":"boom","completionReason":"ERROR","iterationCount":0,'
        '"durationMillis":0,"totalTokens":0,"summaryTruncated":false}'
    )
    assert CODEC.encode(result) == doc
    assert CODEC.decode(doc) == result


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (
            '{"version":1,"success":true}',
            TaskResult(success=True, completion_reason=CompletionReason.COMPLETED),
        ),
        ('{"version":1}', TaskResult(success=False, completion_reason=CompletionReason.ERROR)),
        (
            '{"version":1,"success":true,"completionReason":"TELEPORTED"}',
            TaskResult(success=True, completion_reason=CompletionReason.COMPLETED),
        ),
        (
            '{"version":1,"success":false,"completionReason":"TELEPORTED"}',
            TaskResult(success=False, completion_reason=CompletionReason.ERROR),
        ),
        (
            '{"version":1,"success":false,"completionReason":{"name":"ABORTED"}}',
            TaskResult(success=False, completion_reason=CompletionReason.ERROR),
        ),
        (
            '{"version":1,"success":true,"completionReason":"INTERRUPTED","futureKey":[1],"finalAnswer":null}',
            TaskResult(success=True, completion_reason=CompletionReason.INTERRUPTED),
        ),
        (
            '{"version":"1","success":"true","finalAnswer":42,"iterationCount":"7","durationMillis":1.9,'
            '"totalTokens":true,"summaryTruncated":1}',
            TaskResult(
                success=True,
                final_answer="42",
                completion_reason=CompletionReason.COMPLETED,
                iteration_count=7,
                duration_millis=1,
                total_tokens=1,
                summary_truncated=True,
            ),
        ),
        (
            '{"version":1,"success":true,"finalAnswer":{"text":"x"},"errorMessage":["e"]}',
            TaskResult(success=True, completion_reason=CompletionReason.COMPLETED),
        ),
    ],
    ids=[
        "absent-reason-success",
        "everything-absent",
        "unknown-reason-success",
        "unknown-reason-failure",
        "reason-not-text",
        "unknown-keys",
        "lenient-scalars",
        "container-texts-absent",
    ],
)
def test_tolerated(doc: str, expected: TaskResult) -> None:
    assert CODEC.decode(doc) == expected


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ('{"version":2,"success":true}', "Unsupported task result format version: 2 (expected 1)"),
        ('{"success":true}', "Unsupported task result format version: -1 (expected 1)"),
        ('{"version":"one"}', "Unsupported task result format version: -1 (expected 1)"),
        ("[1]", "Encoded task result is not a JSON object"),
        ("", "Encoded task result is not a JSON object"),
        (
            '{"version":1,',
            "Failed to decode task result: not valid JSON (Expecting property name enclosed in "
            "double quotes at position 13)",
        ),
    ],
)
def test_refused(doc: str, message: str) -> None:
    with pytest.raises(TaskResultCodecError) as info:
        CODEC.decode(doc)
    assert str(info.value) == message
    assert isinstance(info.value, CodecError)


def test_numbers_too_long_to_convert_read_as_absent() -> None:
    doc = '{"version":1,"success":true,"iterationCount":"' + "9" * 5000 + '"}'
    assert CODEC.decode(doc).iteration_count == 0


@settings(deadline=None)
@given(
    json_values
    | st.fixed_dictionaries({"version": st.just(1) | json_values}, optional=dict.fromkeys(KEYS[1:], json_values))
)
def test_fuzzed_documents_decode_or_refuse(value: object) -> None:
    try:
        result = CODEC.decode(json.dumps(value))
    except TaskResultCodecError:
        return
    assert isinstance(result, TaskResult)
    assert CODEC.decode(CODEC.encode(result)) == result
