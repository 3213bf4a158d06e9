"""Deeply nested JSON values for the oversized-input tests (built iteratively: no recursion here)."""

from __future__ import annotations

from typing import Any

DEEP = 10_000


def nest(depth: int, leaf: Any = "leaf") -> Any:
    """``{"a": {"a": ... leaf}}`` with ``depth`` objects."""
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def nested_json(depth: int) -> str:
    """The JSON text of :func:`nest` (``{"a":`` ``depth`` times), without encoding recursively."""
    return '{"a":' * depth + '"leaf"' + "}" * depth
