"""Lazy public names for a package ``__init__`` (PEP 562), so that importing a package costs nothing.

A package lists its public names with the module each comes from; the module is imported on first access
of the name, and the value is then kept on the package (later accesses are plain attribute reads)::

    if TYPE_CHECKING:  # what mypy and IDEs read
        from aimon_mongo._async.mongo.backends import AsyncMongoSessionBackends
    __all__ = ["AsyncMongoSessionBackends"]
    if not TYPE_CHECKING:
        __getattr__, __dir__ = lazy_exports(
            __name__, {"AsyncMongoSessionBackends": "aimon_mongo._async.mongo.backends"}
        )

A source ``"module:attribute"`` exports ``attribute`` of ``module`` under another name (``ensure_schema_async``).
The names and their sources are tested against the ``TYPE_CHECKING`` block (``tests/unit/test_lean_imports.py``).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_exports(package: str, sources: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package``, which exports each name of ``sources``
    from its module (``"module"`` or ``"module:attribute"``), imported on first access."""
    table = dict(sources)

    def __getattr__(name: str) -> object:
        source = table.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = source.partition(":")
        value = getattr(importlib.import_module(module), attribute or name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__
