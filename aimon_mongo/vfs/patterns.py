"""Base-name glob of ``find`` (pure): the reference's sanitising, then ``*`` and ``?`` matching.

The pattern is matched against the **base name** of each file, never the path. Sanitising removes every
``/ \\ { } [ ]`` and collapses runs of ``*``; a pattern that sanitises to nothing matches nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from aimon_mongo.errors import InvalidArgumentError

REMOVED = "/\\{}[]"
"""The characters sanitising removes from a pattern."""
_REMOVED = str.maketrans("", "", REMOVED)
_STARS = re.compile(r"\*{2,}")


def sanitize(pattern: str) -> str:
    """The pattern with path and class/brace characters removed and ``**`` collapsed to ``*``."""
    if not isinstance(pattern, str):
        raise InvalidArgumentError(f"pattern must be a str, got {type(pattern).__name__}")
    return _STARS.sub("*", pattern.translate(_REMOVED))


@lru_cache(maxsize=256)
def _compile(sanitized: str) -> re.Pattern[str]:
    parts = ["." if ch == "?" else ".*" if ch == "*" else re.escape(ch) for ch in sanitized]
    return re.compile("".join(parts), re.DOTALL)


def matcher(pattern: str) -> re.Pattern[str] | None:
    """A compiled matcher for base names, or ``None`` when the pattern sanitises to nothing."""
    sanitized = sanitize(pattern)
    return _compile(sanitized) if sanitized else None


def matches(compiled: re.Pattern[str], name: str) -> bool:
    """Whether a base name matches a compiled pattern (whole-name match, case-sensitive)."""
    return compiled.fullmatch(name) is not None


def check_max_results(max_results: int | None) -> None:
    """Refuse ``max_results < 1`` the way the reference words it."""
    if max_results is not None and max_results < 1:
        raise InvalidArgumentError(f"maxResults must be >= 1, got: {max_results}")
