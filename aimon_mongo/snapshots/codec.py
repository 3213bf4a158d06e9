"""``JsonSessionSnapshotCodec``: session snapshots as the reference's version-1 and version-2 JSON documents.

Version 1 (keys in write order)::

    {"version":1, "conversationId", "systemPrompt": text|null, "messages":[<message>...],
     "rewindPoint"?: {"messageCount", "userInput", "submitOptions"?}}

Version 2::

    {"version":2, "conversationId", "systemPrompt", "nextSeq", "floorSeq",
     "entries":[{"seq","origin","message"}...],
     "viewState"?: {"summarySpan"?: {"fromSeq","toSeq","summaryText","boundaryId","trigger",
                                     "preTokenCount","messagesSummarized","discoveredToolNames"},
                    "droppedRanges":[{"fromSeq","toSeq"}...], "elisions":[{"seq","placeholder"}...]},
     "manifest"?: [{"fromSeq","toSeq","segmentId","contentHash","entryCount"}...],
     "rewindPoint"?: {"seq", "userInput", "submitOptions"?}}

The written version is the later of the codec's ``write_format`` and the snapshot's own ``format``.
Written as version 1, the rewind position is the number of carried entries before the rewind seq and
seqs and origins are not written. The message object is in :mod:`aimon_mongo.snapshots._message_codec`.

Decoding refuses with :class:`~aimon_mongo.errors.SnapshotCodecError` using the reference's messages and
tolerates what the reference tolerates (unknown keys, absent arrays, the retired
``compactionFailureCount``, a rewind point whose user input cannot be read — dropped, the turn is then
not retryable). Messages name fields, never message text.

Sealed segment payloads use the same entry encoding: :func:`encode_entries` / :func:`decode_entries`,
and :func:`content_hash` is ``"sha256:" + hex`` of the payload's UTF-8 bytes.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from typing import Any

from pydantic import TypeAdapter, ValidationError

from aimon_mongo import names as n
from aimon_mongo.codec import submit_options as submit_options_codec
from aimon_mongo.codec import user_input as user_input_codec
from aimon_mongo.errors import CodecError, InvalidArgumentError, SnapshotCodecError
from aimon_mongo.snapshots import _fast
from aimon_mongo.snapshots import _json as j
from aimon_mongo.snapshots._message_codec import clip, decode_message, encode_message, first_error
from aimon_mongo.snapshots.message import Message
from aimon_mongo.snapshots.model import (
    EMPTY_VIEW_STATE,
    Elision,
    LogEntry,
    LogOrigin,
    ManifestEntry,
    RewindPoint,
    SeqRange,
    SessionLogFormat,
    SessionSnapshot,
    SummarySpan,
    ViewState,
    log_state_problem,
)

log = logging.getLogger(__name__)

FORMAT_VERSION = n.SNAP_FORMAT_V1
"""The version-1 format: a plain message list. Written unless the codec or the snapshot asks for more."""
FORMAT_VERSION_V2 = n.SNAP_FORMAT_V2
"""The version-2 format: the whole session log state."""

_ORIGINS = {origin.value: origin for origin in LogOrigin}
_ENTRIES: TypeAdapter[tuple[LogEntry, ...]] = TypeAdapter(tuple[LogEntry, ...])
"""Numbers the messages of a version-1 document in one validation call."""
_SNAPSHOT_FAILURE = "Failed to decode session snapshot"
_ENTRIES_FAILURE = "Failed to decode log entries"


class JsonSessionSnapshotCodec:
    """Encode and decode session snapshots (stateless, thread-safe).

    ``write_format`` is the format written at least (default :attr:`SessionLogFormat.V1`, the reference's
    default; the first step of a rollout reads both and still writes version 1).
    """

    def __init__(self, write_format: SessionLogFormat = SessionLogFormat.V1) -> None:
        if not isinstance(write_format, SessionLogFormat):
            raise InvalidArgumentError(f"write_format must be a SessionLogFormat, got {write_format!r}")
        self.write_format = write_format

    def encode(self, snapshot: SessionSnapshot) -> str:
        """The compact JSON document of ``snapshot``; refuses a state that breaks its invariants."""
        if not isinstance(snapshot, SessionSnapshot):
            raise InvalidArgumentError(f"expected a SessionSnapshot, got {type(snapshot).__name__}")
        problem = log_state_problem(snapshot)
        if problem is not None:
            raise SnapshotCodecError(f"Inconsistent session log: {problem}")
        fmt = self.write_format.at_least(snapshot.format)
        root: dict[str, Any] = {
            n.SNAP_DOC_VERSION: fmt.wire_version,
            n.SNAP_DOC_CONVERSATION_ID: snapshot.session_id,
            n.SNAP_DOC_SYSTEM_PROMPT: snapshot.system_prompt,
        }
        if fmt is SessionLogFormat.V2:
            _encode_v2_state(snapshot, root)
        else:
            root[n.SNAP_DOC_MESSAGES] = [entry.message for entry in snapshot.entries]
        point = snapshot.rewind_point
        if point is not None:
            position = point.seq if fmt is SessionLogFormat.V2 else snapshot.count_before(point.seq)
            key = n.SNAP_REWIND_SEQ if fmt is SessionLogFormat.V2 else n.SNAP_REWIND_MESSAGE_COUNT
            node: dict[str, Any] = {
                key: position,
                n.SNAP_REWIND_USER_INPUT: user_input_codec.encode(point.user_input),
            }
            options = submit_options_codec.encode(point.submit_options)
            if options:
                node[n.SNAP_REWIND_SUBMIT_OPTIONS] = options
            root[n.SNAP_DOC_REWIND_POINT] = node
        fast = _fast.write_document(root, snapshot.entries)
        if fast is not None:
            return fast
        # The careful writer: the same document as plain objects, refusing NaN and infinities.
        if fmt is SessionLogFormat.V2:
            root[n.SNAP_DOC_ENTRIES] = [_encode_entry(entry) for entry in snapshot.entries]
        else:
            root[n.SNAP_DOC_MESSAGES] = [encode_message(entry.message) for entry in snapshot.entries]
        return _dumps(root, "Failed to encode session snapshot")

    def decode(self, text: str) -> SessionSnapshot:
        """Read a version-1 or version-2 document; refuses with :class:`SnapshotCodecError`."""
        if not isinstance(text, str):
            raise SnapshotCodecError(f"Encoded snapshot must be text, got {type(text).__name__}")
        fast = decode_fast(text)
        if fast is not None:
            return fast
        try:
            root = j.loads(text)
        except Exception as exc:
            raise _wrapped(exc, _SNAPSHOT_FAILURE) from None
        return self.decode_object(root)

    def decode_object(self, root: object) -> SessionSnapshot:
        """Like :meth:`decode`, for a document that is already parsed (e.g. embedded in a store envelope).

        ``decode(text)`` is exactly ``decode_object(<text parsed as JSON>)``; this saves the store a second
        serialisation and parse of the embedded object.
        """
        try:
            return _decode_root(root)
        except Exception as exc:
            raise _wrapped(exc, _SNAPSHOT_FAILURE) from None

    def encode_entries(self, entries: Iterable[LogEntry]) -> str:
        """Same as the module-level :func:`encode_entries`."""
        return encode_entries(entries)

    def decode_entries(self, text: str) -> tuple[LogEntry, ...]:
        """Same as the module-level :func:`decode_entries`."""
        return decode_entries(text)


def encode_entries(entries: Iterable[LogEntry]) -> str:
    """The payload of a sealed segment: ``{"version":2,"entries":[{"seq","origin","message"}...]}``."""
    root = {n.SNAP_DOC_VERSION: FORMAT_VERSION_V2, n.SNAP_DOC_ENTRIES: [_encode_entry(e) for e in entries]}
    return _dumps(root, "Failed to encode log entries")


def decode_entries(text: str) -> tuple[LogEntry, ...]:
    """Read a segment payload written by :func:`encode_entries` (entries in stored order)."""
    if not isinstance(text, str):
        raise SnapshotCodecError(f"Encoded log entries must be text, got {type(text).__name__}")
    try:
        root = j.loads(text)
        if not isinstance(root, dict) or j.as_int(root.get(n.SNAP_DOC_VERSION), -1) != FORMAT_VERSION_V2:
            raise SnapshotCodecError("Encoded log entries are not a version-2 entry list")
        nodes = root.get(n.SNAP_DOC_ENTRIES)
        if not isinstance(nodes, list):
            raise SnapshotCodecError("Encoded log entries carry no entry array")
        return tuple(_decode_entry(node) for node in nodes)
    except Exception as exc:
        raise _wrapped(exc, _ENTRIES_FAILURE) from None


def content_hash(payload: str) -> str:
    """``"sha256:"`` + lowercase hex SHA-256 of the payload's UTF-8 bytes, over the string as written."""
    return n.SNAP_CONTENT_HASH_PREFIX + hashlib.sha256(payload.encode("utf-8", "replace")).hexdigest()


