"""deepagents on the aimon-mongo VFS: agent files in GridFS (or a local directory, or memory).

``pip install aimon-mongo[deepagents]``::

    from deepagents import create_deep_agent
    from aimon_mongo.deepagents import AimonBackend
    from aimon_mongo.vfs import AsyncGridFSFileSystem

    fs = AsyncGridFSFileSystem.from_uri("mongodb://host/")
    agent = create_deep_agent(model=..., backend=AimonBackend(fs))
    await agent.ainvoke({"messages": [...]}, config={"configurable": {"thread_id": "t-1"}})

:class:`AimonBackend` implements deepagents' ``BackendProtocol`` over any VFS. Each thread's files live
under their own root (default ``deepagents/<thread_id>``, resolved from the run's config at call time);
see ``docs/deepagents.md``.
"""

from typing import TYPE_CHECKING

from aimon_mongo._extras import require_extra
from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo.deepagents.backend import AimonBackend
    from aimon_mongo.deepagents.roots import DEFAULT_ROOT, Root, RootFactory, resolve_root

require_extra("aimon_mongo.deepagents", "deepagents", "deepagents", "deepagents.backends.protocol")

__all__ = ["DEFAULT_ROOT", "AimonBackend", "Root", "RootFactory", "resolve_root"]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "AimonBackend": "aimon_mongo.deepagents.backend",
            "DEFAULT_ROOT": "aimon_mongo.deepagents.roots",
            "Root": "aimon_mongo.deepagents.roots",
            "RootFactory": "aimon_mongo.deepagents.roots",
            "resolve_root": "aimon_mongo.deepagents.roots",
        },
    )
