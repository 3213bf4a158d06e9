"""``SessionSnapshot``: a session's system prompt plus its seq-addressed log state, as one frozen value.

One model covers both stored formats. A version-1 document (a plain message list) reads as the state whose
entries are seqs ``0..n-1``, all ``CONVERSATION``, with an empty view state and no manifest; a version-2
document carries the whole state. ``format`` is the format the state must at least be written in, so a
state read from version 2 is never written back as version 1 ("sticky upgrade").

The state's invariants (the reference's C1.4) are checked on construction by :func:`log_state_problem`;
the codec checks them again before it writes (``model_copy(update=...)`` skips validation).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from enum import IntEnum, StrEnum
from typing import Annotated, Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from aimon_mongo import names as n
from aimon_mongo.model._base import Frozen, NonBlankStr
from aimon_mongo.model.submit_options import SubmitOptions
from aimon_mongo.model.user_input import UserInput
from aimon_mongo.snapshots.message import AS_TEXT, Message


class SessionLogFormat(IntEnum):
    """The stored format of a session log: the integer is the document's ``version``."""

    V1 = n.SNAP_FORMAT_V1
    V2 = n.SNAP_FORMAT_V2

    @property
    def wire_version(self) -> int:
        return int(self)

    def at_least(self, other: SessionLogFormat) -> SessionLogFormat:
        """The later of the two formats."""
        return self if self >= other else other


class LogOrigin(StrEnum):
    """Where an entry came from; memory ingest and history recall skip ``SYNTHETIC``, the view does not."""

    CONVERSATION = n.SNAP_ORIGIN_CONVERSATION
    SYNTHETIC = n.SNAP_ORIGIN_SYNTHETIC


class LogEntry(Frozen):
    """One entry of the log: the seq that addresses it (never reused), its origin and its message."""

    seq: int
    origin: Annotated[LogOrigin, AS_TEXT] = LogOrigin.CONVERSATION
    message: Message


class SeqRange(Frozen):
    """A non-empty half-open range ``[from_seq, to_seq)`` of seqs, ``from_seq >= 0``."""

    from_seq: int
    to_seq: int

    @model_validator(mode="after")
    def _valid(self) -> SeqRange:
        _check_range(self.from_seq, self.to_seq)
        return self

    def contains(self, seq: int) -> bool:
        return self.from_seq <= seq < self.to_seq

    def __str__(self) -> str:
        return f"[{self.from_seq}, {self.to_seq})"


class SummarySpan(Frozen):
    """The one range the view shows as a summary, with the boundary's metadata."""

    from_seq: int
    to_seq: int
    summary_text: str
    boundary_id: str
    trigger: str
    pre_token_count: int = 0
    messages_summarized: int = 0
    discovered_tool_names: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _valid(self) -> SummarySpan:
        _check_range(self.from_seq, self.to_seq)
        if self.pre_token_count < 0 or self.messages_summarized < 0:
            raise ValueError("preTokenCount and messagesSummarized cannot be negative")
        return self

    def contains(self, seq: int) -> bool:
        return self.from_seq <= seq < self.to_seq


class Elision(Frozen):
    """A tool result body the view replaces with ``placeholder``."""

    seq: int
    placeholder: str


