"""``JsonTaskResultCodec``: ``task-result/<taskId>.json`` in the VFS, flat, no envelope.

Readers ignore unknown keys; an unknown ``completionReason`` reads as the coarse reason of ``success``.
"""

from __future__ import annotations

from typing import Final, Literal, NotRequired, TypedDict

from aimon_mongo import names
from aimon_mongo.model.idempotency import CompletionReason
from aimon_mongo.stored.declare import Family, body, root

FAMILY: Final = Family("task-result", names.TASKRES_FORMAT_VERSION)


@root("task-result.document", FAMILY)
@body
class TaskResultJson(TypedDict):
    version: Literal[1]
    success: bool
    finalAnswer: NotRequired[str]
    errorMessage: NotRequired[str]
    completionReason: CompletionReason
    iterationCount: int
    durationMillis: int
    totalTokens: int
    summaryTruncated: bool
