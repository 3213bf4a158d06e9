"""``JsonTaskResultCodec``: a background task's result as the reference's flat JSON document.

Shape (keys in write order; ``finalAnswer``/``errorMessage`` only when set)::

    {"version":1, "success", "finalAnswer"?, "errorMessage"?, "completionReason", "iterationCount",
     "durationMillis", "totalTokens", "summaryTruncated"}

Unknown keys are ignored; a version other than 1 is refused; an unknown or absent ``completionReason``
reads as ``COMPLETED`` for a success and ``ERROR`` otherwise (it is metadata beside the answer, so a
newer node's reason name must not make the answer unreadable); missing numbers read 0, missing flags
false. Scalars are read leniently, as the reference's Jackson reads them.
"""

from __future__ import annotations

from typing import Any

from aimon_mongo import names as n
from aimon_mongo.errors import InvalidArgumentError, TaskResultCodecError
from aimon_mongo.model._base import Frozen
from aimon_mongo.model.idempotency import CompletionReason
from aimon_mongo.snapshots import _json as j

FORMAT_VERSION = n.TASKRES_FORMAT_VERSION

_REASONS = {reason.value: reason for reason in CompletionReason}


class TaskResult(Frozen):
    """What a finished background task produced."""

    success: bool
    final_answer: str | None = None
    error_message: str | None = None
    completion_reason: CompletionReason
    iteration_count: int = 0
    duration_millis: int = 0
    total_tokens: int = 0
    summary_truncated: bool = False


class JsonTaskResultCodec:
    """Encode and decode task results (stateless, thread-safe)."""

    def encode(self, result: TaskResult) -> str:
        """The compact JSON document of ``result``."""
        if not isinstance(result, TaskResult):
            raise InvalidArgumentError(f"expected a TaskResult, got {type(result).__name__}")
        root: dict[str, Any] = {n.TASKRES_VERSION: FORMAT_VERSION, n.TASKRES_SUCCESS: result.success}
        if result.final_answer is not None:
            root[n.TASKRES_FINAL_ANSWER] = result.final_answer
        if result.error_message is not None:
            root[n.TASKRES_ERROR_MESSAGE] = result.error_message
        root[n.TASKRES_COMPLETION_REASON] = result.completion_reason.value
        root[n.TASKRES_ITERATION_COUNT] = result.iteration_count
        root[n.TASKRES_DURATION_MILLIS] = result.duration_millis
        root[n.TASKRES_TOTAL_TOKENS] = result.total_tokens
        root[n.TASKRES_SUMMARY_TRUNCATED] = result.summary_truncated
        return j.dumps(root)

    def decode(self, text: str) -> TaskResult:
        """Read a stored task result; refuses with :class:`TaskResultCodecError`."""
        if not isinstance(text, str):
            raise TaskResultCodecError(f"Encoded task result must be text, got {type(text).__name__}")
        try:
            return _decode(j.loads(text))
        except TaskResultCodecError:
            raise
        except j.MalformedError as exc:
            raise TaskResultCodecError(f"Failed to decode task result: {exc}") from None
        except Exception as exc:  # the reference wraps anything else; the message names only the kind
            raise TaskResultCodecError(f"Failed to decode task result: {type(exc).__name__}") from None


def _decode(root: object) -> TaskResult:
    if not isinstance(root, dict):
        raise TaskResultCodecError("Encoded task result is not a JSON object")
    version = j.as_int(root.get(n.TASKRES_VERSION), -1)
    if version != FORMAT_VERSION:
        raise TaskResultCodecError(f"Unsupported task result format version: {version} (expected {FORMAT_VERSION})")
    success = j.as_bool(root.get(n.TASKRES_SUCCESS), False)
    reason_name = _optional_scalar_text(root, n.TASKRES_COMPLETION_REASON)
    reason = _REASONS.get(reason_name) if reason_name is not None else None
    return TaskResult(
        success=success,
        final_answer=_optional_scalar_text(root, n.TASKRES_FINAL_ANSWER),
        error_message=_optional_scalar_text(root, n.TASKRES_ERROR_MESSAGE),
        completion_reason=reason if reason is not None else CompletionReason.coarse(success),
        iteration_count=j.as_int(root.get(n.TASKRES_ITERATION_COUNT), 0),
        duration_millis=j.as_int(root.get(n.TASKRES_DURATION_MILLIS), 0),
        total_tokens=j.as_int(root.get(n.TASKRES_TOTAL_TOKENS), 0),
        summary_truncated=j.as_bool(root.get(n.TASKRES_SUMMARY_TRUNCATED), False),
    )


def _optional_scalar_text(root: dict[str, Any], key: str) -> str | None:
    """The reference's ``optionalText``: a scalar as text; absent, null or a container → ``None``."""
    value = root.get(key)
    return j.as_text(value) if j.is_scalar(value) else None
