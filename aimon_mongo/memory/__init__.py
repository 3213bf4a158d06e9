"""In-memory backend: the executable specification of the session-state contracts.

One :class:`MemoryStorage` plays the database (share it between bundles to simulate nodes); it is
thread-safe and asyncio-safe (one lock, never held across an ``await``), so one storage may serve threads
and an event loop at once. Expiry is lazy and follows the storage's injectable clock.
"""

from typing import TYPE_CHECKING

from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo.memory._async.backends import AsyncMemorySessionBackends
    from aimon_mongo.memory._sync.backends import MemorySessionBackends
    from aimon_mongo.memory.storage import MemoryStorage

__all__ = ["AsyncMemorySessionBackends", "MemorySessionBackends", "MemoryStorage"]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "AsyncMemorySessionBackends": "aimon_mongo.memory._async.backends",
            "MemorySessionBackends": "aimon_mongo.memory._sync.backends",
            "MemoryStorage": "aimon_mongo.memory.storage",
        },
    )
