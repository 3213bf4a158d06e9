"""Decoding a driver's raw results one by one, skipping the unreadable (shared by both flavours)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from aimon_mongo.errors import CodecError

R = TypeVar("R")
T = TypeVar("T")


def readable(
    found: Iterable[tuple[object, R]], decode: Callable[[R], T], what: str, log: logging.Logger
) -> Iterator[T]:
    """Each ``(id, raw)`` of ``found`` decoded on its own; one that cannot be decoded is logged at WARN on
    ``log`` naming ``what`` and its id (never its content) and skipped, so one damaged record never hides
    the others."""
    for ident, raw in found:
        try:
            yield decode(raw)
        except CodecError as exc:
            log.warning("unreadable %s %r skipped: %s", what, ident, exc)
