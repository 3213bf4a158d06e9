"""``render``: readable, deterministic text of a transcript."""

from __future__ import annotations

from hypothesis import given, settings
from snapshot_strategies import v1_snapshots, v2_snapshots

from aimon_mongo.model import SubmitOptions, TextInput
from aimon_mongo.snapshots import (
    Artifact,
    DocumentBlock,
    Elision,
    ImageBlock,
    JsonSessionSnapshotCodec,
    LineKind,
    LogEntry,
    LogOrigin,
    ManifestEntry,
    Message,
    ReasoningTrace,
    RewindPoint,
    Role,
    SessionLogFormat,
    SessionSnapshot,
    SummarySpan,
    TextBlock,
    ToolResult,
    ToolUse,
    ViewState,
    render,
    render_lines,
)

SNAPSHOT = SessionSnapshot(
    session_id="sess-1",
    system_prompt="Be brief.\nBe kind.",
    floor_seq=0,
    next_seq=9,
    format=SessionLogFormat.V2,
    entries=(
        LogEntry(
            seq=3,
            message=Message(
                role=Role.USER,
                content=(
                    TextBlock(text="Look at this:\ttabbed \x1b[31mred\x1b[0m"),
                    ImageBlock.of_bytes(b"\x89PNG", "image/png"),
                    ImageBlock.of_url("https://e.x/a.png", "image/png"),
                    DocumentBlock(mime_type="application/pdf", data=b"%PDF", file_name="a b.pdf"),
                ),
            ),
        ),
        LogEntry(
            seq=4,
            message=Message(
                role=Role.ASSISTANT,
                content=(TextBlock(text="Reading."),),
                tool_uses=(ToolUse(id="t1", name="read", input={"path": "/x", "n": [1, 2]}),),
                reasoning=(ReasoningTrace(provider="anthropic", payload="s" * 12, tool_use_id="t1"),),
            ),
        ),
        LogEntry(
            seq=5,
            message=Message(
                role=Role.TOOL,
                tool_results=(
                    ToolResult(tool_use_id="t1", content="line 1\nline 2"),
                    ToolResult(tool_use_id="t2", content="denied", is_error=True),
                ),
                artifacts=(Artifact(path="/out/a.txt", file_name="a.txt", size=1, mime_type="text/plain"),),
            ),
        ),
        LogEntry(seq=6, origin=LogOrigin.SYNTHETIC, message=Message(role=Role.USER)),
    ),
    view_state=ViewState(
        summary_span=SummarySpan(
            from_seq=0,
            to_seq=3,
            summary_text="Set up.",
            boundary_id="b1",
            trigger="AUTO",
            messages_summarized=1,
        ),
        elisions=(Elision(seq=5, placeholder="[pruned]"),),
    ),
    manifest=(ManifestEntry(from_seq=0, to_seq=3, segment_id="seg-1", content_hash="sha256:ab", entry_count=2),),
    rewind_point=RewindPoint(
        seq=6,
        user_input=TextInput(text="go on"),
        submit_options=SubmitOptions(execution_attributes={"k": 1}),
    ),
)

EXPECTED = """\
session sess-1
format v2, 4 messages carried, seqs [0, 9)
system prompt:
    Be brief.
    Be kind.
summary of seqs [0, 3) (boundary b1, trigger AUTO, 1 message summarized):
    Set up.
elided seq 5: [pruned]
sealed seqs [0, 3) in segment seg-1 (2 entries)
#3 USER
    Look at this:\ttabbed \\u001b[31mred\\u001b[0m
    [image image/png, 4 bytes]
    [image image/png, url https://e.x/a.png]
    [document application/pdf "a b.pdf", 4 bytes]
#4 ASSISTANT
    Reading.
    -> tool call read [t1] {"path":"/x","n":[1,2]}
    reasoning from anthropic (12 chars, tool t1)
#5 TOOL
    <- tool result [t1]
        line 1
        line 2
    <- tool result [t2] (error)
        denied
    artifact /out/a.txt (a.txt, 1 byte, text/plain)
#6 USER (synthetic)
    (empty)
rewind point before seq 6 (after 3 carried messages), user input:
    go on
    (submitted with options)
"""


def test_render_golden() -> None:
    assert render(SNAPSHOT) == EXPECTED


def test_render_tags_lines_for_colouring() -> None:
    kinds = {line.text.strip(): line.kind for line in render_lines(SNAPSHOT)}
    assert kinds["#4 ASSISTANT"] is LineKind.ROLE
    assert kinds["<- tool result [t2] (error)"] is LineKind.TOOL_ERROR
    assert kinds["denied"] is LineKind.TOOL_ERROR
    assert kinds["line 1"] is LineKind.TOOL_RESULT
    assert kinds["reasoning from anthropic (12 chars, tool t1)"] is LineKind.REASONING
    assert "".join(line.text + "\n" for line in render_lines(SNAPSHOT)) == EXPECTED


def test_one_line_fields_cannot_break_lines() -> None:
    snapshot = SessionSnapshot.of_messages(
        "s\n2", [Message(role=Role.ASSISTANT, tool_uses=(ToolUse(id="a\rb", name="x\ny"),))]
    )
    assert render(snapshot) == (
        "session s\\u000a2\n"
        "format v1, 1 message carried, seqs [0, 1)\n"
        "system prompt: (none)\n"
        "#0 ASSISTANT\n"
        "    -> tool call x\\u000ay [a\\u000db] {}\n"
    )


@settings(deadline=None)
@given(v1_snapshots() | v2_snapshots())
def test_render_is_deterministic_and_survives_a_round_trip(snapshot: SessionSnapshot) -> None:
    codec = JsonSessionSnapshotCodec()
    text = render(snapshot)
    assert render(codec.decode(codec.encode(snapshot))) == text
    assert text.endswith("\n")
    assert all("\r" not in line and "\x1b" not in line for line in text.split("\n"))
