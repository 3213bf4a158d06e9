"""Value types shared by every backend (pydantic v2, frozen, snake_case attributes)."""

from aimon_mongo.model.batch import ClaimedBatch, CollectedBatch, SessionPage, UnreadableEntry
from aimon_mongo.model.idempotency import (
    CompletionReason,
    IdempotencyEntry,
    IdempotencyStatus,
    PutOutcome,
    PutResult,
    TurnResult,
)
from aimon_mongo.model.inbound import InboundMessage
from aimon_mongo.model.lease import Lease
from aimon_mongo.model.principal import Principal, PrincipalType
from aimon_mongo.model.priority import Priority
from aimon_mongo.model.signal import SessionSignal, SignalKind
from aimon_mongo.model.submit_options import LlmCallMetadata, SubmitOptions
from aimon_mongo.model.task import TERMINAL_STATES, BackgroundTask, TaskQuery, TaskState
from aimon_mongo.model.user_input import (
    MAX_NESTING,
    AudioInput,
    FileInput,
    ImageInput,
    MultimodalInput,
    TextInput,
    UserInput,
)

__all__ = [
    "MAX_NESTING",
    "TERMINAL_STATES",
    "AudioInput",
    "BackgroundTask",
    "ClaimedBatch",
    "CollectedBatch",
    "CompletionReason",
    "FileInput",
    "IdempotencyEntry",
    "IdempotencyStatus",
    "ImageInput",
    "InboundMessage",
    "Lease",
    "LlmCallMetadata",
    "MultimodalInput",
    "Principal",
    "PrincipalType",
    "Priority",
    "PutOutcome",
    "PutResult",
    "SessionPage",
    "SessionSignal",
    "SignalKind",
    "SubmitOptions",
    "TaskQuery",
    "TaskState",
    "TextInput",
    "TurnResult",
    "UnreadableEntry",
    "UserInput",
]
