"""Directory listing over a sorted namespace of stored names (pure).

A bucket is a sorted set of names: files (``docs/a.txt``) and directory markers (``docs/``). A directory's
entries are the names under its prefix. :class:`SkipScan` lists the **immediate children** of a directory
with one ordered seek per child: after a file child it continues just past that name; after a
subdirectory child ``docs/sub/`` it jumps to :func:`~aimon_mongo.vfs.paths.successor` of the
subdirectory's prefix, skipping the whole subtree. On an ordered index that is one index seek per child,
however many descendants there are.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from aimon_mongo.vfs.paths import SEPARATOR, successor


@dataclass(frozen=True, slots=True)
class Child:
    """One immediate child of a listed directory (its VFS path, no trailing ``/``)."""

    path: str
    is_dir: bool


@dataclass(frozen=True, slots=True)
class Seek:
    """Where the next seek starts: the first name ``> lower`` (``>= lower`` when inclusive), ``< upper``."""

    lower: str
    inclusive: bool
    upper: str | None


class SkipScan:
    """Immediate children of the directory with stored prefix ``prefix`` (``""`` = root), in name order."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._seek: Seek | None = Seek(prefix, True, successor(prefix) if prefix else None)
        self._seen: set[str] = set()
        self.found = False
        """Whether any name was found under the prefix (the directory exists), its own marker included."""

    @property
    def next_seek(self) -> Seek | None:
        """The next seek to run, or ``None`` when the listing is complete."""
        return self._seek

    def advance(self, name: str | None) -> Child | None:
        """Feed the name the last seek found (``None``: nothing more); return the child it reveals, if new."""
        seek = self._seek
        if seek is None:
            raise RuntimeError("SkipScan is complete")
        if name is None:
            self._seek = None
            return None
        self.found = True
        if name == self._prefix:  # the directory's own marker: continue just past it
            self._seek = Seek(name, False, seek.upper)
            return None
        rest = name[len(self._prefix) :]
        slash = rest.find(SEPARATOR)
        child: Child | None
        if slash < 0:
            self._seek = Seek(name, False, seek.upper)
            child = Child(self._prefix + rest, False)
        else:
            segment = rest[:slash]
            self._seek = Seek(successor(self._prefix + segment + SEPARATOR), True, seek.upper)
            # A name such as "docs//x" has an empty segment: no addressable child, its subtree is skipped.
            child = Child(self._prefix + segment, True) if segment else None
        if child is None or child.path in self._seen:
            return None
        self._seen.add(child.path)
        return child


def children_of(prefix: str, sorted_names: Iterable[str]) -> list[Child]:
    """The immediate children revealed by an ordered sequence of names under ``prefix`` (reference scan)."""
    out: dict[str, Child] = {}
    for name in sorted_names:
        if name == prefix or not name.startswith(prefix):
            continue
        rest = name[len(prefix) :]
        segment, slash, _ = rest.partition(SEPARATOR)
        if segment and segment not in out:
            out[prefix + segment] = Child(prefix + segment, bool(slash))
    return list(out.values())


def directory_count(prefix: str, names: Iterable[str]) -> int:
    """Distinct directories strictly below ``prefix``: markers and implied directories alike."""
    directories: set[str] = set()
    for name in names:
        rest = name[len(prefix) :]
        end = rest.find(SEPARATOR)
        while end >= 0:
            if end > 0 and rest[end - 1] != SEPARATOR:
                directories.add(rest[:end])
            end = rest.find(SEPARATOR, end + 1)
    return len(directories)


def is_marker_name(name: str) -> bool:
    """Whether a stored name has the directory-marker shape (ends in ``/``)."""
    return name.endswith(SEPARATOR)
