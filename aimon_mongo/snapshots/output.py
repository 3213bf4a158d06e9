"""Offset arithmetic of the task-output store (pure): UTF-16 offsets, windows over segments, ``OutputSlice``.

Offsets count **UTF-16 code units**, the unit of the reference's ``String.length()`` (documented there as
"characters, not bytes"): a character outside the Basic Multilingual Plane (an emoji, say) counts 2, every
other character 1. Segment names carry these offsets, so a task's output written by either build reads
the same in the other. Segments hold UTF-8 text.

Python strings index code points, so a window is cut on character boundaries: a window never splits a
surrogate pair. A window whose end falls inside a pair stops before it; a window whose start falls inside
one begins at the next character; and a window too small for its first character (``max_chars=1`` on an
emoji) returns that character whole, so a reader always makes progress.
"""

from __future__ import annotations

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model._base import Frozen

_BMP_LIMIT = 0xFFFF
DEFAULT_MAX_CHARS = 65536
"""What one ``read`` of task output returns at most, in UTF-16 code units, unless told otherwise."""


class OutputSlice(Frozen):
    """A window of a task's output.

    ``next_offset`` is where the next read continues; ``truncated_head`` is true when the window did not
    start at offset 0; ``has_more`` is true when output exists beyond ``next_offset``.
    """

    text: str
    next_offset: int
    truncated_head: bool
    has_more: bool

    @classmethod
    def empty(cls, offset: int) -> OutputSlice:
        """Nothing at ``offset`` (and nothing after it)."""
        return cls(text="", next_offset=offset, truncated_head=offset > 0, has_more=False)


def utf16_length(text: str) -> int:
    """The length of ``text`` in UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def encode_chunk(chunk: object) -> bytes:
    """A chunk of output as the UTF-8 bytes of a segment; refuses non-text and unpaired surrogates."""
    if not isinstance(chunk, str):
        raise InvalidArgumentError(f"output chunk must be a str, got {type(chunk).__name__}")
    try:
        return chunk.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgumentError(
            f"output chunk holds an unpaired surrogate at character {exc.start}; it cannot be stored as UTF-8"
        ) from None


def _width(ch: str) -> int:
    return 2 if ord(ch) > _BMP_LIMIT else 1


def utf16_window(text: str, offset: int, budget: int, force_first: bool) -> tuple[str, int, int, bool]:
    """The characters of ``text`` from UTF-16 ``offset``, at most ``budget`` units.

    Returns ``(piece, begin, end, blocked)``: ``piece`` covers units ``[begin, end)`` of ``text``;
    ``begin`` is ``offset`` moved past a half pair; ``blocked`` is true when a character that did not fit
    the budget stopped the window. ``force_first`` takes the first character even when it does not fit.
    """
    if utf16_length(text) == len(text):  # no pairs: units are characters
        begin = min(offset, len(text))
        piece = text[begin : begin + budget]
        return piece, begin, begin + len(piece), False
    units = 0
    index = 0
    while index < len(text) and units < offset:  # find the first character at or after the offset
        units += _width(text[index])
        index += 1
    begin = units
    used = 0
    stop = index
    blocked = False
    while stop < len(text):
        width = _width(text[stop])
        if used + width > budget and not (force_first and stop == index):
            blocked = True
            break
        used += width
        stop += 1
    return text[index:stop], begin, begin + used, blocked


class OutputWindow:
    """Accumulates one read window over consecutive segments (the reference's read loop, minus the I/O)."""

    def __init__(self, start: int, budget: int) -> None:
        self.start = start
        self.end = start + budget
        self.cursor = start
        self.blocked = False
        self._pieces: list[str] = []

    @property
    def full(self) -> bool:
        """True when nothing more fits."""
        return self.blocked or self.cursor >= self.end

    def skips(self, segment_end: int | None) -> bool:
        """True for a segment that ends at or before the cursor (it need not be read)."""
        return segment_end is not None and segment_end <= self.cursor

    def reaches(self, segment_start: int) -> bool:
        """True while the segment starting at ``segment_start`` can still contribute to the window."""
        return not self.full and segment_start < self.end

    def take(self, segment_start: int, text: str, segment_end: int | None) -> None:
        """Take what the window wants from one segment's text (``segment_end`` unknown for the last one).

        A segment shorter than the distance to the next one (an unreadable segment reads as ``""``) leaves
        a gap the cursor steps over.
        """
        self.cursor = max(self.cursor, segment_start)
        piece, _, end, blocked = utf16_window(
            text, self.cursor - segment_start, self.end - self.cursor, force_first=not self._pieces
        )
        if piece:
            self._pieces.append(piece)
        self.blocked = blocked
        self.cursor = max(self.cursor, segment_start + end)
        length = utf16_length(text)
        if segment_end is not None and not blocked and segment_start + end >= segment_start + length:
            self.cursor = max(self.cursor, segment_end)

    def slice(self, total: int) -> OutputSlice:
        """The result, given the total length of the output."""
        return OutputSlice(
            text="".join(self._pieces),
            next_offset=self.cursor,
            truncated_head=self.start > 0,
            has_more=self.cursor < total,
        )
