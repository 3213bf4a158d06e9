"""Directory listing over a sorted namespace of stored names (pure).

A bucket is a sorted set of names: files (``docs/a.txt``) and directory markers (``docs/``). A directory's
entries are the names under its prefix. :class:`RangeScan` lists the **immediate children** of a
directory in pages read in name order: it reads on through the directory's own files (growing pages, so
a flat directory of 10,000 files is a handful of reads) and re-seeks only where a subdirectory starts,
jumping to :func:`~aimon_mongo.vfs.paths.successor` of the subdirectory's prefix so its whole subtree is
skipped. A deep tree costs one read per subdirectory child, however many descendants there are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from aimon_mongo.vfs.paths import SEPARATOR, successor


@dataclass(frozen=True, slots=True)
class Child:
    """One immediate child of a listed directory (its VFS path, no trailing ``/``)."""

    path: str
    is_dir: bool


@dataclass(frozen=True, slots=True)
class Seek:
    """Where the next read starts: names ``> lower`` (``>= lower`` when inclusive) and ``< upper``."""

    lower: str
    inclusive: bool
    upper: str | None


R = TypeVar("R")

FIRST_PAGE = 8
"""Rows asked for by the first read."""
AFTER_SUBDIRECTORY = 1
"""Rows asked for by a read that starts where a subdirectory's subtree ends (a seek, as a skip-scan does)."""
GROWTH = 8
"""A read that ended among the directory's own files is followed by one this many times larger."""
MAX_PAGE = 8192
"""The largest read (names and file metadata: far below a 16 MiB reply)."""


@dataclass(frozen=True, slots=True)
class Entry(Generic[R]):
    """One immediate child with the rows of the page that revealed it.

    For a file child: every row of that name (all its revisions), ``complete`` unless the name had more
    rows than the largest page (or the scan was told not to keep every revision: then any one row).
    For a subdirectory: the first row under it (its smallest, oldest name).
    """

    child: Child
    rows: tuple[R, ...]
    complete: bool = True


class RangeScan(Generic[R]):
    """Immediate children of the directory with stored prefix ``prefix`` (``""`` = root), read in pages.

    Each read (:attr:`next_seek`, at most :attr:`limit` rows in name order) continues where the last
    page ended, so a flat directory streams in a few growing pages. A page ending inside a subdirectory's
    subtree is not read on: the next read starts at :func:`~aimon_mongo.vfs.paths.successor` of the
    subdirectory's prefix with a one-row page, so a deep tree costs one read per subdirectory child,
    however many descendants it has (on an ordered index, one seek each).

    With ``every_revision`` (for ``ls_info``) a file child comes with all its rows, so the newest revision
    can be picked; a page that ends inside a file's rows is read again from that file. Without it
    (``ls``, names only) any one row of a file is enough.
    """

    def __init__(
        self,
        prefix: str,
        name_of: Callable[[R], str],
        *,
        every_revision: bool = True,
        first_page: int = FIRST_PAGE,
        max_page: int = MAX_PAGE,
    ) -> None:
        self._prefix = prefix
        self._every_revision = every_revision
        self._first_page = first_page
        self._max_page = max_page
        self._name_of = name_of
        self._upper = successor(prefix) if prefix else None
        self._seek: Seek | None = Seek(prefix, True, self._upper)
        self.limit = first_page
        """How many rows the next read asks for."""
        self._seen: set[str] = set()
        self.found = False
        """Whether any name was found under the prefix (the directory exists), its own marker included."""

    @property
    def next_seek(self) -> Seek | None:
        """The next read to run, or ``None`` when the listing is complete."""
        return self._seek

    def feed(self, rows: Sequence[R]) -> list[Entry[R]]:
        """Feed the rows the last read returned (in name order); return the new children they reveal."""
        if self._seek is None:
            raise RuntimeError("RangeScan is complete")
        full = len(rows) >= self.limit
        prefix = self._prefix
        entries: list[Entry[R]] = []
        skip_below: str | None = None  # inside a subdirectory's subtree: names below this are skipped
        group: list[R] = []  # the rows of the file name being read
        group_name: str | None = None

        def close_group(complete: bool = True) -> None:
            if group_name is not None:
                self._emit(entries, Child(group_name, False), tuple(group), complete)

        last = ""
        for row in rows:
            name = self._name_of(row)
            last = name
            self.found = True
            if skip_below is not None and name < skip_below:
                continue
            skip_below = None
            if name == group_name:
                group.append(row)
                continue
            close_group()
            group, group_name = [], None
            if name == prefix:  # the directory's own marker
                continue
            rest = name[len(prefix) :]
            slash = rest.find(SEPARATOR)
            if slash < 0:
                group, group_name = [row], name
                continue
            segment = rest[:slash]
            skip_below = successor(prefix + segment + SEPARATOR)
            # A name such as "docs//x" has an empty segment: no addressable child, its subtree is skipped.
            if segment:
                self._emit(entries, Child(prefix + segment, True), (row,), True)
        if not full:
            close_group()
            self._seek = None
        elif skip_below is not None:
            self._seek = Seek(skip_below, True, self._upper)
            self.limit = AFTER_SUBDIRECTORY
        elif (
            group_name is not None and self._every_revision and (len(group) < len(rows) or self.limit < self._max_page)
        ):
            # The file's revisions may go on in the next page: read it again from its first row.
            self._seek = Seek(group_name, True, self._upper)
            self.limit = min(self.limit * GROWTH, self._max_page)
        else:
            close_group(complete=group_name is None or not self._every_revision)
            self._seek = Seek(last, False, self._upper)
            self.limit = min(self.limit * GROWTH, self._max_page)
        return entries

    def _emit(self, entries: list[Entry[R]], child: Child, rows: tuple[R, ...], complete: bool) -> None:
        if child.path not in self._seen:
            self._seen.add(child.path)
            entries.append(Entry(child, rows, complete))


def children_of(prefix: str, sorted_names: Iterable[str]) -> list[Child]:
    """The immediate children revealed by an ordered sequence of names under ``prefix`` (reference scan)."""
    out: dict[str, Child] = {}
    for name in sorted_names:
        if name == prefix or not name.startswith(prefix):
            continue
        rest = name[len(prefix) :]
        segment, slash, _ = rest.partition(SEPARATOR)
        path = prefix + segment
        if segment and path not in out:  # a legacy bucket's file "x" and directory "x/": the first (the file)
            out[path] = Child(path, bool(slash))
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
