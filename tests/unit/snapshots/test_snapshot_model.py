"""The ``SessionSnapshot`` model: one model for both formats, accessors, view-state normalisation, and the
codec's choice of format."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from aimon_mongo.errors import InvalidArgumentError, SnapshotCodecError
from aimon_mongo.model import TextInput
from aimon_mongo.snapshots import (
    Elision,
    ImageBlock,
    JsonSessionSnapshotCodec,
    LogEntry,
    LogOrigin,
    Message,
    RewindPoint,
    Role,
    SeqRange,
    SessionLogFormat,
    SessionSnapshot,
    SummarySpan,
    ToolUse,
    ViewState,
)

HI = Message.text(Role.USER, "hi")
YO = Message.text(Role.ASSISTANT, "yo")


def _span(from_seq: int, to_seq: int) -> SummarySpan:
    return SummarySpan(from_seq=from_seq, to_seq=to_seq, summary_text="s", boundary_id="b", trigger="AUTO")


def test_log_format_at_least_is_the_later_format() -> None:
    assert SessionLogFormat.V1.at_least(SessionLogFormat.V2) is SessionLogFormat.V2
    assert SessionLogFormat.V2.at_least(SessionLogFormat.V1) is SessionLogFormat.V2
    assert SessionLogFormat.V1.at_least(SessionLogFormat.V1) is SessionLogFormat.V1
    assert SessionLogFormat.V2.wire_version == 2


def test_of_messages_is_the_version_1_shaped_state() -> None:
    point = RewindPoint(seq=1, user_input=TextInput(text="yo?"))
    snapshot = SessionSnapshot.of_messages("s", [HI, YO], system_prompt="p", rewind_point=point)
    assert snapshot.messages == (HI, YO)
    assert snapshot.message_count == 2
    assert [(e.seq, e.origin) for e in snapshot.entries] == [
        (0, LogOrigin.CONVERSATION),
        (1, LogOrigin.CONVERSATION),
    ]
    assert (snapshot.floor_seq, snapshot.next_seq, snapshot.format) == (0, 2, SessionLogFormat.V1)
    assert snapshot.view_state.is_empty() and snapshot.manifest == ()
    assert snapshot.rewind_message_count == 1


def test_next_seq_defaults_past_the_last_entry_or_to_the_floor() -> None:
    entries = (LogEntry(seq=4, message=HI), LogEntry(seq=7, message=YO))
    assert SessionSnapshot(session_id="s", floor_seq=2, entries=entries).next_seq == 8
    assert SessionSnapshot(session_id="s", floor_seq=5).next_seq == 5


def test_count_before_maps_seqs_to_positions() -> None:
    entries = (LogEntry(seq=2, message=HI), LogEntry(seq=5, message=YO), LogEntry(seq=6, message=HI))
    snapshot = SessionSnapshot(session_id="s", next_seq=9, entries=entries)
    assert [snapshot.count_before(s) for s in (0, 2, 3, 5, 6, 7, 9)] == [0, 0, 1, 1, 2, 3, 3]


def test_a_gappy_version_1_state_writes_its_rewind_point_as_a_position() -> None:
    entries = (LogEntry(seq=2, message=HI), LogEntry(seq=5, message=YO))
    point = RewindPoint(seq=5, user_input=TextInput(text="again"))
    snapshot = SessionSnapshot(session_id="s", next_seq=6, floor_seq=1, entries=entries, rewind_point=point)
    assert JsonSessionSnapshotCodec().encode(snapshot) == (
        '{"version":1,"conversationId":"s","systemPrompt":null,"messages":[{"role":"USER","content":'
        '[{"type":"text","text":"hi"}]},{"role":"ASSISTANT","content":[{"type":"text","text":"yo"}]}],'
        '"rewindPoint":{"messageCount":1,"userInput":{"type":"text","text":"again"}}}'
    )
    assert (
        JsonSessionSnapshotCodec(SessionLogFormat.V2)
        .encode(snapshot)
        .startswith(
            '{"version":2,"conversationId":"s","systemPrompt":null,"nextSeq":6,"floorSeq":1,"entries":[{"seq":2,'
        )
    )


def test_view_state_is_normalised_like_the_reference() -> None:
    view = ViewState(
        summary_span=_span(10, 20),
        dropped_ranges=(
            SeqRange(from_seq=5, to_seq=7),
            SeqRange(from_seq=1, to_seq=3),
            SeqRange(from_seq=3, to_seq=4),  # touches [1, 3): merged
            SeqRange(from_seq=12, to_seq=15),  # inside the span: dropped
            SeqRange(from_seq=18, to_seq=22),  # reaches past the span: kept
        ),
        elisions=(
            Elision(seq=8, placeholder="a"),
            Elision(seq=2, placeholder="b"),
            Elision(seq=8, placeholder="c"),  # a later duplicate replaces
            Elision(seq=11, placeholder="d"),  # inside the span: dropped
        ),
    )
    assert [(r.from_seq, r.to_seq) for r in view.dropped_ranges] == [(1, 4), (5, 7), (18, 22)]
    assert [(e.seq, e.placeholder) for e in view.elisions] == [(2, "b"), (8, "c")]


def test_hides_range_combines_span_and_dropped_ranges() -> None:
    view = ViewState(summary_span=_span(2, 5), dropped_ranges=(SeqRange(from_seq=5, to_seq=8),))
    assert view.hides_range(2, 8)
    assert view.hides_range(3, 4)
    assert view.hides_range(4, 4)
    assert not view.hides_range(1, 3)
    assert not view.hides_range(7, 9)
    assert view.is_dropped(6) and not view.is_dropped(4)


def test_image_block_holds_exactly_one_source() -> None:
    with pytest.raises(ValidationError, match="exactly one of data and url"):
        ImageBlock(mime_type="image/png")
    with pytest.raises(ValidationError, match="exactly one of data and url"):
        ImageBlock(mime_type="image/png", data=b"x", url="https://x")
    assert ImageBlock.of_url("https://x", "image/png").source.value == "url"
    assert ImageBlock.of_bytes(b"x", "image/png").source.value == "base64"


def test_models_are_frozen() -> None:
    snapshot = SessionSnapshot.of_messages("s", [HI])
    with pytest.raises(ValidationError):
        snapshot.session_id = "t"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        SessionSnapshot.of_messages("  ", [])


def test_codec_refuses_wrong_arguments() -> None:
    with pytest.raises(InvalidArgumentError):
        JsonSessionSnapshotCodec(2)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        JsonSessionSnapshotCodec().encode("not a snapshot")  # type: ignore[arg-type]
    with pytest.raises(SnapshotCodecError, match="Encoded snapshot must be text, got bytes"):
        JsonSessionSnapshotCodec().decode(b"{}")  # type: ignore[arg-type]


def test_encode_refuses_nan_in_tool_input() -> None:
    message = Message(role=Role.ASSISTANT, tool_uses=(ToolUse(id="t", name="n", input={"x": float("nan")}),))
    snapshot = SessionSnapshot.of_messages("s", [message])
    with pytest.raises(SnapshotCodecError, match="Failed to encode session snapshot: a number is NaN or infinite"):
        JsonSessionSnapshotCodec().encode(snapshot)


def test_trailing_text_after_the_document_is_ignored_like_jackson() -> None:
    doc = '{"version":1,"conversationId":"s","messages":[]} trailing'
    assert JsonSessionSnapshotCodec().decode(doc).session_id == "s"


def test_control_characters_are_escaped_in_upper_case_hex_but_literal_escapes_are_kept() -> None:
    text = "ctl\x1f and a literal \\u001f and \\\x1f"
    snapshot = SessionSnapshot.of_messages("s", [Message.text(Role.USER, text)])
    encoded = JsonSessionSnapshotCodec().encode(snapshot)
    assert r'"text":"ctl\u001F and a literal \\u001f and \\\u001F"' in encoded
    assert JsonSessionSnapshotCodec().decode(encoded).messages[0].text_content() == text
