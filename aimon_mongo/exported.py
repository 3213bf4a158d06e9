"""Public names carry the path users import them from.

A class or factory written in a private module (``aimon_mongo/_async/mongo/leases.py``, a generated
``_sync`` twin) and re-exported by its package (``aimon_mongo.mongo``) is marked ``@exported_from(
"aimon_mongo.mongo")`` where it is defined: its ``__module__`` becomes that package, so its ``repr``, its
``help()``, tracebacks' type names and pickling name the import path users write, never a private one.
Marking the definition (rather than the package ``__init__``) keeps it true however the package loads its
names (eagerly or on first access). ``tests/unit/test_public_paths.py`` checks both directions: every
re-export of a public package names that package, and every marked name is importable from the package it
names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def exported_from(package: str) -> Callable[[T], T]:
    """A decorator setting ``__module__`` of a class or function to ``package`` (its public home)."""

    def mark(public: T) -> T:
        public.__module__ = package
        return public

    return mark