# --- encoding --------------------------------------------------------------------------------------


def _encode_entry(entry: LogEntry) -> dict[str, Any]:
    return {
        n.SNAP_ENTRY_SEQ: entry.seq,
        n.SNAP_ENTRY_ORIGIN: entry.origin.value,
        n.SNAP_ENTRY_MESSAGE: encode_message(entry.message),
    }


def _encode_v2_state(snapshot: SessionSnapshot, root: dict[str, Any]) -> None:
    root[n.SNAP_DOC_NEXT_SEQ] = snapshot.next_seq
    root[n.SNAP_DOC_FLOOR_SEQ] = snapshot.floor_seq
    root[n.SNAP_DOC_ENTRIES] = list(snapshot.entries)
    if not snapshot.view_state.is_empty():
        root[n.SNAP_DOC_VIEW_STATE] = _encode_view_state(snapshot.view_state)
    if snapshot.manifest:
        root[n.SNAP_DOC_MANIFEST] = [
            {
                n.SNAP_MANIFEST_FROM_SEQ: line.from_seq,
                n.SNAP_MANIFEST_TO_SEQ: line.to_seq,
                n.SNAP_MANIFEST_SEGMENT_ID: line.segment_id,
                n.SNAP_MANIFEST_CONTENT_HASH: line.content_hash,
                n.SNAP_MANIFEST_ENTRY_COUNT: line.entry_count,
            }
            for line in snapshot.manifest
        ]


