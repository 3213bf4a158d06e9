"""The refused / tolerated matrix of the snapshot decoder (fact sheet B.5), one case per line and field.

Each case mutates a valid base document (version 1 or 2) at one path and asserts either the exact
refusal message or the value that loaded.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from aimon_mongo.errors import CodecError, SnapshotCodecError
from aimon_mongo.model import SubmitOptions, TextInput
from aimon_mongo.snapshots import (
    Artifact,
    JsonSessionSnapshotCodec,
    ReasoningTrace,
    SessionSnapshot,
    TextBlock,
    ToolResult,
)


def _v1() -> dict[str, Any]:
    return {
        "version": 1,
        "conversationId": "s-1",
        "systemPrompt": "sys",
        "messages": [
            {
                "role": "USER",
                "content": [
                    {"type": "text", "text": "hi"},
                    {"type": "image", "mimeType": "image/png", "source": "base64", "data": "AAEC"},
                    {"type": "image", "mimeType": "image/png", "source": "url", "url": "https://x/y.png"},
                    {"type": "document", "mimeType": "application/pdf", "data": "AAEC", "fileName": "a.pdf"},
                ],
            },
            {
                "role": "ASSISTANT",
                "content": [],
                "toolUses": [{"id": "t1", "name": "read", "input": {"p": 1}}],
                "reasoning": [{"provider": "anthropic", "payload": "sig", "toolUseId": "t1"}],
            },
            {
                "role": "TOOL",
                "content": [],
                "toolResults": [{"toolUseId": "t1", "content": "ok", "isError": True}],
                "artifacts": [
                    {
                        "path": "/a",
                        "fileName": "a",
                        "size": 3,
                        "mimeType": "text/plain",
                        "toolUseId": "t1",
                        "downloadToken": "d",
                    }
                ],
            },
        ],
        "rewindPoint": {
            "messageCount": 2,
            "userInput": {"type": "text", "text": "again"},
            "submitOptions": {"executionAttributes": {"k": "v"}},
        },
    }


def _v2() -> dict[str, Any]:
    return {
        "version": 2,
        "conversationId": "s-2",
        "systemPrompt": None,
        "nextSeq": 6,
        "floorSeq": 1,
        "entries": [
            {"seq": 3, "origin": "CONVERSATION", "message": {"role": "USER", "content": []}},
            {"seq": 4, "origin": "SYNTHETIC", "message": {"role": "USER", "content": []}},
        ],
        "viewState": {
            "summarySpan": {
                "fromSeq": 1,
                "toSeq": 3,
                "summaryText": "sum",
                "boundaryId": "b",
                "trigger": "AUTO",
                "preTokenCount": 10,
                "messagesSummarized": 2,
                "discoveredToolNames": ["grep"],
            },
            "droppedRanges": [{"fromSeq": 5, "toSeq": 6}],
            "elisions": [{"seq": 4, "placeholder": "[x]"}],
        },
        "manifest": [{"fromSeq": 1, "toSeq": 3, "segmentId": "seg", "contentHash": "sha256:00", "entryCount": 2}],
        "rewindPoint": {"seq": 4, "userInput": {"type": "text", "text": "again"}},
    }


DELETE = object()
BASES = {1: _v1, 2: _v2}
Check = Callable[[SessionSnapshot], None]


@dataclass(frozen=True)
class Case:
    id: str
    version: int
    path: tuple[str | int, ...]
    value: object
    expect: str | Check  # refusal message, or a check of what loaded


def _document(case: Case) -> str:
    doc = BASES[case.version]()
    if case.path:
        parent: Any = doc
        for key in case.path[:-1]:
            parent = parent[key]
        if case.value is DELETE:
            del parent[case.path[-1]]
        else:
            parent[case.path[-1]] = copy.deepcopy(case.value)
    else:
        doc = case.value  # type: ignore[assignment]
    return json.dumps(doc)


def missing_text(field: str) -> str:
    return f"Missing or non-textual field '{field}'"


def missing_long(field: str) -> str:
    return f"Missing or non-integral field '{field}'"


M = ("messages",)
C0 = ("messages", 0, "content")
E = ("entries",)
VS = ("viewState",)
SPAN = ("viewState", "summarySpan")

# --- Refused -----------------------------------------------------------------------------------------
REFUSED = [
    # not a JSON object
    Case("root-array", 1, (), [1, 2], "Encoded snapshot is not a JSON object"),
    Case("root-string", 1, (), "text", "Encoded snapshot is not a JSON object"),
    Case("root-null", 1, (), None, "Encoded snapshot is not a JSON object"),
    # version not 1 or 2
    Case("version-3", 1, ("version",), 3, "Unsupported session snapshot format version: 3 (expected 1 or 2)"),
    Case("version-0", 1, ("version",), 0, "Unsupported session snapshot format version: 0 (expected 1 or 2)"),
    Case(
        "version-missing",
        1,
        ("version",),
        DELETE,
        "Unsupported session snapshot format version: -1 (expected 1 or 2)",
    ),
    Case(
        "version-word",
        1,
        ("version",),
        "one",
        "Unsupported session snapshot format version: -1 (expected 1 or 2)",
    ),
    # missing or non-scalar required text
    Case("conversationId-missing", 1, ("conversationId",), DELETE, missing_text("conversationId")),
    Case("conversationId-null", 2, ("conversationId",), None, missing_text("conversationId")),
    Case("conversationId-object", 1, ("conversationId",), {"v": "s"}, missing_text("conversationId")),
    Case("role-missing", 1, (*M, 0, "role"), DELETE, missing_text("role")),
    Case("role-array", 2, (*E, 0, "message", "role"), ["USER"], missing_text("role")),
    Case("block-type-missing", 1, (*C0, 0, "type"), DELETE, missing_text("type")),
    Case("text-block-text-missing", 1, (*C0, 0, "text"), DELETE, missing_text("text")),
    Case("text-block-text-null", 1, (*C0, 0, "text"), None, missing_text("text")),
    Case("image-mimeType-missing", 1, (*C0, 1, "mimeType"), DELETE, missing_text("mimeType")),
    Case("image-source-missing", 1, (*C0, 1, "source"), DELETE, missing_text("source")),
    Case("image-data-missing", 1, (*C0, 1, "data"), DELETE, missing_text("data")),
    Case("image-url-missing", 1, (*C0, 2, "url"), DELETE, missing_text("url")),
    Case("document-mimeType-missing", 1, (*C0, 3, "mimeType"), DELETE, missing_text("mimeType")),
    Case("document-data-missing", 1, (*C0, 3, "data"), DELETE, missing_text("data")),
    Case("tool-id-missing", 1, (*M, 1, "toolUses", 0, "id"), DELETE, missing_text("id")),
    Case("tool-name-missing", 1, (*M, 1, "toolUses", 0, "name"), DELETE, missing_text("name")),
    Case("tool-entry-not-object", 1, (*M, 1, "toolUses", 0), "t1", missing_text("id")),
    Case(
        "result-toolUseId-missing",
        1,
        (*M, 2, "toolResults", 0, "toolUseId"),
        DELETE,
        missing_text("toolUseId"),
    ),
    Case("result-content-missing", 1, (*M, 2, "toolResults", 0, "content"), DELETE, missing_text("content")),
    Case("result-content-object", 1, (*M, 2, "toolResults", 0, "content"), {"a": 1}, missing_text("content")),
    Case("artifact-path-missing", 1, (*M, 2, "artifacts", 0, "path"), DELETE, missing_text("path")),
    Case("artifact-fileName-missing", 1, (*M, 2, "artifacts", 0, "fileName"), DELETE, missing_text("fileName")),
    Case("reasoning-provider-missing", 1, (*M, 1, "reasoning", 0, "provider"), DELETE, missing_text("provider")),
    Case("reasoning-payload-missing", 1, (*M, 1, "reasoning", 0, "payload"), DELETE, missing_text("payload")),
    Case("origin-missing", 2, (*E, 0, "origin"), DELETE, missing_text("origin")),
    Case("manifest-segmentId-missing", 2, ("manifest", 0, "segmentId"), DELETE, missing_text("segmentId")),
    Case("manifest-contentHash-missing", 2, ("manifest", 0, "contentHash"), DELETE, missing_text("contentHash")),
    Case("span-summaryText-missing", 2, (*SPAN, "summaryText"), DELETE, missing_text("summaryText")),
    Case("span-boundaryId-missing", 2, (*SPAN, "boundaryId"), DELETE, missing_text("boundaryId")),
    Case("span-trigger-missing", 2, (*SPAN, "trigger"), DELETE, missing_text("trigger")),
    Case(
        "elision-placeholder-missing",
        2,
        (*VS, "elisions", 0, "placeholder"),
        DELETE,
        missing_text("placeholder"),
    ),
    # v2 integers missing or non-integral
    Case("nextSeq-missing", 2, ("nextSeq",), DELETE, missing_long("nextSeq")),
    Case("nextSeq-text", 2, ("nextSeq",), "6", missing_long("nextSeq")),
    Case("floorSeq-missing", 2, ("floorSeq",), DELETE, missing_long("floorSeq")),
    Case("floorSeq-fraction", 2, ("floorSeq",), 1.5, missing_long("floorSeq")),
    Case("floorSeq-boolean", 2, ("floorSeq",), True, missing_long("floorSeq")),
    Case("floorSeq-beyond-long", 2, ("floorSeq",), 2**63, missing_long("floorSeq")),
    Case("entry-seq-missing", 2, (*E, 0, "seq"), DELETE, missing_long("seq")),
    Case("entry-seq-float", 2, (*E, 0, "seq"), 3.0, missing_long("seq")),
    Case("range-fromSeq-missing", 2, (*VS, "droppedRanges", 0, "fromSeq"), DELETE, missing_long("fromSeq")),
    Case("range-toSeq-missing", 2, (*VS, "droppedRanges", 0, "toSeq"), DELETE, missing_long("toSeq")),
    Case("range-not-object", 2, (*VS, "droppedRanges", 0), [5, 6], missing_long("fromSeq")),
    Case("span-fromSeq-missing", 2, (*SPAN, "fromSeq"), DELETE, missing_long("fromSeq")),
    Case("span-toSeq-text", 2, (*SPAN, "toSeq"), "3", missing_long("toSeq")),
    Case("manifest-fromSeq-missing", 2, ("manifest", 0, "fromSeq"), DELETE, missing_long("fromSeq")),
    Case("manifest-toSeq-missing", 2, ("manifest", 0, "toSeq"), DELETE, missing_long("toSeq")),
    Case("manifest-entryCount-missing", 2, ("manifest", 0, "entryCount"), DELETE, missing_long("entryCount")),
    Case("elision-seq-missing", 2, (*VS, "elisions", 0, "seq"), DELETE, missing_long("seq")),
    # not an object / not an array
    Case("message-not-object", 1, (*M, 0), "USER: hi", "Message entry is not a JSON object"),
    Case("entry-message-missing", 2, (*E, 0, "message"), DELETE, "Message entry is not a JSON object"),
    Case("content-block-not-object", 1, (*C0, 0), "hi", "Content block entry is not a JSON object"),
    Case("log-entry-not-object", 2, (*E, 0), 3, "Log entry is not a JSON object"),
    Case("manifest-line-not-object", 2, ("manifest", 0), "seg", "Manifest line is not a JSON object"),
    Case(
        "reasoning-not-object",
        1,
        (*M, 1, "reasoning", 0),
        "sig",
        "Reasoning trace entry is not a JSON object",
    ),
    Case("manifest-not-array", 2, ("manifest",), {"fromSeq": 1}, "manifest is not a JSON array"),
    Case("viewState-not-object", 2, VS, [], "viewState is not a JSON object"),
    # unknown names, invalid base64
    Case("role-unknown", 1, (*M, 0, "role"), "SYSTEM", "Unknown message role: SYSTEM"),
    Case("role-lowercase", 1, (*M, 0, "role"), "user", "Unknown message role: user"),
    Case("block-type-unknown", 1, (*C0, 0, "type"), "video", "Unknown content block type: video"),
    Case("image-source-unknown", 1, (*C0, 1, "source"), "file", "Unknown image source: file"),
    Case("origin-unknown", 2, (*E, 0, "origin"), "MEMORY", "Unknown log entry origin: MEMORY"),
    Case(
        "image-base64-invalid",
        1,
        (*C0, 1, "data"),
        "AA*C",
        "Invalid base64 payload: field 'data' holds a non-base64 character",
    ),
    Case(
        "document-base64-truncated",
        1,
        (*C0, 3, "data"),
        "AAECA",
        "Invalid base64 payload: field 'data' has an incomplete final unit",
    ),
    # rewind positions
    Case(
        "v1-rewind-count-negative",
        1,
        ("rewindPoint", "messageCount"),
        -1,
        "Rewind point keeps -1 of 3 messages, which is not a position in this transcript",
    ),
    Case(
        "v1-rewind-count-past-end",
        1,
        ("rewindPoint", "messageCount"),
        4,
        "Rewind point keeps 4 of 3 messages, which is not a position in this transcript",
    ),
    Case(
        "v1-rewind-count-missing-even-without-input",
        1,
        ("rewindPoint",),
        {"submitOptions": {}},
        "Rewind point keeps -1 of 3 messages, which is not a position in this transcript",
    ),
    Case(
        "v2-rewind-seq-below-floor",
        2,
        ("rewindPoint", "seq"),
        0,
        "Rewind point seq 0 lies outside [floorSeq=1, nextSeq=6]",
    ),
    Case(
        "v2-rewind-seq-past-next",
        2,
        ("rewindPoint", "seq"),
        7,
        "Rewind point seq 7 lies outside [floorSeq=1, nextSeq=6]",
    ),
    # anything else is wrapped
    Case(
        "tool-input-array",
        1,
        (*M, 1, "toolUses", 0, "input"),
        [1, 2],
        "Failed to decode session snapshot: tool input 'input' is not a JSON object",
    ),
    Case(
        "conversationId-blank",
        1,
        ("conversationId",),
        "  ",
        "Failed to decode session snapshot: field 'conversationId' is blank",
    ),
    Case(
        "entry-seq-negative",
        2,
        (*E, 0, "seq"),
        -3,
        "Failed to decode session snapshot: seq cannot be negative, got: -3",
    ),
]


@pytest.mark.parametrize("case", REFUSED, ids=lambda c: c.id)
def test_refused(case: Case) -> None:
    assert isinstance(case.expect, str)
    with pytest.raises(SnapshotCodecError) as info:
        JsonSessionSnapshotCodec().decode(_document(case))
    assert str(info.value) == case.expect
    assert isinstance(info.value, CodecError)


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("", "Encoded snapshot is not a JSON object"),
        ("   ", "Encoded snapshot is not a JSON object"),
        (
            '{"version":1,',
            "Failed to decode session snapshot: not valid JSON (Expecting property name "
            "enclosed in double quotes at position 13)",
        ),
        ('{"version":NaN}', "Failed to decode session snapshot: non-standard number literal NaN"),
    ],
    ids=["empty", "blank", "truncated", "nan"],
)
def test_refused_text(text: str, expect: str) -> None:
    with pytest.raises(SnapshotCodecError) as info:
        JsonSessionSnapshotCodec().decode(text)
    assert str(info.value) == expect


def test_unknown_tags_are_clipped_in_messages() -> None:
    doc = _v1()
    doc["messages"][0]["content"][0] = {"type": "long tag " * 10}
    with pytest.raises(SnapshotCodecError) as info:
        JsonSessionSnapshotCodec().decode(json.dumps(doc))
    assert str(info.value) == "Unknown content block type: long tag long tag long tag long tag long…"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ((*C0, 0, "text"), {"secret": "TOPSECRET"}),
        ((*C0, 1, "data"), "TOPSECRET*"),
        ((*M, 1, "toolUses", 0, "input"), ["TOPSECRET"]),
        ((*M, 2, "toolResults", 0, "content"), ["TOPSECRET"]),
        (("rewindPoint", "messageCount"), "TOPSECRET"),
    ],
)
def test_refusals_never_echo_payloads(path: tuple[str | int, ...], value: object) -> None:
    with pytest.raises(SnapshotCodecError) as info:
        JsonSessionSnapshotCodec().decode(_document(Case("x", 1, path, value, "")))
    assert "TOPSECRET" not in str(info.value)


# --- Tolerated ---------------------------------------------------------------------------------------


def _messages_equal(index: int, **expected: object) -> Check:
    def check(snapshot: SessionSnapshot) -> None:
        message = snapshot.messages[index]
        for attr, value in expected.items():
            assert getattr(message, attr) == value, attr

    return check


def _loaded(**expected: object) -> Check:
    def check(snapshot: SessionSnapshot) -> None:
        for attr, value in expected.items():
            assert getattr(snapshot, attr) == value, attr

    return check


def _no_rewind(snapshot: SessionSnapshot) -> None:
    assert snapshot.rewind_point is None
    assert snapshot.message_count in (2, 3)


def _span(**expected: object) -> Check:
    def check(snapshot: SessionSnapshot) -> None:
        span = snapshot.view_state.summary_span
        assert span is not None
        for attr, value in expected.items():
            assert getattr(span, attr) == value, attr

    return check


def _empty_view_and_manifest(snapshot: SessionSnapshot) -> None:
    assert snapshot.view_state.is_empty()
    assert snapshot.manifest == ()


def _input(snapshot: SessionSnapshot, expected: dict[str, Any]) -> None:
    assert snapshot.messages[1].tool_uses[0].input == expected


def _file_name(snapshot: SessionSnapshot, expected: str | None) -> None:
    block = snapshot.messages[0].content[3]
    assert getattr(block, "file_name", "?") == expected


def _is_error(snapshot: SessionSnapshot, expected: bool) -> None:
    assert snapshot.messages[2].tool_results[0].is_error is expected


def _first_text(expected: str) -> Check:
    def check(snapshot: SessionSnapshot) -> None:
        assert snapshot.messages[0].content[0] == TextBlock(text=expected)

    return check


def _rewind_options(snapshot: SessionSnapshot, expected: SubmitOptions) -> None:
    assert snapshot.rewind_point is not None
    assert snapshot.rewind_point.user_input == TextInput(text="again")
    assert snapshot.rewind_point.submit_options == expected


def _v2_without_view_or_manifest() -> dict[str, Any]:
    doc = _v2()
    del doc["viewState"], doc["manifest"]
    return doc


TOLERATED = [
    # unknown keys anywhere (and the retired compactionFailureCount)
    Case("unknown-top-level-key", 1, ("futureKey",), {"a": [1]}, _loaded(session_id="s-1")),
    Case("unknown-message-key", 1, (*M, 0, "cache"), True, _loaded(message_count=3)),
    Case("unknown-block-key", 1, (*C0, 0, "cacheControl"), {}, _first_text("hi")),
    Case("unknown-entry-key", 2, (*E, 0, "ts"), 1, _loaded(message_count=2)),
    Case("unknown-manifest-key", 2, ("manifest", 0, "x"), 1, _loaded(next_seq=6)),
    Case("unknown-viewState-key", 2, (*VS, "future"), [], _loaded(next_seq=6)),
    Case("unknown-rewind-key", 1, ("rewindPoint", "later"), 1, _loaded(rewind_message_count=2)),
    Case("compactionFailureCount", 1, ("compactionFailureCount",), 3, _loaded(session_id="s-1")),
    # absent / non-array arrays read as empty
    Case(
        "messages-absent",
        1,
        (),
        {"version": 1, "conversationId": "s", "systemPrompt": None},
        _loaded(entries=(), next_seq=0, rewind_point=None),
    ),
    Case(
        "messages-not-array",
        1,
        (),
        {"version": 1, "conversationId": "s", "messages": {"0": {}}},
        _loaded(entries=(), next_seq=0),
    ),
    Case("content-absent", 1, C0, DELETE, _messages_equal(0, content=())),
    Case("content-not-array", 1, C0, "hi", _messages_equal(0, content=())),
    Case("toolUses-absent", 1, (*M, 1, "toolUses"), DELETE, _messages_equal(1, tool_uses=())),
    Case("toolUses-null", 1, (*M, 1, "toolUses"), None, _messages_equal(1, tool_uses=())),
    Case("toolResults-absent", 1, (*M, 2, "toolResults"), DELETE, _messages_equal(2, tool_results=())),
    Case("artifacts-not-array", 1, (*M, 2, "artifacts"), {}, _messages_equal(2, artifacts=())),
    Case("reasoning-absent", 1, (*M, 1, "reasoning"), DELETE, _messages_equal(1, reasoning=())),
    Case("entries-absent", 2, (), _v2_without_view_or_manifest() | {"entries": None}, _loaded(entries=())),
    Case("entries-not-array", 2, E, "none", _loaded(entries=())),
    # summary span defaults
    Case("span-preTokenCount-absent", 2, (*SPAN, "preTokenCount"), DELETE, _span(pre_token_count=0)),
    Case(
        "span-messagesSummarized-absent",
        2,
        (*SPAN, "messagesSummarized"),
        DELETE,
        _span(messages_summarized=0),
    ),
    Case("span-toolNames-absent", 2, (*SPAN, "discoveredToolNames"), DELETE, _span(discovered_tool_names=())),
    Case("span-count-as-text", 2, (*SPAN, "preTokenCount"), "77", _span(pre_token_count=77)),
    # field defaults
    Case("tool-input-absent", 1, (*M, 1, "toolUses", 0, "input"), DELETE, lambda s: _input(s, {})),
    Case("tool-input-null", 1, (*M, 1, "toolUses", 0, "input"), None, lambda s: _input(s, {})),
    Case(
        "isError-absent",
        1,
        (*M, 2, "toolResults", 0, "isError"),
        DELETE,
        _messages_equal(2, tool_results=(ToolResult(tool_use_id="t1", content="ok"),)),
    ),
    Case(
        "artifact-size-absent",
        1,
        (*M, 2, "artifacts", 0),
        {"path": "/a", "fileName": "a"},
        _messages_equal(2, artifacts=(Artifact(path="/a", file_name="a", size=0),)),
    ),
    Case(
        "artifact-optionals-null",
        1,
        (*M, 2, "artifacts", 0),
        {
            "path": "/a",
            "fileName": "a",
            "size": 3,
            "mimeType": None,
            "toolUseId": None,
            "downloadToken": None,
        },
        _messages_equal(2, artifacts=(Artifact(path="/a", file_name="a", size=3),)),
    ),
    Case(
        "reasoning-toolUseId-null",
        1,
        (*M, 1, "reasoning", 0, "toolUseId"),
        None,
        _messages_equal(1, reasoning=(ReasoningTrace(provider="anthropic", payload="sig"),)),
    ),
    Case("document-fileName-null", 1, (*C0, 3, "fileName"), None, lambda s: _file_name(s, None)),
    Case("systemPrompt-null", 1, ("systemPrompt",), None, _loaded(system_prompt=None)),
    Case("systemPrompt-absent", 2, ("systemPrompt",), DELETE, _loaded(system_prompt=None)),
    Case("viewState-and-manifest-absent", 2, (), _v2_without_view_or_manifest(), _empty_view_and_manifest),
    Case(
        "viewState-and-manifest-null",
        2,
        (),
        _v2_without_view_or_manifest() | {"viewState": None, "manifest": None},
        _empty_view_and_manifest,
    ),
    # a rewind point whose input cannot be replayed is dropped; the document still loads
    Case("rewind-userInput-missing", 1, ("rewindPoint", "userInput"), DELETE, _no_rewind),
    Case("rewind-userInput-not-object", 2, ("rewindPoint", "userInput"), "again", _no_rewind),
    Case("rewind-userInput-unknown-type", 1, ("rewindPoint", "userInput"), {"type": "video"}, _no_rewind),
    Case(
        "rewind-userInput-wrong-mime",
        2,
        ("rewindPoint", "userInput"),
        {"type": "image", "mimeType": "video/mp4", "data": "AAEC"},
        _no_rewind,
    ),
    Case(
        "rewind-submitOptions-undecodable",
        1,
        ("rewindPoint", "submitOptions"),
        {"principal": {"type": "ROBOT", "id": "r", "displayName": "R"}},
        _no_rewind,
    ),
    Case("rewind-not-object", 1, ("rewindPoint",), "later", _no_rewind),
    Case(
        "rewind-submitOptions-not-object",
        1,
        ("rewindPoint", "submitOptions"),
        "none",
        lambda s: _rewind_options(s, SubmitOptions.empty()),
    ),
    # Jackson's lenient scalar reads
    Case("conversationId-number", 1, ("conversationId",), 42, _loaded(session_id="42")),
    Case("conversationId-boolean", 1, ("conversationId",), True, _loaded(session_id="true")),
    Case("text-number", 1, (*C0, 0, "text"), 1.5, _first_text("1.5")),
    Case("text-large-double", 1, (*C0, 0, "text"), 1e20, _first_text("1.0E20")),
    Case("version-numeric-text", 1, ("version",), "1", _loaded(session_id="s-1")),
    Case("version-2-numeric-text", 2, ("version",), " 2 ", _loaded(session_id="s-2")),
    Case("isError-text", 1, (*M, 2, "toolResults", 0, "isError"), "true", lambda s: _is_error(s, True)),
    Case("isError-number", 1, (*M, 2, "toolResults", 0, "isError"), 0, lambda s: _is_error(s, False)),
    Case("v1-rewind-count-text", 1, ("rewindPoint", "messageCount"), "1", _loaded(rewind_message_count=1)),
    Case("systemPrompt-number", 1, ("systemPrompt",), 7, _loaded(system_prompt="7")),
]


@pytest.mark.parametrize("case", TOLERATED, ids=lambda c: c.id)
def test_tolerated(case: Case) -> None:
    assert callable(case.expect)
    case.expect(JsonSessionSnapshotCodec().decode(_document(case)))


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in REFUSED + TOLERATED]
    assert len(ids) == len(set(ids))


def test_the_base_documents_load_as_they_are() -> None:
    for version in BASES:
        snapshot = JsonSessionSnapshotCodec().decode(json.dumps(BASES[version]()))
        assert snapshot.rewind_point is not None