class ViewState(Frozen):
    """What the LLM view leaves out of the log, kept beside it (never by rewriting entries).

    Normalised on construction like the reference: dropped ranges sorted and merged (touching ones too),
    and nothing inside the summary span kept as a separate range or elision; elisions sorted by seq, a
    later duplicate seq replacing an earlier one.
    """

    summary_span: SummarySpan | None = None
    dropped_ranges: tuple[SeqRange, ...] = ()
    elisions: tuple[Elision, ...] = ()

    @field_validator("dropped_ranges")
    @classmethod
    def _normal_ranges(cls, ranges: tuple[SeqRange, ...], info: ValidationInfo) -> tuple[SeqRange, ...]:
        span: SummarySpan | None = info.data.get("summary_span")
        kept = sorted(
            (r for r in ranges if span is None or r.from_seq < span.from_seq or r.to_seq > span.to_seq),
            key=lambda r: r.from_seq,
        )
        merged: list[SeqRange] = []
        for rng in kept:
            if merged and merged[-1].to_seq >= rng.from_seq:
                last = merged[-1]
                if rng.to_seq > last.to_seq:
                    merged[-1] = SeqRange(from_seq=last.from_seq, to_seq=rng.to_seq)
            else:
                merged.append(rng)
        return tuple(merged) if merged != list(ranges) else ranges

    @field_validator("elisions")
    @classmethod
    def _normal_elisions(cls, elisions: tuple[Elision, ...], info: ValidationInfo) -> tuple[Elision, ...]:
        span: SummarySpan | None = info.data.get("summary_span")
        by_seq = {e.seq: e for e in elisions if span is None or not span.contains(e.seq)}
        normal = tuple(by_seq[seq] for seq in sorted(by_seq))
        return elisions if normal == elisions else normal

    def is_empty(self) -> bool:
        """True when the view leaves nothing out."""
        return self.summary_span is None and not self.dropped_ranges and not self.elisions

    def is_dropped(self, seq: int) -> bool:
        return any(r.contains(seq) for r in self.dropped_ranges)

    def hides_range(self, from_seq: int, to_seq: int) -> bool:
        """True when no seq of ``[from_seq, to_seq)`` appears verbatim in the view (true when empty)."""
        cursor = from_seq
        while cursor < to_seq:
            covered = self._covered_until(cursor)
            if covered <= cursor:
                return False
            cursor = covered
        return True

    def lies_within(self, floor_seq: int, next_seq: int) -> bool:
        """True when every seq this view state points at lies in ``[floor_seq, next_seq]``."""
        span = self.summary_span
        if span is not None and (span.from_seq < floor_seq or span.to_seq > next_seq):
            return False
        if any(r.from_seq < floor_seq or r.to_seq > next_seq for r in self.dropped_ranges):
            return False
        return not self.elisions or (self.elisions[0].seq >= floor_seq and self.elisions[-1].seq < next_seq)

    def _covered_until(self, seq: int) -> int:
        span = self.summary_span
        if span is not None and span.contains(seq):
            return span.to_seq
        for rng in self.dropped_ranges:
            if rng.contains(seq):
                return rng.to_seq
        return seq


EMPTY_VIEW_STATE = ViewState()


class ManifestEntry(Frozen):
    """One sealed range: ``[from_seq, to_seq)`` lives in segment ``segment_id`` (payload ``content_hash``).

    ``entry_count`` may be smaller than the range (a rewind may have cut entries before sealing).
    """

    from_seq: int
    to_seq: int
    segment_id: str
    content_hash: str
    entry_count: int

    @model_validator(mode="after")
    def _valid(self) -> ManifestEntry:
        if self.from_seq < 0 or self.to_seq <= self.from_seq:
            raise ValueError(f"manifest range [{self.from_seq}, {self.to_seq}) is empty or negative")
        if self.entry_count <= 0 or self.entry_count > self.to_seq - self.from_seq:
            raise ValueError(f"entryCount {self.entry_count} does not fit range [{self.from_seq}, {self.to_seq})")
        return self

    def contains(self, seq: int) -> bool:
        return self.from_seq <= seq < self.to_seq

    @property
    def range_text(self) -> str:
        return f"[{self.from_seq}, {self.to_seq})"


class RewindPoint(Frozen):
    """Where the most recent, interrupted turn began (``seq``) and what it was submitted with."""

    seq: int
    user_input: UserInput
    submit_options: SubmitOptions = Field(default_factory=SubmitOptions.empty)


