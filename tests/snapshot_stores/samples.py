"""Snapshots and fault-injecting filesystems for the store tests."""

from __future__ import annotations

import functools
import inspect
from typing import Any

from aimon_mongo.errors import BackendConnectionError
from aimon_mongo.snapshots import JsonSessionSnapshotCodec, Message, Role, SessionSnapshot

CODEC = JsonSessionSnapshotCodec()
# Text that must never reach a log line.
SECRET = "PAYLOAD-SECRET-7c1e"

V2_DOC = (
    '{"version":2,"conversationId":"sess-v2","systemPrompt":null,"nextSeq":9,"floorSeq":2,"entries":['
    '{"seq":6,"origin":"SYNTHETIC","message":{"role":"USER","content":[{"type":"text","text":"reminder"}]}},'
    '{"seq":7,"origin":"CONVERSATION","message":{"role":"USER","content":[{"type":"text","text":"go on"}]}},'
    '{"seq":8,"origin":"CONVERSATION","message":{"role":"ASSISTANT","content":[{"type":"text","text":"ok"}]}}],'
    '"viewState":{"summarySpan":{"fromSeq":2,"toSeq":6,"summaryText":"earlier","boundaryId":"b-1",'
    '"trigger":"AUTO","preTokenCount":10,"messagesSummarized":4,"discoveredToolNames":[]},'
    '"droppedRanges":[],"elisions":[]}}'
)


def transcript(tag: str, count: int = 3) -> SessionSnapshot:
    """A version-1 shaped transcript whose messages carry ``tag`` (and the secret marker)."""
    messages = [
        Message.text(Role.USER if i % 2 == 0 else Role.ASSISTANT, f"{tag} message {i} {SECRET}") for i in range(count)
    ]
    return SessionSnapshot.of_messages(f"session-{tag}", messages, system_prompt=f"prompt {tag}")


def v2_transcript() -> SessionSnapshot:
    return CODEC.decode(V2_DOC)


class Failing:
    """A real filesystem whose named operations raise ``error`` instead (sync or async, as the target is).

    ``fail`` may be changed at any time; ``calls`` counts the failed calls per operation.
    """

    def __init__(self, target: Any, fail: set[str], error: Exception | None = None) -> None:
        self._target = target
        self.fail = fail
        self.error = error or BackendConnectionError("Failed to connect to backend: TEST")
        self.calls: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._target, name)
        if name not in self.fail:
            return attribute

        def count() -> None:
            self.calls[name] = self.calls.get(name, 0) + 1

        if inspect.iscoroutinefunction(attribute):

            @functools.wraps(attribute)
            async def failing_async(*args: Any, **kwargs: Any) -> Any:
                count()
                raise self.error

            return failing_async

        @functools.wraps(attribute)
        def failing(*args: Any, **kwargs: Any) -> Any:
            count()
            raise self.error

        return failing
