"""The snapshot codec's fast path: whole documents read and written by pydantic-core, no Python per field.

Reading validates the JSON text in one call against the stored shape (``_V1In`` / ``_V2In``), building
the frozen message models directly (their fields answer to the stored camel-case names), and in version 2
the log entries too (an entry without its ``origin``, which the model defaults, is left to the careful
reader, which refuses it: :func:`~aimon_mongo.snapshots.codec.from_fast_document`). It is strict
and closed: a value the reference would read leniently (a number where text is expected, ``"true"`` for
a boolean, an unknown key, an image block, a non-array where an array may be) makes it give up, and the
codec then reads the document the careful way, with every tolerance and every refusal message of
:mod:`aimon_mongo.snapshots.codec`. So whatever this path accepts, the careful path reads identically.

Writing serialises the document the codec assembled (messages as models) with the stored names; the
models' only serialisation callbacks are builtins (no Python frame per field). Numbers that are not
integers can only stand in a tool's input and in the rewind point: a tool input holding one (found by one
plain loop before the dump) sends the codec back to the careful writer (which writes Python's spelling of
floats and refuses NaN and infinities), and the rewind point, always the last key, is written by that
writer and spliced in.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from operator import attrgetter
from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, JsonValue, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from aimon_mongo import names as n
from aimon_mongo.snapshots import _json as j
from aimon_mongo.snapshots.message import WIRE_CONTEXT, Message
from aimon_mongo.snapshots.model import LogEntry


class _V1In(TypedDict):
    version: Literal[1]
    conversationId: str
    systemPrompt: NotRequired[str | None]
    messages: NotRequired[list[Message]]
    rewindPoint: NotRequired[JsonValue]


class _V2In(TypedDict):
    version: Literal[2]
    conversationId: str
    systemPrompt: NotRequired[str | None]
    nextSeq: int
    floorSeq: int
    entries: NotRequired[list[LogEntry]]  # its stored keys are its field names
    viewState: NotRequired[JsonValue]
    manifest: NotRequired[JsonValue]
    rewindPoint: NotRequired[JsonValue]


class _EnvelopeIn(TypedDict):
    v: Literal[1]
    subagentName: str
    contextId: NotRequired[JsonValue]
    snapshot: Annotated[_V1In | _V2In, Field(discriminator="version")]


class _V1Out(TypedDict):  # keys in write order (then the rewind point)
    version: int
    conversationId: str
    systemPrompt: str | None
    messages: list[Message]


class _V2Out(TypedDict):  # keys in write order
    version: int
    conversationId: str
    systemPrompt: str | None
    nextSeq: int
    floorSeq: int
    entries: list[LogEntry]
    viewState: NotRequired[JsonValue]
    manifest: NotRequired[JsonValue]


_READ: TypeAdapter[_V1In | _V2In] = TypeAdapter(Annotated[_V1In | _V2In, Field(discriminator="version")])
_READ_ENVELOPE: TypeAdapter[_EnvelopeIn] = TypeAdapter(_EnvelopeIn)
_WRITE: dict[int, TypeAdapter[Any]] = {1: TypeAdapter(_V1Out), 2: TypeAdapter(_V2Out)}


def read_document(text: str | bytes) -> dict[str, Any] | None:
    """The document validated against its stored shape, or ``None`` when only the careful reader may say
    what it holds (anything lenient, unusual or wrong)."""
    try:
        document = _READ.validate_json(text, strict=True, by_alias=True, by_name=False, context=WIRE_CONTEXT)
    except (ValidationError, ValueError, RecursionError):
        return None
    return dict(document)


def read_envelope(data: bytes) -> dict[str, Any] | None:
    """A snapshot store's envelope validated whole (its ``snapshot`` as :func:`read_document` validates
    it), or ``None`` when only the careful reader may say what it holds."""
    try:
        envelope = _READ_ENVELOPE.validate_json(data, strict=True, by_alias=True, by_name=False, context=WIRE_CONTEXT)
    except (ValidationError, ValueError, RecursionError):
        return None
    return {**envelope, n.SNAP_ENV_SNAPSHOT: dict(envelope[n.SNAP_ENV_SNAPSHOT])}


def write_document(root: dict[str, Any], entries: Iterable[LogEntry]) -> str | None:
    """Compact JSON of an assembled document (messages as models) holding ``entries``' messages, or ``None``
    when the careful writer must write it (a tool input holding a non-integer number, a rewind point it
    refuses)."""
    if _tool_inputs_hold_floats(entries):
        return None
    body = {key: value for key, value in root.items() if key != n.SNAP_DOC_REWIND_POINT}
    try:
        data = _WRITE[root[n.SNAP_DOC_VERSION]].dump_json(body, by_alias=True, context=WIRE_CONTEXT)
        point = root.get(n.SNAP_DOC_REWIND_POINT)
        tail = "" if point is None else f",{j.dumps(n.SNAP_DOC_REWIND_POINT)}:{j.dumps(point)}"
    except (ValueError, TypeError, RecursionError):
        return None
    text = data.decode("utf-8")
    return j.jackson_escapes(f"{text[:-1]}{tail}}}" if tail else text)


def _tool_inputs_hold_floats(entries: Iterable[LogEntry]) -> bool:
    """True when a tool input of the entries' messages holds a non-integer number (pydantic-core would
    spell it differently from the careful writer, and write NaN as ``null``). One pass before the dump,
    rather than a serializer callback per tool call inside it; the walk to the inputs runs in C."""
    inputs = map(_INPUT, chain.from_iterable(map(_TOOL_USES, entries)))
    return any(map(_holds_float, inputs))


_TOOL_USES = attrgetter("message.tool_uses")
_INPUT = attrgetter("input")
_PLAIN_KINDS = frozenset({str, int, bool, type(None)})
"""The types of JSON values that hold no float: a container of only these needs no closer look."""


def _holds_float(value: dict[str, Any] | list[Any]) -> bool:
    items = value.values() if isinstance(value, dict) else value
    if set(map(type, items)) <= _PLAIN_KINDS:
        return False
    return any(isinstance(item, float) or (isinstance(item, dict | list) and _holds_float(item)) for item in items)
