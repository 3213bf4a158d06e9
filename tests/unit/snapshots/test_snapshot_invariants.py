"""The version-2 log state invariants (fact sheet C1.4): each one refused on decode as
"Inconsistent session log: ...", refused by the model on construction, and refused by the encoder."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from aimon_mongo.errors import SnapshotCodecError
from aimon_mongo.model import TextInput
from aimon_mongo.snapshots import (
    JsonSessionSnapshotCodec,
    LogEntry,
    ManifestEntry,
    Message,
    RewindPoint,
    Role,
    SeqRange,
    SessionLogFormat,
    SessionSnapshot,
    SummarySpan,
    ViewState,
)


def _entry(seq: int) -> dict[str, Any]:
    return {"seq": seq, "origin": "CONVERSATION", "message": {"role": "USER", "content": []}}


def _base() -> dict[str, Any]:
    """floor 1, next 10, entries 5 6 7, span [1,4) sealed into one segment, rewind at 7."""
    return {
        "version": 2,
        "conversationId": "s",
        "systemPrompt": None,
        "nextSeq": 10,
        "floorSeq": 1,
        "entries": [_entry(5), _entry(6), _entry(7)],
        "viewState": {
            "summarySpan": {
                "fromSeq": 1,
                "toSeq": 4,
                "summaryText": "t",
                "boundaryId": "b",
                "trigger": "AUTO",
            },
            "droppedRanges": [],
            "elisions": [],
        },
        "manifest": [{"fromSeq": 1, "toSeq": 4, "segmentId": "g1", "contentHash": "sha256:0", "entryCount": 2}],
        "rewindPoint": {"seq": 7, "userInput": {"type": "text", "text": "x"}},
    }


def _line(from_seq: int, to_seq: int, count: int = 1, segment: str = "g") -> dict[str, Any]:
    return {
        "fromSeq": from_seq,
        "toSeq": to_seq,
        "segmentId": segment,
        "contentHash": "h",
        "entryCount": count,
    }


def _with(**changes: Any) -> str:
    doc = _base()
    for key, value in changes.items():
        if key == "span":
            doc["viewState"]["summarySpan"].update(value)
        elif key in ("droppedRanges", "elisions"):
            doc["viewState"][key] = value
        elif key == "rewind_seq":
            doc["rewindPoint"]["seq"] = value
        else:
            doc[key] = value
    return json.dumps(doc)


INCONSISTENT = [
    # 0 <= floorSeq <= nextSeq
    (
        "floor-above-next",
        _with(floorSeq=11, entries=[], manifest=[], viewState=None, rewindPoint=None),
        "floorSeq must lie in [0, nextSeq], got floorSeq=11, nextSeq=10",
    ),
    (
        "floor-negative",
        _with(floorSeq=-1, entries=[], manifest=[], viewState=None, rewindPoint=None),
        "floorSeq must lie in [0, nextSeq], got floorSeq=-1, nextSeq=10",
    ),
    # entries within [floorSeq, nextSeq)
    (
        "entry-at-next",
        _with(entries=[_entry(5), _entry(10)]),
        "entry seq 10 lies outside [floorSeq=1, nextSeq=10)",
    ),
    (
        "entry-below-floor",
        _with(floorSeq=5, entries=[_entry(4)], manifest=[], viewState=None),
        "entry seq 4 lies outside [floorSeq=5, nextSeq=10)",
    ),
    # entries strictly ascending
    (
        "entries-duplicate",
        _with(entries=[_entry(5), _entry(5)]),
        "entry seqs must strictly increase, got 5 after 5",
    ),
    (
        "entries-descending",
        _with(entries=[_entry(6), _entry(5)]),
        "entry seqs must strictly increase, got 5 after 6",
    ),
    # view state within [floorSeq, nextSeq]
    ("span-past-next", _with(span={"toSeq": 11}), "view state points outside [floorSeq=1, nextSeq=10]"),
    (
        "dropped-below-floor",
        _with(floorSeq=2, span={"fromSeq": 2}, manifest=[], droppedRanges=[{"fromSeq": 1, "toSeq": 2}]),
        "view state points outside [floorSeq=2, nextSeq=10]",
    ),
    (
        "elision-at-next",
        _with(elisions=[{"seq": 10, "placeholder": "p"}]),
        "view state points outside [floorSeq=1, nextSeq=10]",
    ),
    # manifest lines sorted, disjoint and within [floorSeq, nextSeq)
    (
        "manifest-overlap",
        _with(droppedRanges=[{"fromSeq": 4, "toSeq": 5}], manifest=[_line(1, 4, 2), _line(3, 5)]),
        "manifest range [3, 5) overlaps another or lies outside [floorSeq=1, nextSeq=10)",
    ),
    (
        "manifest-unsorted",
        _with(droppedRanges=[{"fromSeq": 8, "toSeq": 9}], manifest=[_line(8, 9), _line(1, 4, 2)]),
        "manifest range [1, 4) overlaps another or lies outside [floorSeq=1, nextSeq=10)",
    ),
    (
        "manifest-past-next",
        _with(nextSeq=10, droppedRanges=[{"fromSeq": 8, "toSeq": 10}], manifest=[_line(1, 4, 2), _line(8, 11)]),
        "manifest range [8, 11) overlaps another or lies outside [floorSeq=1, nextSeq=10)",
    ),
    (
        "manifest-below-floor",
        _with(floorSeq=2, span={"fromSeq": 2}, manifest=[_line(1, 4, 2)]),
        "manifest range [1, 4) overlaps another or lies outside [floorSeq=2, nextSeq=10)",
    ),
    # no carried entry inside a sealed range
    (
        "entry-in-sealed-range",
        _with(entries=[_entry(2), _entry(5)]),
        "entry seq 2 lies in a sealed range; a sealed entry is not carried",
    ),
    # every manifest line hidden by the view state
    (
        "manifest-not-hidden",
        _with(manifest=[_line(1, 4, 2), _line(8, 9)]),
        "manifest range [8, 9) is not hidden by the view state",
    ),
    (
        "manifest-half-hidden",
        _with(manifest=[_line(1, 5, 2)]),
        "manifest range [1, 5) is not hidden by the view state",
    ),
    # no rewind point strictly inside a sealed range
    ("rewind-inside-sealed", _with(rewind_seq=2), "rewindPoint seq 2 lies inside the sealed range [1, 4)"),
    # manifest line bounds and count
    ("manifest-line-empty", _with(manifest=[_line(3, 3)]), "manifest range [3, 3) is empty or negative"),
    ("manifest-line-negative", _with(manifest=[_line(-1, 3)]), "manifest range [-1, 3) is empty or negative"),
    ("manifest-count-zero", _with(manifest=[_line(1, 4, 0)]), "entryCount 0 does not fit range [1, 4)"),
    ("manifest-count-too-big", _with(manifest=[_line(1, 4, 4)]), "entryCount 4 does not fit range [1, 4)"),
    # ranges and the span are non-empty, non-negative
    (
        "dropped-range-empty",
        _with(droppedRanges=[{"fromSeq": 8, "toSeq": 8}]),
        "toSeq (8) must be greater than fromSeq (8)",
    ),
    (
        "dropped-range-negative",
        _with(droppedRanges=[{"fromSeq": -2, "toSeq": 8}]),
        "fromSeq cannot be negative, got: -2",
    ),
    ("span-empty", _with(span={"toSeq": 1}), "toSeq (1) must be greater than fromSeq (1)"),
    (
        "span-negative-count",
        _with(span={"preTokenCount": -5}),
        "preTokenCount and messagesSummarized cannot be negative",
    ),
]


@pytest.mark.parametrize(("doc", "reason"), [c[1:] for c in INCONSISTENT], ids=[c[0] for c in INCONSISTENT])
def test_decode_refuses_an_inconsistent_log(doc: str, reason: str) -> None:
    with pytest.raises(SnapshotCodecError) as info:
        JsonSessionSnapshotCodec().decode(doc)
    assert str(info.value) == f"Inconsistent session log: {reason}"


def test_the_base_document_is_consistent() -> None:
    snapshot = JsonSessionSnapshotCodec().decode(json.dumps(_base()))
    assert [e.seq for e in snapshot.entries] == [5, 6, 7]


@pytest.mark.parametrize("seq", [1, 4, 10], ids=["at-sealed-start", "at-sealed-end", "at-next-seq"])
def test_rewind_point_on_a_sealed_boundary_or_at_next_seq_is_allowed(seq: int) -> None:
    snapshot = JsonSessionSnapshotCodec().decode(_with(rewind_seq=seq))
    assert snapshot.rewind_point is not None and snapshot.rewind_point.seq == seq


def test_a_manifest_line_hidden_by_span_and_dropped_range_together_is_allowed() -> None:
    doc = _with(droppedRanges=[{"fromSeq": 4, "toSeq": 5}], manifest=[_line(1, 5, 3)])
    assert JsonSessionSnapshotCodec().decode(doc).manifest[0].to_seq == 5


# --- the model refuses the same states; the encoder refuses them when validation was skipped ---------

_MSG = Message(role=Role.USER)


def _state(**fields: Any) -> dict[str, Any]:
    return {"session_id": "s", "next_seq": 10, "format": SessionLogFormat.V2} | fields


MODEL_CASES = [
    (
        "view-state-needs-v2",
        _state(format=SessionLogFormat.V1, view_state=ViewState(dropped_ranges=(SeqRange(from_seq=1, to_seq=2),))),
        "a view state can only be carried by a version-2 log, got V1",
    ),
    (
        "manifest-needs-v2",
        _state(
            format=SessionLogFormat.V1,
            manifest=(ManifestEntry(from_seq=0, to_seq=1, segment_id="g", content_hash="h", entry_count=1),),
        ),
        "a manifest can only be carried by a version-2 log, got V1",
    ),
    (
        "rewind-outside",
        _state(rewind_point=RewindPoint(seq=11, user_input=TextInput(text="x"))),
        "rewindPoint seq 11 lies outside [floorSeq=0, nextSeq=10]",
    ),
    (
        "entries-unsorted",
        _state(entries=(LogEntry(seq=3, message=_MSG), LogEntry(seq=2, message=_MSG))),
        "entry seqs must strictly increase, got 2 after 3",
    ),
    (
        "floor-above-next",
        _state(floor_seq=11),
        "floorSeq must lie in [0, nextSeq], got floorSeq=11, nextSeq=10",
    ),
]


@pytest.mark.parametrize(("fields", "reason"), [c[1:] for c in MODEL_CASES], ids=[c[0] for c in MODEL_CASES])
def test_model_refuses_and_encoder_refuses_an_unvalidated_copy(fields: dict[str, Any], reason: str) -> None:
    with pytest.raises(ValidationError, match=reason.replace("[", r"\[")):
        SessionSnapshot(**fields)
    valid = SessionSnapshot(session_id="s", next_seq=10, format=SessionLogFormat.V2)
    broken = valid.model_copy(update={k: v for k, v in fields.items() if k != "session_id"})
    for write_format in SessionLogFormat:
        with pytest.raises(SnapshotCodecError) as info:
            JsonSessionSnapshotCodec(write_format).encode(broken)
        assert str(info.value) == f"Inconsistent session log: {reason}"


def test_component_models_refuse_their_own_bounds() -> None:
    with pytest.raises(ValidationError, match="toSeq \\(3\\) must be greater than fromSeq \\(3\\)"):
        SeqRange(from_seq=3, to_seq=3)
    with pytest.raises(ValidationError, match="cannot be negative"):
        SummarySpan(from_seq=0, to_seq=1, summary_text="", boundary_id="b", trigger="t", messages_summarized=-1)
    with pytest.raises(ValidationError, match="entryCount 3 does not fit range \\[0, 2\\)"):
        ManifestEntry(from_seq=0, to_seq=2, segment_id="g", content_hash="h", entry_count=3)
