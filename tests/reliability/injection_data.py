"""Hostile ids for the injection tests: strings that mean something to one of the stores' query
languages (MongoDB operators and regexes, SQL quotes and LIKE wildcards, Redis glob patterns and key
separators, paths), and values that are not strings at all.

Every string in ``HOSTILE`` is a valid id: it must be stored literally, as itself, and never select or
touch another id. Several are prefixes or pattern-matches of each other on purpose (``a``, ``a*``, ``ab``,
``a.b``, ``a%``, ``a_`` ...), so a prefix, pattern or regex interpretation anywhere would show up as
another id's data read or written. ``REFUSED`` must be refused with :class:`InvalidArgumentError`.
"""

from __future__ import annotations

from typing import Any

HOSTILE: list[str] = [
    "a",
    "ab",
    "a*",
    "a?",
    "a.b",
    "a%",
    "a_",
    "a[a]",
    "[a]",
    "a.*",
    ".*",
    "^a",
    "a$",
    "a|b",
    "$ne",
    "$where",
    "$$NOW",
    '{"$gt": ""}',
    "'; DROP TABLE conversation_inbox; --",
    "a'--",
    '"; FLUSHALL; "',
    "%",
    "_",
    "*",
    "?",
    "a:NOW",
    "a:quarantine",
    "a/b",
    "../a",
    "a\\",
    "a b",
    "é",
]
"""Valid ids, each stored as itself."""

REFUSED: list[Any] = [{"$ne": None}, {"$gt": ""}, {"$where": "1 == 1"}, {"$regex": ".*"}, "a\x00b", ["a"], b"a"]
"""Not ids: refused naming the argument, before anything is sent."""

VFS_NAMES: list[str] = [name for name in HOSTILE if "\\" not in name and "/" not in name]
"""The hostile ids that are also valid single path segments (no separator)."""
