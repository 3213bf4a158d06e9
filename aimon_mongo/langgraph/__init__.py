"""LangGraph checkpoint savers on aimon-mongo (extra ``langgraph``).

* :class:`AsyncAimonCheckpointSaver` / :class:`AimonCheckpointSaver` — MongoDB (native async on
  ``AsyncMongoClient``; the sync saver is generated from the async source).
* :class:`AsyncAimonMemoryCheckpointSaver` / :class:`AimonMemoryCheckpointSaver` — the same rules in
  memory, for unit tests.

See ``docs/langgraph.md``.
"""

from typing import TYPE_CHECKING

from aimon_mongo._extras import require_extra
from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo._async.langgraph.memory import AsyncAimonMemoryCheckpointSaver
    from aimon_mongo._async.langgraph.mongo import AsyncAimonCheckpointSaver
    from aimon_mongo._async.langgraph.saver import AsyncCheckpointSaverBase, WriteOwnership
    from aimon_mongo._sync.langgraph.memory import AimonMemoryCheckpointSaver
    from aimon_mongo._sync.langgraph.mongo import AimonCheckpointSaver
    from aimon_mongo._sync.langgraph.saver import CheckpointSaverBase
    from aimon_mongo.errors import StaleWriteOwnerError, ThreadExpiredError, WriteOwnershipError
    from aimon_mongo.langgraph.memory_store import CheckpointMemoryStore

require_extra("aimon_mongo.langgraph", "langgraph", "langchain_core", "langgraph.checkpoint.base")

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

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "AimonCheckpointSaver": "aimon_mongo._sync.langgraph.mongo",
            "AimonMemoryCheckpointSaver": "aimon_mongo._sync.langgraph.memory",
            "AsyncAimonCheckpointSaver": "aimon_mongo._async.langgraph.mongo",
            "AsyncAimonMemoryCheckpointSaver": "aimon_mongo._async.langgraph.memory",
            "AsyncCheckpointSaverBase": "aimon_mongo._async.langgraph.saver",
            "CheckpointMemoryStore": "aimon_mongo.langgraph.memory_store",
            "CheckpointSaverBase": "aimon_mongo._sync.langgraph.saver",
            "StaleWriteOwnerError": "aimon_mongo.errors",
            "ThreadExpiredError": "aimon_mongo.errors",
            "WriteOwnership": "aimon_mongo._async.langgraph.saver",
            "WriteOwnershipError": "aimon_mongo.errors",
        },
    )