def _encode_view_state(view: ViewState) -> dict[str, Any]:
    out: dict[str, Any] = {}
    span = view.summary_span
    if span is not None:
        out[n.SNAP_VIEW_SUMMARY_SPAN] = {
            n.SNAP_SPAN_FROM_SEQ: span.from_seq,
            n.SNAP_SPAN_TO_SEQ: span.to_seq,
            n.SNAP_SPAN_SUMMARY_TEXT: span.summary_text,
            n.SNAP_SPAN_BOUNDARY_ID: span.boundary_id,
            n.SNAP_SPAN_TRIGGER: span.trigger,
            n.SNAP_SPAN_PRE_TOKEN_COUNT: span.pre_token_count,
            n.SNAP_SPAN_MESSAGES_SUMMARIZED: span.messages_summarized,
            n.SNAP_SPAN_DISCOVERED_TOOL_NAMES: list(span.discovered_tool_names),
        }
    out[n.SNAP_VIEW_DROPPED_RANGES] = [
        {n.SNAP_RANGE_FROM_SEQ: r.from_seq, n.SNAP_RANGE_TO_SEQ: r.to_seq} for r in view.dropped_ranges
    ]
    out[n.SNAP_VIEW_ELISIONS] = [
        {n.SNAP_ELISION_SEQ: e.seq, n.SNAP_ELISION_PLACEHOLDER: e.placeholder} for e in view.elisions
    ]
    return out


def _dumps(root: dict[str, Any], failure: str) -> str:
    try:
        return j.dumps(root)
    except ValueError:
        raise SnapshotCodecError(f"{failure}: a number is NaN or infinite") from None
    except RecursionError:
        raise SnapshotCodecError(f"{failure}: a value is nested too deeply") from None


# --- decoding --------------------------------------------------------------------------------------


def _wrapped(exc: Exception, failure: str) -> SnapshotCodecError:
    """The reference's rule: its own refusals pass through, anything else is wrapped (safe text only)."""
    if isinstance(exc, SnapshotCodecError):
        return exc
    if isinstance(exc, j.MalformedError):
        return SnapshotCodecError(f"{failure}: {exc}")
    if isinstance(exc, ValidationError):
        return SnapshotCodecError(f"{failure}: {first_error(exc)}")
    if isinstance(exc, RecursionError):
        return SnapshotCodecError(f"{failure}: a value is nested too deeply")
    return SnapshotCodecError(f"{failure}: {type(exc).__name__}")


def decode_fast(text: str | bytes) -> SessionSnapshot | None:
    """The snapshot of a document the fast reader takes whole (see :mod:`aimon_mongo.snapshots._fast`),
    or ``None``: then only the careful reader (:meth:`JsonSessionSnapshotCodec.decode`) may answer."""
    wire = _fast.read_document(text)
    return None if wire is None else from_fast_document(wire)


