"""Hypothesis strategies for snapshots: arbitrary messages, version-1 shaped states and valid version-2
states (summary span, dropped ranges, elisions, a sealed segment, a rewind point)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from aimon_mongo.model import (
    AudioInput,
    FileInput,
    ImageInput,
    LlmCallMetadata,
    MultimodalInput,
    Principal,
    PrincipalType,
    SubmitOptions,
    TextInput,
    UserInput,
)
from aimon_mongo.snapshots import (
    Artifact,
    DocumentBlock,
    Elision,
    ImageBlock,
    LogEntry,
    LogOrigin,
    ManifestEntry,
    Message,
    ReasoningTrace,
    RewindPoint,
    Role,
    SeqRange,
    SessionLogFormat,
    SessionSnapshot,
    SummarySpan,
    TextBlock,
    ToolResult,
    ToolUse,
    ViewState,
)

texts = st.text(max_size=12)
optional_texts = st.none() | texts
ids = st.text(min_size=1, max_size=8).filter(str.strip)
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(texts, children, max_size=3),
    max_leaves=8,
)
json_objects = st.dictionaries(texts, json_values, max_size=3)

blocks = st.one_of(
    st.builds(TextBlock, text=texts),
    st.builds(ImageBlock.of_bytes, st.binary(max_size=16), texts),
    st.builds(ImageBlock.of_url, texts, texts),
    st.builds(DocumentBlock, mime_type=texts, data=st.binary(max_size=16), file_name=optional_texts),
)
messages = st.builds(
    Message,
    role=st.sampled_from(Role),
    content=st.lists(blocks, max_size=3).map(tuple),
    tool_uses=st.lists(st.builds(ToolUse, id=texts, name=texts, input=json_objects), max_size=2).map(tuple),
    tool_results=st.lists(
        st.builds(ToolResult, tool_use_id=texts, content=texts, is_error=st.booleans()), max_size=2
    ).map(tuple),
    artifacts=st.lists(
        st.builds(
            Artifact,
            path=texts,
            file_name=texts,
            size=st.integers(0, 2**40),
            mime_type=optional_texts,
            tool_use_id=optional_texts,
            download_token=optional_texts,
        ),
        max_size=2,
    ).map(tuple),
    reasoning=st.lists(
        st.builds(ReasoningTrace, provider=texts, payload=texts, tool_use_id=optional_texts), max_size=2
    ).map(tuple),
)

leaf_inputs = st.one_of(
    st.builds(TextInput, text=texts),
    st.builds(ImageInput, mime_type=st.just("image/png"), data=st.binary(max_size=8)),
    st.builds(AudioInput, mime_type=st.just("audio/ogg"), data=st.binary(max_size=8)),
    st.builds(FileInput, mime_type=texts, file_name=texts, data=st.binary(max_size=8)),
)
user_inputs: st.SearchStrategy[UserInput] = st.recursive(
    leaf_inputs,
    lambda children: st.builds(MultimodalInput, inputs=st.lists(children, min_size=1, max_size=3).map(tuple)),
    max_leaves=4,
)
submit_options = st.just(SubmitOptions.empty()) | st.builds(
    SubmitOptions,
    principal=st.none() | st.builds(Principal, type=st.sampled_from(PrincipalType), id=ids, display_name=texts),
    system_prompt_variables=st.dictionaries(texts, json_values, max_size=2),
    execution_attributes=st.dictionaries(texts, json_values, max_size=2),
    llm_call_metadata=st.none()
    | st.builds(
        LlmCallMetadata,
        component=optional_texts,
        trace_id=optional_texts,
        tags=st.dictionaries(texts, texts, max_size=2),
    ),
)


def rewind_points(seq: int) -> st.SearchStrategy[RewindPoint]:
    return st.builds(RewindPoint, seq=st.just(seq), user_input=user_inputs, submit_options=submit_options)


@st.composite
def v1_snapshots(draw: st.DrawFn) -> SessionSnapshot:
    """A version-1 shaped state: seqs 0..n-1, all CONVERSATION, empty view state."""
    history = draw(st.lists(messages, max_size=5))
    point = None
    if draw(st.booleans()):
        point = draw(rewind_points(draw(st.integers(0, len(history)))))
    return SessionSnapshot.of_messages(draw(ids), history, system_prompt=draw(optional_texts), rewind_point=point)


@st.composite
def v2_snapshots(draw: st.DrawFn) -> SessionSnapshot:
    """A valid version-2 state with any mix of view state, one sealed segment and a rewind point."""
    floor = draw(st.integers(0, 5))
    nxt = floor + draw(st.integers(0, 12))
    span = None
    manifest: tuple[ManifestEntry, ...] = ()
    sealed = range(0)
    if nxt > floor and draw(st.booleans()):
        start = draw(st.integers(floor, nxt - 1))
        end = draw(st.integers(start + 1, nxt))
        span = SummarySpan(
            from_seq=start,
            to_seq=end,
            summary_text=draw(texts),
            boundary_id=draw(texts),
            trigger=draw(st.sampled_from(["AUTO", "MANUAL", "REACTIVE"])),
            pre_token_count=draw(st.integers(0, 10**6)),
            messages_summarized=draw(st.integers(0, 50)),
            discovered_tool_names=tuple(draw(st.lists(texts, max_size=3))),
        )
        if draw(st.booleans()):
            manifest = (
                ManifestEntry(
                    from_seq=start,
                    to_seq=end,
                    segment_id=draw(ids),
                    content_hash=draw(texts),
                    entry_count=draw(st.integers(1, end - start)),
                ),
            )
            sealed = range(start, end)
    dropped: list[SeqRange] = []
    elisions: list[Elision] = []
    if nxt > floor:
        for _ in range(draw(st.integers(0, 2))):
            start = draw(st.integers(floor, nxt - 1))
            dropped.append(SeqRange(from_seq=start, to_seq=draw(st.integers(start + 1, nxt))))
        elisions = draw(st.lists(st.builds(Elision, seq=st.integers(floor, nxt - 1), placeholder=texts), max_size=2))
    seqs = sorted(s for s in draw(st.sets(st.integers(floor, max(floor, nxt - 1)))) if s < nxt and s not in sealed)
    entries = tuple(LogEntry(seq=s, origin=draw(st.sampled_from(LogOrigin)), message=draw(messages)) for s in seqs)
    point = None
    if draw(st.booleans()):
        seq = draw(st.integers(floor, nxt).filter(lambda s: not (sealed.start < s < sealed.stop)))
        point = draw(rewind_points(seq))
    return SessionSnapshot(
        session_id=draw(ids),
        system_prompt=draw(optional_texts),
        next_seq=nxt,
        floor_seq=floor,
        entries=entries,
        view_state=ViewState(summary_span=span, dropped_ranges=tuple(dropped), elisions=tuple(elisions)),
        manifest=manifest,
        rewind_point=point,
        format=SessionLogFormat.V2,
    )
