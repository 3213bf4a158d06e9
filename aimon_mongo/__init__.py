"""aimon-mongo: shared state of multi-node AI-agent sessions, MongoDB first.

``open_backends(url, *, node_id, **options)`` / ``open_async_backends(...)`` open the session bundle of the
backend a URL names (``memory://``, ``mongodb://``, ``redis://``, ``postgresql://`` ...; see
:mod:`aimon_mongo.opening`). They are loaded on first use, so ``import aimon_mongo`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["__version__", "open_async_backends", "open_backends"]

if TYPE_CHECKING:
    from aimon_mongo.opening import open_async_backends, open_backends

_LAZY = {"open_backends": "aimon_mongo.opening", "open_async_backends": "aimon_mongo.opening"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'aimon_mongo' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
