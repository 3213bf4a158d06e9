"""LangGraph checkpoint savers on aimon-mongo (extra ``langgraph``).

* :class:`AsyncAimonCheckpointSaver` / :class:`AimonCheckpointSaver` — MongoDB (native async on
  ``AsyncMongoClient``; the sync saver is generated from the async source).
* :class:`AsyncAimonMemoryCheckpointSaver` / :class:`AimonMemoryCheckpointSaver` — the same rules in
  memory, for unit tests.

See ``docs/langgraph.md``.
"""

from aimon_mongo.errors import StaleWriteOwnerError, ThreadExpiredError, WriteOwnershipError
from aimon_mongo.langgraph._async.memory import AsyncAimonMemoryCheckpointSaver
from aimon_mongo.langgraph._async.mongo import AsyncAimonCheckpointSaver
from aimon_mongo.langgraph._async.saver import AsyncCheckpointSaverBase, WriteOwnership
from aimon_mongo.langgraph._sync.memory import AimonMemoryCheckpointSaver
from aimon_mongo.langgraph._sync.mongo import AimonCheckpointSaver
from aimon_mongo.langgraph._sync.saver import CheckpointSaverBase
from aimon_mongo.langgraph.memory_store import CheckpointMemoryStore

__all__ = [
    "AimonCheckpointSaver",
    "AimonMemoryCheckpointSaver",
    "AsyncAimonCheckpointSaver",
    "AsyncAimonMemoryCheckpointSaver",
    "AsyncCheckpointSaverBase",
    "CheckpointMemoryStore",
    "CheckpointSaverBase",
    "StaleWriteOwnerError",
    "ThreadExpiredError",
    "WriteOwnership",
    "WriteOwnershipError",
]