def from_fast_document(wire: dict[str, Any]) -> SessionSnapshot | None:
    """The snapshot of a document :func:`~aimon_mongo.snapshots._fast.read_document` validated, or ``None``
    for what the careful reader must judge (a blank id, a seq out of range, any refusal)."""
    session_id = wire[n.SNAP_DOC_CONVERSATION_ID]
    if not session_id.strip():
        return None
    system_prompt = wire.get(n.SNAP_DOC_SYSTEM_PROMPT)
    try:
        if wire[n.SNAP_DOC_VERSION] == FORMAT_VERSION:
            return _decode_v1(wire, session_id, system_prompt, wire.get(n.SNAP_DOC_MESSAGES, []))
        entries = tuple(wire.get(n.SNAP_DOC_ENTRIES, ()))
        # The careful reader refuses a seq out of range and an entry without an origin (the model's
        # default; its field name is the stored key).
        if any(not 0 <= e.seq <= j.LONG_MAX or n.SNAP_ENTRY_ORIGIN not in e.model_fields_set for e in entries):
            return None
        return _decode_v2(wire, session_id, system_prompt, entries)
    except Exception:  # the careful reader says why, in the reference's words
        return None


def _decode_root(root: object) -> SessionSnapshot:
    if not isinstance(root, dict):
        raise SnapshotCodecError("Encoded snapshot is not a JSON object")
    version = j.as_int(root.get(n.SNAP_DOC_VERSION), -1)
    if version not in (FORMAT_VERSION, FORMAT_VERSION_V2):
        raise SnapshotCodecError(
            f"Unsupported session snapshot format version: {version} (expected {FORMAT_VERSION} or {FORMAT_VERSION_V2})"
        )
    session_id = j.required_text(root, n.SNAP_DOC_CONVERSATION_ID)
    if not session_id.strip():
        raise j.MalformedError(f"field '{n.SNAP_DOC_CONVERSATION_ID}' is blank")
    system_prompt = j.optional_text(root, n.SNAP_DOC_SYSTEM_PROMPT)
    if version == FORMAT_VERSION_V2:
        return _decode_v2(root, session_id, system_prompt)
    return _decode_v1(root, session_id, system_prompt)


def _decode_v1(
    root: dict[str, Any], session_id: str, system_prompt: str | None, messages: list[Message] | None = None
) -> SessionSnapshot:
    if messages is None:
        messages = [decode_message(node) for node in j.array(root, n.SNAP_DOC_MESSAGES)]
    point_node = root.get(n.SNAP_DOC_REWIND_POINT)
    point = None
    if isinstance(point_node, dict):
        keep = j.as_int(point_node.get(n.SNAP_REWIND_MESSAGE_COUNT), -1)
        if keep < 0 or keep > len(messages):
            raise SnapshotCodecError(
                f"Rewind point keeps {keep} of {len(messages)} messages, which is not a position in this transcript"
            )
        point = _decode_rewind_point(point_node, keep)
    return SessionSnapshot(
        session_id=session_id,
        system_prompt=system_prompt,
        next_seq=len(messages),
        entries=_ENTRIES.validate_python([{"seq": i, "message": m} for i, m in enumerate(messages)]),
        rewind_point=point,
    )


def _decode_v2(
    root: dict[str, Any], session_id: str, system_prompt: str | None, entries: tuple[LogEntry, ...] | None = None
) -> SessionSnapshot:
    next_seq = j.required_long(root, n.SNAP_DOC_NEXT_SEQ)
    floor_seq = j.required_long(root, n.SNAP_DOC_FLOOR_SEQ)
    if entries is None:
        entries = tuple(_decode_entry(node) for node in j.array(root, n.SNAP_DOC_ENTRIES))
    point_node = root.get(n.SNAP_DOC_REWIND_POINT)
    point = None
    if isinstance(point_node, dict):
        at = j.as_int(point_node.get(n.SNAP_REWIND_SEQ), -1)
        if at < floor_seq or at > next_seq:
            raise SnapshotCodecError(f"Rewind point seq {at} lies outside [floorSeq={floor_seq}, nextSeq={next_seq}]")
        point = _decode_rewind_point(point_node, at)
    try:
        return SessionSnapshot(
            session_id=session_id,
            system_prompt=system_prompt,
            next_seq=next_seq,
            floor_seq=floor_seq,
            entries=entries,
            view_state=_decode_view_state(root.get(n.SNAP_DOC_VIEW_STATE)),
            manifest=_decode_manifest(root.get(n.SNAP_DOC_MANIFEST)),
            rewind_point=point,
            format=SessionLogFormat.V2,
        )
    except ValidationError as exc:
        raise SnapshotCodecError(f"Inconsistent session log: {first_error(exc)}") from None


