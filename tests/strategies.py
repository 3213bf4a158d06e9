"""Hypothesis strategies for every value type in ``aimon_mongo.model``.

Shared by the codec tests and by later backends' property tests. Everything generated is a valid model
instance; the knobs narrow it to what a stored form can carry:

- ``bson_safe=True``: map keys without NUL (BSON keys are C strings).
- ``millis=True``: datetimes with millisecond precision (what a BSON date keeps).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from aimon_mongo.model import (
    MAX_NESTING,
    AudioInput,
    BackgroundTask,
    CollectedBatch,
    CompletionReason,
    FileInput,
    IdempotencyEntry,
    IdempotencyStatus,
    ImageInput,
    InboundMessage,
    Lease,
    LlmCallMetadata,
    MultimodalInput,
    Principal,
    PrincipalType,
    Priority,
    SessionSignal,
    SignalKind,
    SubmitOptions,
    TaskQuery,
    TaskState,
    TextInput,
    TurnResult,
    UnreadableEntry,
    UserInput,
)
from aimon_mongo.model.record import SessionTotals

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# --- scalars

texts = st.text(max_size=40)
"""Any Unicode text (Hypothesis leaves out lone surrogates, which no stored form can carry)."""

non_blank_texts = st.text(min_size=1, max_size=40).filter(lambda s: s.strip() != "")
"""Ids: text with at least one non-whitespace character."""

optional_texts = st.none() | texts


def map_keys(*, bson_safe: bool = False) -> st.SearchStrategy[str]:
    """Keys of string maps (``bson_safe``: no NUL)."""
    if bson_safe:
        return st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00"), max_size=20)
    return st.text(max_size=20)


def utc_datetimes(*, millis: bool = False) -> st.SearchStrategy[datetime]:
    """Aware UTC datetimes over the whole range Python can represent (``millis``: BSON precision)."""
    values = st.datetimes(
        min_value=datetime(1, 1, 1),
        max_value=datetime(9999, 12, 31, 23, 59, 59, 999999),
        timezones=st.just(UTC),
    )
    if millis:
        return values.map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000))
    return values


def json_values(*, bson_safe: bool = False, max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """JSON values (null, booleans, int64 integers, finite floats, text, arrays, objects)."""
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(INT64_MIN, INT64_MAX)
        | st.floats(allow_nan=False, allow_infinity=False)
        | texts
    )
    return st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(map_keys(bson_safe=bson_safe), children, max_size=4)
        ),
        max_leaves=max_leaves,
    )


def json_maps(*, bson_safe: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """``Map<String, Object>``-style maps of JSON values."""
    return st.dictionaries(map_keys(bson_safe=bson_safe), json_values(bson_safe=bson_safe), max_size=4)


def text_maps(*, bson_safe: bool = False) -> st.SearchStrategy[dict[str, str]]:
    """String→string maps (message metadata, call-metadata tags)."""
    return st.dictionaries(map_keys(bson_safe=bson_safe), texts, max_size=4)


# --- user input

_subtypes = st.sampled_from(["png", "jpeg", "webp", "mpeg", "ogg", "wav", "plain", "x-custom+json"])
_any_mime = st.sampled_from(["text", "application", "image", "audio", "video", "font"]).flatmap(
    lambda top: _subtypes.map(lambda sub: f"{top}/{sub}")
)
_payload_bytes = st.binary(max_size=64)

text_inputs = st.builds(TextInput, text=st.text(max_size=80))
image_inputs = st.builds(ImageInput, mime_type=_subtypes.map(lambda s: f"image/{s}"), data=_payload_bytes)
audio_inputs = st.builds(AudioInput, mime_type=_subtypes.map(lambda s: f"audio/{s}"), data=_payload_bytes)
file_inputs = st.builds(
    FileInput,
    mime_type=_any_mime,
    file_name=texts,
    data=_payload_bytes | st.text(max_size=40).map(lambda s: s.encode("utf-8")),
)
leaf_inputs = text_inputs | image_inputs | audio_inputs | file_inputs


def user_inputs(*, max_leaves: int = 8) -> st.SearchStrategy[UserInput]:
    """Every input kind, multimodal ones nested a few levels (far below the bound of 32)."""
    return st.recursive(
        leaf_inputs,
        lambda children: st.lists(children, min_size=1, max_size=4).map(
            lambda inputs: MultimodalInput(inputs=tuple(inputs))
        ),
        max_leaves=max_leaves,
    )


def nested_input(depth: int, leaf: UserInput | None = None) -> UserInput:
    """A chain of single-child multimodal inputs whose innermost leaf sits at ``depth``.

    ``nested_input(0)`` is the leaf itself; the top object is depth 0 and :data:`MAX_NESTING` (32) is the
    deepest leaf a reader accepts.
    """
    inp: UserInput = leaf if leaf is not None else TextInput(text="leaf")
    for _ in range(depth):
        inp = MultimodalInput(inputs=(inp,))
    return inp


deep_inputs = st.integers(0, MAX_NESTING).flatmap(lambda d: leaf_inputs.map(lambda leaf: nested_input(d, leaf)))
"""Multimodal chains of every allowed depth, 0 to 32."""

# --- principals, options

principals = st.builds(Principal, type=st.sampled_from(PrincipalType), id=non_blank_texts, display_name=texts)


def llm_call_metadata(*, bson_safe: bool = False) -> st.SearchStrategy[LlmCallMetadata]:
    """LLM call attribution, empty ones included."""
    return st.builds(
        LlmCallMetadata,
        component=optional_texts,
        parent_component=optional_texts,
        feature=optional_texts,
        principal=st.none() | principals,
        trace_id=optional_texts,
        tags=text_maps(bson_safe=bson_safe),
    )


def submit_options(*, bson_safe: bool = False) -> st.SearchStrategy[SubmitOptions]:
    """Submit options, empty ones included (about one in four)."""
    return st.one_of(
        st.just(SubmitOptions.empty()),
        st.builds(
            SubmitOptions,
            principal=st.none() | principals,
            system_prompt_variables=json_maps(bson_safe=bson_safe),
            execution_attributes=json_maps(bson_safe=bson_safe),
            llm_call_metadata=st.none() | llm_call_metadata(bson_safe=bson_safe),
        ),
    )


# --- inbox


def inbound_messages(
    *, bson_safe: bool = False, millis: bool = False, inputs: st.SearchStrategy[UserInput] | None = None
) -> st.SearchStrategy[InboundMessage]:
    """Inbox envelopes with every optional field present or absent; ``id`` is left unset."""
    return st.builds(
        InboundMessage,
        id=st.none(),
        turn_id=optional_texts,
        session_id=non_blank_texts,
        agent_ref=texts,
        context_discriminator=optional_texts,
        user_input=inputs if inputs is not None else user_inputs(),
        priority=st.sampled_from(Priority),
        idempotency_key=optional_texts,
        initiator=principals,
        delivered_at=utc_datetimes(millis=millis),
        metadata=text_maps(bson_safe=bson_safe),
        submit_options=submit_options(bson_safe=bson_safe),
    )


unreadable_entries = st.builds(
    UnreadableEntry, id=non_blank_texts, turn_id=optional_texts, idempotency_key=optional_texts, reason=texts
)

collected_batches = st.builds(
    CollectedBatch,
    messages=st.lists(inbound_messages(), max_size=2).map(tuple),
    unreadable=st.lists(unreadable_entries, max_size=3).map(tuple),
)

# --- other stores


def session_signals(*, bson_safe: bool = False) -> st.SearchStrategy[SessionSignal]:
    """Signals (``bson_safe``: payload keys without NUL)."""
    return st.builds(
        SessionSignal,
        session_id=non_blank_texts,
        kind=st.sampled_from(SignalKind),
        origin_node_id=texts,
        payload=json_maps(bson_safe=bson_safe),
    )


signals = session_signals()

turn_results = st.builds(
    TurnResult,
    success=st.booleans(),
    final_answer=optional_texts,
    error_message=optional_texts,
    completion_reason=st.sampled_from(CompletionReason),
    was_streamed=st.booleans(),
)


@st.composite
def idempotency_entries(draw: st.DrawFn, millis: bool = False) -> IdempotencyEntry:
    """Entries whose ``last_touched_at`` is not before ``created_at`` (``millis``: BSON precision)."""
    created = draw(utc_datetimes(millis=millis).filter(lambda d: d.year < 9999))
    return IdempotencyEntry(
        key=draw(non_blank_texts),
        session_id=draw(non_blank_texts),
        input_hash=draw(st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)),
        status=draw(st.sampled_from(IdempotencyStatus)),
        holder_id=draw(optional_texts),
        result=draw(st.none() | turn_results),
        created_at=created,
        last_touched_at=created + draw(_spans(millis, timedelta(days=30))),
    )


@st.composite
def background_tasks(draw: st.DrawFn, millis: bool = False) -> BackgroundTask:
    """Tasks; terminal ones carry an ``end_time`` not before ``start_time`` (``millis``: BSON precision)."""
    state = draw(st.sampled_from(TaskState))
    start = draw(utc_datetimes(millis=millis).filter(lambda d: d.year < 9999))
    later = _spans(millis, timedelta(days=7)).map(lambda dt: start + dt)
    return BackgroundTask(
        task_id=draw(non_blank_texts),
        subagent_name=draw(texts),
        description=draw(texts),
        state=state,
        start_time=start,
        end_time=draw(later) if state.is_terminal else None,
        output_offset=draw(st.integers(0, INT64_MAX)),
        owner=draw(st.none() | principals),
        agent_runtime_id=draw(st.none() | non_blank_texts.map(lambda name: f"agent:{name}")),
        last_heartbeat=draw(st.none() | later),
    )


def _spans(millis: bool, most: timedelta) -> st.SearchStrategy[timedelta]:
    spans = st.timedeltas(min_value=timedelta(0), max_value=most)
    return spans.map(lambda dt: dt - timedelta(microseconds=dt.microseconds % 1000)) if millis else spans


session_totals = st.builds(
    SessionTotals,
    turn_count=st.integers(0, INT64_MAX),
    iterations=st.integers(0, INT64_MAX),
    prompt_tokens=st.integers(0, INT64_MAX),
    completion_tokens=st.integers(0, INT64_MAX),
    total_tokens=st.integers(0, INT64_MAX),
    reasoning_tokens=st.integers(0, INT64_MAX),
)

ttls = st.integers(1, 10**10).map(lambda ms: timedelta(milliseconds=ms))
"""Positive TTLs with whole milliseconds (what every store keeps)."""

task_queries = st.builds(
    TaskQuery,
    state=st.none() | st.sampled_from(TaskState),
    owner=st.none() | principals,
    agent_runtime_id=optional_texts,
)

leases = st.builds(
    Lease,
    session_id=non_blank_texts,
    holder_id=non_blank_texts,
    fencing_token=st.integers(1, INT64_MAX),
    expires_at=utc_datetimes(),
)
