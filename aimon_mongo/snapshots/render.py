"""A readable, deterministic plain-text rendering of a transcript.

:func:`render` gives the text; :func:`render_lines` gives the same lines tagged with a :class:`LineKind`
so a terminal front end (the CLI) can colour them without parsing. Nothing here depends on time, locale
or dictionary order beyond the snapshot's own order, so a golden test can compare the output verbatim.
Reasoning traces are opaque provider records: only the provider and the payload size are shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from enum import StrEnum
from typing import NamedTuple

from aimon_mongo.snapshots.message import (
    Artifact,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ToolResult,
    ToolUse,
)
from aimon_mongo.snapshots.model import LogEntry, LogOrigin, RewindPoint, SessionSnapshot, ViewState

INDENT = "    "
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")


class LineKind(StrEnum):
    """What a rendered line shows (for colouring)."""

    HEADER = "header"
    ROLE = "role"
    TEXT = "text"
    MEDIA = "media"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    TOOL_ERROR = "tool_error"
    ARTIFACT = "artifact"
    REASONING = "reasoning"
    VIEW = "view"
    REWIND = "rewind"


class RenderLine(NamedTuple):
    kind: LineKind
    text: str


def render(snapshot: SessionSnapshot) -> str:
    """The transcript as plain text, one line per ``\\n``, ending with a newline."""
    return "".join(line.text + "\n" for line in render_lines(snapshot))


def render_lines(snapshot: SessionSnapshot) -> Iterator[RenderLine]:
    """The lines of :func:`render`, each tagged with its kind."""
    for line in _lines(snapshot):
        yield RenderLine(line.kind, _visible(line.text))


def _lines(snapshot: SessionSnapshot) -> Iterator[RenderLine]:
    yield RenderLine(LineKind.HEADER, f"session {snapshot.session_id}")
    yield RenderLine(
        LineKind.HEADER,
        f"format v{snapshot.format.wire_version}, {_count(snapshot.message_count, 'message')} carried, "
        f"seqs [{snapshot.floor_seq}, {snapshot.next_seq})",
    )
    if snapshot.system_prompt is None:
        yield RenderLine(LineKind.HEADER, "system prompt: (none)")
    else:
        yield RenderLine(LineKind.HEADER, "system prompt:")
        yield from _block_text(LineKind.TEXT, snapshot.system_prompt, INDENT)
    yield from _view(snapshot.view_state)
    for line in snapshot.manifest:
        yield RenderLine(
            LineKind.VIEW,
            f"sealed seqs {line.range_text} in segment {line.segment_id} "
            f"({_count(line.entry_count, 'entry', 'entries')})",
        )
    for entry in snapshot.entries:
        yield from _entry(entry)
    if snapshot.rewind_point is not None:
        yield from _rewind(snapshot, snapshot.rewind_point)


def _entry(entry: LogEntry) -> Iterator[RenderLine]:
    message = entry.message
    origin = " (synthetic)" if entry.origin is LogOrigin.SYNTHETIC else ""
    yield RenderLine(LineKind.ROLE, f"#{entry.seq} {message.role.value}{origin}")
    if _is_empty(message):
        yield RenderLine(LineKind.TEXT, INDENT + "(empty)")
    for block in message.content:
        yield from _content(block)
    for use in message.tool_uses:
        yield _tool_use(use)
    for result in message.tool_results:
        yield from _tool_result(result)
    for artifact in message.artifacts:
        yield RenderLine(LineKind.ARTIFACT, INDENT + _artifact(artifact))
    for trace in message.reasoning:
        tool = f", tool {trace.tool_use_id}" if trace.tool_use_id is not None else ""
        yield RenderLine(
            LineKind.REASONING,
            f"{INDENT}reasoning from {trace.provider} ({_count(len(trace.payload), 'char')}{tool})",
        )


def _is_empty(message: Message) -> bool:
    return not (message.content or message.tool_uses or message.tool_results or message.artifacts or message.reasoning)


def _content(block: ContentBlock) -> Iterator[RenderLine]:
    if isinstance(block, TextBlock):
        yield from _block_text(LineKind.TEXT, block.text, INDENT)
    elif isinstance(block, ImageBlock):
        where = _count(len(block.data), "byte") if block.data is not None else f"url {block.url}"
        yield RenderLine(LineKind.MEDIA, f"{INDENT}[image {block.mime_type}, {where}]")
    elif isinstance(block, DocumentBlock):
        name = f" {json.dumps(block.file_name, ensure_ascii=False)}" if block.file_name is not None else ""
        yield RenderLine(
            LineKind.MEDIA, f"{INDENT}[document {block.mime_type}{name}, {_count(len(block.data), 'byte')}]"
        )


def _tool_use(use: ToolUse) -> RenderLine:
    arguments = json.dumps(use.input, ensure_ascii=False, separators=(",", ":"))
    return RenderLine(LineKind.TOOL_CALL, f"{INDENT}-> tool call {use.name} [{use.id}] {arguments}")


def _tool_result(result: ToolResult) -> Iterator[RenderLine]:
    kind = LineKind.TOOL_ERROR if result.is_error else LineKind.TOOL_RESULT
    flag = " (error)" if result.is_error else ""
    yield RenderLine(kind, f"{INDENT}<- tool result [{result.tool_use_id}]{flag}")
    yield from _block_text(kind, result.content, INDENT * 2)


def _artifact(artifact: Artifact) -> str:
    details = [artifact.file_name, _count(artifact.size, "byte")]
    if artifact.mime_type is not None:
        details.append(artifact.mime_type)
    if artifact.tool_use_id is not None:
        details.append(f"tool {artifact.tool_use_id}")
    return f"artifact {artifact.path} ({', '.join(details)})"


def _view(view: ViewState) -> Iterator[RenderLine]:
    span = view.summary_span
    if span is not None:
        yield RenderLine(
            LineKind.VIEW,
            f"summary of seqs [{span.from_seq}, {span.to_seq}) (boundary {span.boundary_id}, trigger "
            f"{span.trigger}, {_count(span.messages_summarized, 'message')} summarized):",
        )
        yield from _block_text(LineKind.VIEW, span.summary_text, INDENT)
    for rng in view.dropped_ranges:
        yield RenderLine(LineKind.VIEW, f"dropped seqs {rng}")
    for elision in view.elisions:
        yield RenderLine(LineKind.VIEW, f"elided seq {elision.seq}: {elision.placeholder}")


def _rewind(snapshot: SessionSnapshot, point: RewindPoint) -> Iterator[RenderLine]:
    position = snapshot.count_before(point.seq)
    yield RenderLine(
        LineKind.REWIND,
        f"rewind point before seq {point.seq} (after {_count(position, 'carried message')}), user input:",
    )
    yield from _block_text(LineKind.REWIND, point.user_input.as_text(), INDENT)
    if not point.submit_options.is_empty():
        yield RenderLine(LineKind.REWIND, f"{INDENT}(submitted with options)")


def _block_text(kind: LineKind, text: str, indent: str) -> Iterator[RenderLine]:
    for line in text.split("\n") if text else ("",):
        yield RenderLine(kind, indent + line)


def _visible(text: str) -> str:
    """Control characters other than tab (line breaks inside one-line fields too) shown as ``\\uXXXX``,
    so stored text cannot drive a terminal."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _count(value: int, singular: str, plural: str | None = None) -> str:
    return f"{value} {singular if value == 1 else (plural or singular + 's')}"