class SessionSnapshot(Frozen):
    """A transcript: session id, optional system prompt and the log state (see the module docstring).

    ``next_seq`` defaults to one past the last entry (or ``floor_seq`` when there are none).
    """

    session_id: NonBlankStr
    system_prompt: str | None = None
    next_seq: int
    floor_seq: int = 0
    entries: tuple[LogEntry, ...] = ()
    view_state: ViewState = EMPTY_VIEW_STATE
    manifest: tuple[ManifestEntry, ...] = ()
    rewind_point: RewindPoint | None = None
    format: SessionLogFormat = SessionLogFormat.V1

    @model_validator(mode="before")
    @classmethod
    def _default_next_seq(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("next_seq") is None:
            data = dict(data)
            entries = data.get("entries") or ()
            last = entries[-1] if entries else None
            if isinstance(last, LogEntry):
                data["next_seq"] = last.seq + 1
            elif isinstance(last, dict) and isinstance(last.get("seq"), int):
                data["next_seq"] = last["seq"] + 1
            else:
                data["next_seq"] = data.get("floor_seq") or 0
        return data

    @model_validator(mode="after")
    def _invariants(self) -> SessionSnapshot:
        problem = log_state_problem(self)
        if problem is not None:
            raise ValueError(problem)
        return self

    @classmethod
    def of_messages(
        cls,
        session_id: str,
        messages: Iterable[Message],
        *,
        system_prompt: str | None = None,
        rewind_point: RewindPoint | None = None,
    ) -> SessionSnapshot:
        """The version-1 shaped state of a plain message list: seqs ``0..n-1``, all ``CONVERSATION``.

        A rewind point's ``seq`` is then the number of messages before it.
        """
        entries = tuple(LogEntry(seq=i, message=m) for i, m in enumerate(messages))
        return cls(
            session_id=session_id,
            system_prompt=system_prompt,
            next_seq=len(entries),
            entries=entries,
            rewind_point=rewind_point,
        )

    @property
    def messages(self) -> tuple[Message, ...]:
        """The carried messages, in seq order."""
        return tuple(entry.message for entry in self.entries)

    @property
    def message_count(self) -> int:
        """How many messages the snapshot carries (sealed ones are not carried)."""
        return len(self.entries)

    def count_before(self, seq: int) -> int:
        """How many carried entries have a seq below ``seq``: the position ``seq`` maps to in ``messages``."""
        return bisect.bisect_left([entry.seq for entry in self.entries], seq)

    @property
    def rewind_message_count(self) -> int | None:
        """The rewind point as a position in ``messages`` (what version 1 stores), or ``None``."""
        return None if self.rewind_point is None else self.count_before(self.rewind_point.seq)


def _check_range(from_seq: int, to_seq: int) -> None:
    if from_seq < 0:
        raise ValueError(f"fromSeq cannot be negative, got: {from_seq}")
    if to_seq <= from_seq:
        raise ValueError(f"toSeq ({to_seq}) must be greater than fromSeq ({from_seq})")


def log_state_problem(snapshot: SessionSnapshot) -> str | None:
    """The first broken invariant of ``snapshot``'s log state, as the reference words it, or ``None``.

    Checked: ``0 <= floor_seq <= next_seq``; entry seqs in ``[floor_seq, next_seq)`` and strictly increasing;
    the rewind seq in ``[floor_seq, next_seq]``; a non-empty view state or manifest only in a version-2 state;
    the view state within ``[floor_seq, next_seq]``; manifest lines sorted, disjoint, within
    ``[floor_seq, next_seq)``, each hidden by the view state and with no rewind point strictly inside; no
    carried entry inside a sealed range.
    """
    floor, nxt = snapshot.floor_seq, snapshot.next_seq
    if floor < 0 or floor > nxt:
        return f"floorSeq must lie in [0, nextSeq], got floorSeq={floor}, nextSeq={nxt}"
    problem = _entries_problem(snapshot.entries, floor, nxt)
    if problem is not None:
        return problem
    point = snapshot.rewind_point
    if point is not None and not floor <= point.seq <= nxt:
        return f"rewindPoint seq {point.seq} lies outside [floorSeq={floor}, nextSeq={nxt}]"
    view = snapshot.view_state
    if not view.is_empty() and snapshot.format is not SessionLogFormat.V2:
        return f"a view state can only be carried by a version-2 log, got {snapshot.format.name}"
    if not view.lies_within(floor, nxt):
        return f"view state points outside [floorSeq={floor}, nextSeq={nxt}]"
    return _manifest_problem(snapshot)


def _entries_problem(entries: Sequence[LogEntry], floor: int, nxt: int) -> str | None:
    previous = -1
    for entry in entries:
        seq = entry.seq
        if seq < floor or seq >= nxt:
            return f"entry seq {seq} lies outside [floorSeq={floor}, nextSeq={nxt})"
        if seq <= previous:
            return f"entry seqs must strictly increase, got {seq} after {previous}"
        previous = seq
    return None


def _manifest_problem(snapshot: SessionSnapshot) -> str | None:
    manifest = snapshot.manifest
    if not manifest:
        return None
    if snapshot.format is not SessionLogFormat.V2:
        return f"a manifest can only be carried by a version-2 log, got {snapshot.format.name}"
    floor, nxt = snapshot.floor_seq, snapshot.next_seq
    point = snapshot.rewind_point
    previous_to = floor
    for line in manifest:
        if line.from_seq < previous_to or line.to_seq > nxt:
            return (
                f"manifest range {line.range_text} overlaps another or lies outside [floorSeq={floor}, nextSeq={nxt})"
            )
        if not snapshot.view_state.hides_range(line.from_seq, line.to_seq):
            return f"manifest range {line.range_text} is not hidden by the view state"
        if point is not None and line.from_seq < point.seq < line.to_seq:
            return f"rewindPoint seq {point.seq} lies inside the sealed range {line.range_text}"
        previous_to = line.to_seq
    starts = [line.from_seq for line in manifest]
    for entry in snapshot.entries:
        index = bisect.bisect_right(starts, entry.seq) - 1
        if index >= 0 and manifest[index].contains(entry.seq):
            return f"entry seq {entry.seq} lies in a sealed range; a sealed entry is not carried"
    return None