def _decode_entry(node: object) -> LogEntry:
    if not isinstance(node, dict):
        raise SnapshotCodecError("Log entry is not a JSON object")
    seq = j.required_long(node, n.SNAP_ENTRY_SEQ)
    message = decode_message(node.get(n.SNAP_ENTRY_MESSAGE))
    origin_name = j.required_text(node, n.SNAP_ENTRY_ORIGIN)
    origin = _ORIGINS.get(origin_name)
    if origin is None:
        raise SnapshotCodecError(f"Unknown log entry origin: {clip(origin_name)}")
    if seq < 0:
        raise j.MalformedError(f"seq cannot be negative, got: {seq}")
    return LogEntry(seq=seq, origin=origin, message=message)


def _decode_rewind_point(node: dict[str, Any], position: int) -> RewindPoint | None:
    """The rewind point at ``position``, or ``None`` when its input cannot be replayed (not retryable)."""
    user_input = node.get(n.SNAP_REWIND_USER_INPUT)
    if not isinstance(user_input, dict):
        log.debug("Rewind point carries no readable user input; treating the turn as not retryable")
        return None
    try:
        return RewindPoint(
            seq=position,
            user_input=user_input_codec.decode(user_input),
            submit_options=submit_options_codec.decode(node.get(n.SNAP_REWIND_SUBMIT_OPTIONS)),
        )
    except CodecError as exc:
        log.debug(
            "Rewind point holds a user input this build cannot replay (%s); treating the turn as not retryable",
            exc,
        )
        return None


def _decode_view_state(node: object) -> ViewState:
    if node is None:
        return EMPTY_VIEW_STATE
    if not isinstance(node, dict):
        raise SnapshotCodecError("viewState is not a JSON object")
    span_node = node.get(n.SNAP_VIEW_SUMMARY_SPAN)
    span = None
    if span_node is not None:
        tools = tuple(j.as_text(t) for t in j.array(span_node, n.SNAP_SPAN_DISCOVERED_TOOL_NAMES))
        span = SummarySpan(
            from_seq=j.required_long(span_node, n.SNAP_SPAN_FROM_SEQ),
            to_seq=j.required_long(span_node, n.SNAP_SPAN_TO_SEQ),
            summary_text=j.required_text(span_node, n.SNAP_SPAN_SUMMARY_TEXT),
            boundary_id=j.required_text(span_node, n.SNAP_SPAN_BOUNDARY_ID),
            trigger=j.required_text(span_node, n.SNAP_SPAN_TRIGGER),
            pre_token_count=j.as_int(j.field(span_node, n.SNAP_SPAN_PRE_TOKEN_COUNT), 0),
            messages_summarized=j.as_int(j.field(span_node, n.SNAP_SPAN_MESSAGES_SUMMARIZED), 0),
            discovered_tool_names=tools,
        )
    ranges = tuple(
        SeqRange(from_seq=j.required_long(r, n.SNAP_RANGE_FROM_SEQ), to_seq=j.required_long(r, n.SNAP_RANGE_TO_SEQ))
        for r in j.array(node, n.SNAP_VIEW_DROPPED_RANGES)
    )
    elisions = tuple(
        Elision(
            seq=j.required_long(e, n.SNAP_ELISION_SEQ),
            placeholder=j.required_text(e, n.SNAP_ELISION_PLACEHOLDER),
        )
        for e in j.array(node, n.SNAP_VIEW_ELISIONS)
    )
    return ViewState(summary_span=span, dropped_ranges=ranges, elisions=elisions)


def _decode_manifest(node: object) -> tuple[ManifestEntry, ...]:
    if node is None:
        return ()
    if not isinstance(node, list):
        raise SnapshotCodecError("manifest is not a JSON array")
    lines = []
    for line in node:
        if not isinstance(line, dict):
            raise SnapshotCodecError("Manifest line is not a JSON object")
        lines.append(
            ManifestEntry(
                from_seq=j.required_long(line, n.SNAP_MANIFEST_FROM_SEQ),
                to_seq=j.required_long(line, n.SNAP_MANIFEST_TO_SEQ),
                segment_id=j.required_text(line, n.SNAP_MANIFEST_SEGMENT_ID),
                content_hash=j.required_text(line, n.SNAP_MANIFEST_CONTENT_HASH),
                entry_count=j.required_long(line, n.SNAP_MANIFEST_ENTRY_COUNT),
            )
        )
    return tuple(lines)
