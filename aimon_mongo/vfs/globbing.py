"""Path globs with ripgrep-like include semantics (pure), as agent harnesses use them.

* A pattern without ``/`` matches the **base name** at any depth: ``*.py`` matches ``src/app/main.py``.
* A pattern with ``/`` matches the path relative to the search root; a leading ``/`` only anchors it
  there (``/*.py`` matches ``top.py``, not ``src/main.py``).
* ``*`` and ``?`` stay inside one segment; ``**`` as a whole segment spans any number of directories;
  ``[abc]``, ``[!abc]`` / ``[^abc]`` are character classes; ``{a,b}`` alternatives nest, and ``{1..3}``
  counts; ``\\`` escapes the next character.
* A wildcard never matches a leading ``.`` of a segment (write the ``.`` to match dot files), and
  ``**`` never descends into a dot directory, so ``*.yml`` finds ``.github/ci.yml`` while ``**/*.yml``
  does not.
* A ``..`` segment is refused.

:func:`compile_glob` also reports the literal directory prefix every match starts with, so a store
with an ordered name index (GridFS) scans only that range.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from aimon_mongo.errors import InvalidArgumentError

MAX_ALTERNATIVES = 1000
"""Brace expansion stops here: a larger expansion is refused rather than run."""

_META = frozenset("*?[\\")
_SEGMENT_START = r"(?!\.)"
_STAR_DIRS = r"(?:(?!\.)[^/]+/)*"
_STAR_TAIL = r"(?:(?!\.)[^/]*(?:/(?!\.)[^/]*)*)"
_RANGE = re.compile(r"^(-?\d+)\.\.(-?\d+)$")


class InvalidGlobError(InvalidArgumentError):
    """A glob pattern was refused (a ``..`` segment, too many brace alternatives, not a string)."""


@dataclass(frozen=True, slots=True)
class CompiledGlob:
    """A compiled pattern: match a search-root-relative path with :meth:`matches`."""

    pattern: str
    regex: re.Pattern[str]
    anchored: bool
    prefix: str
    """The literal directory prefix (ending in ``/``, or ``""``) of every path the pattern can match."""

    def matches(self, relative_path: str) -> bool:
        """Whether a ``/``-separated path relative to the search root is included."""
        target = relative_path if self.anchored else relative_path.rpartition("/")[2]
        return self.regex.fullmatch(target) is not None


def _closing_brace(pattern: str, start: int) -> tuple[int, list[int]] | None:
    """Index of the ``}`` closing the ``{`` at ``start`` and the top-level commas inside, if balanced."""
    depth = 0
    commas: list[int] = []
    i = start
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i, commas
        elif ch == "," and depth == 1:
            commas.append(i)
        i += 1
    return None


def _expand(pattern: str) -> list[str]:
    """Brace expansion, nested groups and integer ranges included; unbalanced braces stay literal."""
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            found = _closing_brace(pattern, i)
            if found is not None:
                end, commas = found
                body = pattern[i + 1 : end]
                head, tail = pattern[:i], pattern[end + 1 :]
                if commas:
                    bounds = [i, *commas, end]
                    options = [pattern[bounds[k] + 1 : bounds[k + 1]] for k in range(len(bounds) - 1)]
                elif (counted := _RANGE.match(body)) is not None:
                    first, last = int(counted.group(1)), int(counted.group(2))
                    if abs(last - first) >= MAX_ALTERNATIVES:
                        raise InvalidGlobError(
                            f"glob pattern {pattern!r} expands to more than {MAX_ALTERNATIVES} names"
                        )
                    step = 1 if last >= first else -1
                    options = [str(n) for n in range(first, last + step, step)]
                else:
                    i = end + 1
                    continue
                out: list[str] = []
                for tail_option in _expand(tail):
                    for option in options:
                        for expanded in _expand(head + option):
                            out.append(expanded + tail_option)
                            if len(out) > MAX_ALTERNATIVES:
                                raise InvalidGlobError(
                                    f"glob pattern {pattern!r} expands to more than {MAX_ALTERNATIVES} names"
                                )
                return out
        i += 1
    return [pattern]


def _class(segment: str, start: int) -> tuple[str, int] | None:
    """The regex of the character class opening at ``start`` and the index after it (``None``: not one)."""
    i = start + 1
    negate = i < len(segment) and segment[i] in "!^"
    if negate:
        i += 1
    body_start = i
    if i < len(segment) and segment[i] == "]":
        i += 1
    while i < len(segment) and segment[i] != "]":
        i += 2 if segment[i] == "\\" else 1
    if i >= len(segment):
        return None
    body = segment[body_start:i].replace("\\", "\\\\").replace("[", "\\[")
    return (f"[^/{body}]" if negate else f"(?!/)[{body}]"), i + 1


def _segment(segment: str) -> str:
    out = [] if segment.startswith(".") or segment.startswith("\\.") else [_SEGMENT_START]
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[" and (found := _class(segment, i)) is not None:
            out.append(found[0])
            i = found[1]
            continue
        elif ch == "\\" and i + 1 < len(segment):
            out.append(re.escape(segment[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def _translate(pattern: str) -> str:
    segments = pattern.split("/")
    out: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            out.append(_STAR_TAIL if last else _STAR_DIRS)
            continue
        out.append(_segment(segment))
        if not last:
            out.append("/")
    return "".join(out)


def _literal_prefix(pattern: str) -> list[str]:
    """The leading directory segments of an anchored pattern that hold no wildcard."""
    segments = pattern.split("/")[:-1]
    literal: list[str] = []
    for segment in segments:
        if not segment or any(ch in _META for ch in segment):
            break
        literal.append(segment)
    return literal


def _common(prefixes: list[list[str]]) -> str:
    shared = prefixes[0]
    for other in prefixes[1:]:
        length = 0
        while length < min(len(shared), len(other)) and shared[length] == other[length]:
            length += 1
        shared = shared[:length]
    return "".join(segment + "/" for segment in shared)


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> CompiledGlob:
    """Compile a pattern (see the module documentation); refuses ``..`` segments with :class:`InvalidGlobError`."""
    if not isinstance(pattern, str):
        raise InvalidGlobError(f"glob pattern must be a str, got {type(pattern).__name__}")
    if ".." in pattern.replace("\\", "/").split("/"):
        raise InvalidGlobError(f"path traversal is not allowed in glob pattern {pattern!r}")
    anchored = "/" in pattern
    alternatives = [option.lstrip("/") if anchored else option for option in _expand(pattern)]
    regex = re.compile("|".join(f"(?:{_translate(option)})" for option in alternatives), re.DOTALL)
    prefix = _common([_literal_prefix(option) for option in alternatives]) if anchored else ""
    return CompiledGlob(pattern, regex, anchored, prefix)
