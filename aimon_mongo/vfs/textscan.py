"""Line windows and literal search over streamed file content (pure; both flavours feed them chunks).

:class:`LineCollector` cuts decoded text into lines exactly as :meth:`str.splitlines` does (``\\n``,
``\\r\\n``, ``\\r`` and the other Unicode line boundaries; line ends kept), keeping only the requested
window, and stops as soon as the window is complete and it is known whether more lines follow.

:class:`GrepScanner` finds a literal in the ``\\n``-separated lines of each file, numbering lines from 1,
within a budget of scanned bytes and a cap on matches. A file holding a NUL byte or bytes that are not
UTF-8 is binary: its matches are dropped (ripgrep's default), so matches of a file become final only
when the file ends.
"""

from __future__ import annotations

import codecs
from typing import Literal

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model.vfs import GrepMatch, GrepResult, LineWindow

DEFAULT_GREP_MAX_BYTES = 64 * 1024 * 1024
"""Bytes a :meth:`grep` reads at most unless told otherwise (``None``: no cap)."""


def _check_count(name: str, value: int | None, *, minimum: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgumentError(f"{name} must be None or an int >= {minimum}, got {value!r}")
    return value


class LineCollector:
    """The lines ``[offset, offset + limit)`` of a text fed in pieces (``limit=None``: to the end)."""

    def __init__(self, offset: int = 0, limit: int | None = None) -> None:
        checked = _check_count("offset", offset, minimum=0)
        self._offset = 0 if checked is None else checked
        self._limit = _check_count("limit", limit, minimum=0)
        self._pending = ""
        self._index = 0
        self._lines: list[str] = []
        self._more = False
        self._eof = False

    @property
    def done(self) -> bool:
        """Whether the window is complete and whether more lines follow is known (no more input needed)."""
        return self._eof or self._more

    def _take(self, line: str) -> None:
        if self._limit is not None and len(self._lines) >= self._limit and self._index >= self._offset:
            self._more = True
            return
        if self._index >= self._offset:
            self._lines.append(line)
        self._index += 1

    def feed(self, text: str) -> None:
        """Add the next piece of decoded text."""
        if self.done or not text:
            return
        pieces = (self._pending + text).splitlines(keepends=True)
        last = pieces.pop()
        for piece in pieces:
            self._take(piece)
            if self._more:
                return
        # The last piece is complete only if it ends a line and is not a "\r" that a "\n" may follow.
        if last.splitlines() != [last] and not last.endswith("\r"):
            self._pending = ""
            self._take(last)
        else:
            self._pending = last
            if self._limit is not None and len(self._lines) >= self._limit and self._index >= self._offset:
                self._more = True  # the window is full and a further (partial) line has begun

    def finish(self) -> None:
        """The input ended: the pending partial line (if any) is the last line."""
        if self.done:
            return
        if self._pending:
            self._take(self._pending)
            self._pending = ""
        if not self._more:
            self._eof = True

    def window(self) -> LineWindow:
        """The collected window; ``total_lines`` is known only when the input was read to its end."""
        return LineWindow(
            lines=self._lines,
            offset=self._offset,
            total_lines=self._index if self._eof else None,
            has_more=self._more,
        )


TruncationReason = Literal["max_count", "max_bytes"]


class GrepScanner:
    """Literal search over files fed chunk by chunk; see the module documentation."""

    def __init__(self, literal: str, max_count: int | None = None, max_bytes: int | None = DEFAULT_GREP_MAX_BYTES):
        if not isinstance(literal, str):
            raise InvalidArgumentError(f"grep pattern must be a str, got {type(literal).__name__}")
        self._needle = literal.encode("utf-8")
        self._max_count = _check_count("max_count", max_count, minimum=0)
        self._max_bytes = _check_count("max_bytes", max_bytes, minimum=0)
        self._matches: list[GrepMatch] = []
        self._reason: TruncationReason | None = None
        self._bytes = 0
        self._files = 0
        self._path = ""
        self._file_matches: list[GrepMatch] = []
        self._pending = b""
        self._line = 0
        self._binary = False
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")

    @property
    def stopped(self) -> bool:
        """Whether the search is over (a cap was reached); feed nothing more."""
        return self._reason is not None

    def admits(self, size: int) -> bool:
        """Whether ``size`` more bytes fit the budget; when not, the search stops as truncated."""
        if self._max_bytes is not None and self._bytes + size > self._max_bytes:
            self._reason = "max_bytes"
            return False
        return True

    def start_file(self, path: str) -> None:
        """Begin a file (the previous one must have been ended)."""
        self._path = path
        self._file_matches = []
        self._pending = b""
        self._line = 0
        self._binary = False
        self._decoder.reset()
        self._files += 1

    def whole_file(self, path: str, content: bytes) -> None:
        """A whole file at once (call :meth:`admits` first): as :meth:`start_file`, :meth:`feed` and
        :meth:`end_file`, without looking at the lines of a file that does not hold the literal at all."""
        if self._needle and self._needle not in content:
            self._files += 1  # no match whatever the file is (text or binary): nothing else to record
            self._bytes += len(content)
            return
        self.start_file(path)
        self.feed(content)
        self.end_file()

    def _scan(self, lines: bytes) -> None:
        """Search ``\n``-separated complete lines (``lines`` holds no trailing ``\n``)."""
        if self._needle not in lines:
            self._line += lines.count(b"\n") + 1
            return
        for raw in lines.split(b"\n"):
            self._line += 1
            if self._needle in raw:
                self._file_matches.append(
                    GrepMatch(path=self._path, line=self._line, text=raw.decode("utf-8", "replace"))
                )

    def feed(self, chunk: bytes) -> None:
        """The next bytes of the current file (call :meth:`admits` first)."""
        self._bytes += len(chunk)
        if self._binary or not chunk:
            return
        try:
            self._decoder.decode(chunk)
        except UnicodeDecodeError:
            self._binary = True
            return
        if b"\x00" in chunk:
            self._binary = True
            return
        data = self._pending + chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            self._pending = data
            return
        self._pending = data[cut + 1 :]
        self._scan(data[:cut])

    def end_file(self, complete: bool = True) -> None:
        """The current file ended (``complete=False``: the search stopped inside it, or it vanished); its
        matches become final unless it turned out binary."""
        if complete and not self._binary:
            try:
                self._decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                self._binary = True
        if not self._binary:
            if complete:
                self._scan(self._pending)  # the last line (empty when the file ends with "\n")
            self._matches.extend(self._file_matches)
        self._file_matches = []
        self._pending = b""
        if self._max_count is not None and len(self._matches) > self._max_count:
            del self._matches[self._max_count :]
            self._reason = "max_count"

    def result(self) -> GrepResult:
        """What was found; ``truncated`` says a cap stopped the search early and why."""
        return GrepResult(
            matches=self._matches,
            truncated=self._reason is not None,
            truncation_reason=self._reason,
            files_searched=self._files,
            bytes_searched=self._bytes,
        )
