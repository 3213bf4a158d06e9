"""Snapshot documents in the exact shape the reference writes them (B.5): they decode, and encoding the
decoded models gives the same bytes back. Every document here is a hand-written literal."""

from __future__ import annotations

import base64

import pytest

from aimon_mongo.model import (
    FileInput,
    LlmCallMetadata,
    MultimodalInput,
    Principal,
    PrincipalType,
    SubmitOptions,
    TextInput,
)
from aimon_mongo.snapshots import (
    Artifact,
    DocumentBlock,
    ImageBlock,
    JsonSessionSnapshotCodec,
    LogOrigin,
    ReasoningTrace,
    Role,
    SessionLogFormat,
    TextBlock,
    ToolResult,
    ToolUse,
)

# --- version 1: every message feature, a rewind point with a multimodal input and submit options ---
M0 = (
    r'{"role":"USER","content":[{"type":"text","text":"Review the attached diagram — grüße"},'
    r'{"type":"image","mimeType":"image/png","source":"base64","data":"iVBORw0KGgo="},'
    r'{"type":"document","mimeType":"application/pdf","data":"JVBERi0xLjQ=","fileName":"spec.pdf"}]}'
)
M1 = (
    r'{"role":"ASSISTANT","content":[{"type":"text","text":"Let me open it."}],'
    r'"toolUses":[{"id":"toolu_01","name":"read_file","input":{"path":"/work/spec.pdf",'
    r'"range":{"from":1,"to":3},"flags":["a","b"],"strict":true,"note":null,"ratio":0.25}}],'
    r'"reasoning":[{"provider":"anthropic","payload":"opaque-signature-1","toolUseId":"toolu_01"},'
    r'{"provider":"openai","payload":"enc:xyz"}]}'
)
M2 = (
    r'{"role":"TOOL","content":[],"toolResults":[{"toolUseId":"toolu_01","content":"page 1\npage 2",'
    r'"isError":false},{"toolUseId":"toolu_02","content":"permission denied","isError":true}],'
    r'"artifacts":[{"path":"/out/diagram.png","fileName":"diagram.png","size":2048,"mimeType":"image/png",'
    r'"toolUseId":"toolu_01","downloadToken":"dl-123"},{"path":"/out/raw.bin","fileName":"raw.bin","size":0}]}'
)
M3 = (
    r'{"role":"ASSISTANT","content":[{"type":"image","mimeType":"image/jpeg","source":"url",'
    r'"url":"https://example.com/a.jpg"},{"type":"document","mimeType":"text/plain","data":"aGVsbG8="},'
    r'{"type":"text","text":"tab\there \"quoted\" back\\slash ctl\u001F"}]}'
)
M4 = r'{"role":"USER","content":[{"type":"text","text":"Now fix it."}]}'
MESSAGES = [M0, M1, M2, M3, M4]
USER_INPUT = (
    r'{"type":"multimodal","inputs":[{"type":"text","text":"Now fix it."},'
    r'{"type":"file","mimeType":"text/plain","fileName":"notes.txt","data":"bm90ZXM="}]}'
)
SUBMIT_OPTIONS = (
    r'{"principal":{"type":"USER","id":"u-42","displayName":"Ada"},"systemPromptVariables":{"tone":"formal"},'
    r'"llmCallMetadata":{"component":"reviewer","traceId":"tr-1","tags":{"team":"core"}}}'
)
HEAD = r'"conversationId":"sess-7f3a","systemPrompt":"You are a careful reviewer.\nAnswer in English."'
V1_DOC = (
    '{"version":1,' + HEAD + ',"messages":[' + ",".join(MESSAGES) + "],"
    '"rewindPoint":{"messageCount":4,"userInput":' + USER_INPUT + ',"submitOptions":' + SUBMIT_OPTIONS + "}}"
)
V1_AS_V2_DOC = (
    '{"version":2,'
    + HEAD
    + ',"nextSeq":5,"floorSeq":0,"entries":['
    + ",".join(f'{{"seq":{i},"origin":"CONVERSATION","message":{m}}}' for i, m in enumerate(MESSAGES))
    + '],"rewindPoint":{"seq":4,"userInput":'
    + USER_INPUT
    + ',"submitOptions":'
    + SUBMIT_OPTIONS
    + "}}"
)

# --- version 2: synthetic entries, summary span + dropped range + elision, one sealed segment ---
V2_DOC = (
    r'{"version":2,"conversationId":"sess-v2","systemPrompt":null,"nextSeq":12,"floorSeq":2,"entries":['
    r'{"seq":6,"origin":"SYNTHETIC","message":{"role":"USER","content":[{"type":"text",'
    r'"text":"<system-reminder>files changed</system-reminder>"}]}},'
    r'{"seq":7,"origin":"CONVERSATION","message":{"role":"USER","content":[{"type":"text","text":"Continue."}]}},'
    r'{"seq":8,"origin":"CONVERSATION","message":{"role":"ASSISTANT","content":[],'
    r'"toolUses":[{"id":"t8","name":"grep","input":{}}]}},'
    r'{"seq":9,"origin":"CONVERSATION","message":{"role":"TOOL","content":[],'
    r'"toolResults":[{"toolUseId":"t8","content":"match","isError":false}]}},'
    r'{"seq":10,"origin":"CONVERSATION","message":{"role":"TOOL","content":[],'
    r'"toolResults":[{"toolUseId":"t9","content":"long output","isError":false}]}},'
    r'{"seq":11,"origin":"CONVERSATION","message":{"role":"USER","content":[{"type":"text",'
    r'"text":"And now?"}]}}],'
    r'"viewState":{"summarySpan":{"fromSeq":2,"toSeq":6,"summaryText":"Earlier: set up the repo.",'
    r'"boundaryId":"b-01","trigger":"AUTO","preTokenCount":51234,"messagesSummarized":4,'
    r'"discoveredToolNames":["grep","read_file"]},"droppedRanges":[{"fromSeq":8,"toSeq":10}],'
    r'"elisions":[{"seq":10,"placeholder":"[elided]"}]},'
    r'"manifest":[{"fromSeq":2,"toSeq":6,"segmentId":"5f0c6c1e-2d7b-4c1a-9a53-0d7c0c1e2f3a",'
    r'"contentHash":"sha256:4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c","entryCount":3}],'
    r'"rewindPoint":{"seq":11,"userInput":{"type":"text","text":"And now?"}}}'
)
# version 2 with nothing left out and nothing sealed: no viewState, no manifest, no rewindPoint.
V2_PLAIN_DOC = r'{"version":2,"conversationId":"s-plain","systemPrompt":"p","nextSeq":3,"floorSeq":3,"entries":[]}'
# version 2 whose view state has no summary span: droppedRanges and elisions are still written.
V2_DROPPED_ONLY_DOC = (
    r'{"version":2,"conversationId":"s-d","systemPrompt":null,"nextSeq":2,"floorSeq":0,"entries":['
    r'{"seq":1,"origin":"CONVERSATION","message":{"role":"USER","content":[]}}],'
    r'"viewState":{"droppedRanges":[{"fromSeq":0,"toSeq":1}],"elisions":[]}}'
)
# An empty version-1 transcript.
V1_EMPTY_DOC = r'{"version":1,"conversationId":"s-empty","systemPrompt":null,"messages":[]}'


@pytest.mark.parametrize("doc", [V1_DOC, V1_EMPTY_DOC], ids=["v1-full", "v1-empty"])
def test_version_1_documents_round_trip_byte_for_byte(doc: str) -> None:
    codec = JsonSessionSnapshotCodec()
    snapshot = codec.decode(doc)
    assert snapshot.format is SessionLogFormat.V1
    assert codec.encode(snapshot) == doc


@pytest.mark.parametrize(
    "doc", [V2_DOC, V2_PLAIN_DOC, V2_DROPPED_ONLY_DOC], ids=["v2-full", "v2-plain", "v2-dropped-only"]
)
@pytest.mark.parametrize("write_format", list(SessionLogFormat), ids=lambda f: f"writes-{f.name}")
def test_version_2_documents_round_trip_byte_for_byte_and_stay_version_2(
    doc: str, write_format: SessionLogFormat
) -> None:
    codec = JsonSessionSnapshotCodec(write_format)
    snapshot = codec.decode(doc)
    assert snapshot.format is SessionLogFormat.V2
    assert codec.encode(snapshot) == doc  # sticky upgrade: a v1-writing codec still writes v2


def test_version_1_document_reads_as_seqs_0_to_n_minus_1_and_writes_as_version_2() -> None:
    snapshot = JsonSessionSnapshotCodec().decode(V1_DOC)
    assert [e.seq for e in snapshot.entries] == [0, 1, 2, 3, 4]
    assert {e.origin for e in snapshot.entries} == {LogOrigin.CONVERSATION}
    assert snapshot.next_seq == 5 and snapshot.floor_seq == 0
    assert snapshot.view_state.is_empty() and snapshot.manifest == ()
    assert JsonSessionSnapshotCodec(SessionLogFormat.V2).encode(snapshot) == V1_AS_V2_DOC
    assert JsonSessionSnapshotCodec().decode(V1_AS_V2_DOC).entries == snapshot.entries


def test_version_1_document_decodes_to_the_expected_model() -> None:
    snapshot = JsonSessionSnapshotCodec().decode(V1_DOC)
    assert snapshot.session_id == "sess-7f3a"
    assert snapshot.system_prompt == "You are a careful reviewer.\nAnswer in English."
    assert snapshot.message_count == 5
    m0, m1, m2, m3, m4 = snapshot.messages
    assert m0.role is Role.USER
    assert m0.content == (
        TextBlock(text="Review the attached diagram — grüße"),
        ImageBlock.of_bytes(base64.b64decode("iVBORw0KGgo="), "image/png"),
        DocumentBlock(mime_type="application/pdf", data=b"%PDF-1.4", file_name="spec.pdf"),
    )
    assert m1.tool_uses == (
        ToolUse(
            id="toolu_01",
            name="read_file",
            input={
                "path": "/work/spec.pdf",
                "range": {"from": 1, "to": 3},
                "flags": ["a", "b"],
                "strict": True,
                "note": None,
                "ratio": 0.25,
            },
        ),
    )
    assert m1.reasoning == (
        ReasoningTrace(provider="anthropic", payload="opaque-signature-1", tool_use_id="toolu_01"),
        ReasoningTrace(provider="openai", payload="enc:xyz"),
    )
    assert m2.role is Role.TOOL and m2.content == ()
    assert m2.tool_results == (
        ToolResult(tool_use_id="toolu_01", content="page 1\npage 2", is_error=False),
        ToolResult(tool_use_id="toolu_02", content="permission denied", is_error=True),
    )
    assert m2.artifacts == (
        Artifact(
            path="/out/diagram.png",
            file_name="diagram.png",
            size=2048,
            mime_type="image/png",
            tool_use_id="toolu_01",
            download_token="dl-123",
        ),
        Artifact(path="/out/raw.bin", file_name="raw.bin", size=0),
    )
    assert m3.content == (
        ImageBlock.of_url("https://example.com/a.jpg", "image/jpeg"),
        DocumentBlock(mime_type="text/plain", data=b"hello"),
        TextBlock(text='tab\there "quoted" back\\slash ctl\x1f'),
    )
    assert m4.text_content() == "Now fix it."
    point = snapshot.rewind_point
    assert point is not None and point.seq == 4 and snapshot.rewind_message_count == 4
    assert point.user_input == MultimodalInput(
        inputs=(
            TextInput(text="Now fix it."),
            FileInput(mime_type="text/plain", file_name="notes.txt", data=b"notes"),
        )
    )
    assert point.submit_options == SubmitOptions(
        principal=Principal(type=PrincipalType.USER, id="u-42", display_name="Ada"),
        system_prompt_variables={"tone": "formal"},
        llm_call_metadata=LlmCallMetadata(component="reviewer", trace_id="tr-1", tags={"team": "core"}),
    )


def test_version_2_document_decodes_to_the_expected_state() -> None:
    snapshot = JsonSessionSnapshotCodec().decode(V2_DOC)
    assert snapshot.system_prompt is None
    assert (snapshot.floor_seq, snapshot.next_seq) == (2, 12)
    assert [(e.seq, e.origin) for e in snapshot.entries] == [
        (6, LogOrigin.SYNTHETIC),
        (7, LogOrigin.CONVERSATION),
        (8, LogOrigin.CONVERSATION),
        (9, LogOrigin.CONVERSATION),
        (10, LogOrigin.CONVERSATION),
        (11, LogOrigin.CONVERSATION),
    ]
    span = snapshot.view_state.summary_span
    assert span is not None
    assert (span.from_seq, span.to_seq, span.boundary_id, span.trigger) == (2, 6, "b-01", "AUTO")
    assert (span.pre_token_count, span.messages_summarized) == (51234, 4)
    assert span.discovered_tool_names == ("grep", "read_file")
    assert [(r.from_seq, r.to_seq) for r in snapshot.view_state.dropped_ranges] == [(8, 10)]
    assert [(e.seq, e.placeholder) for e in snapshot.view_state.elisions] == [(10, "[elided]")]
    (line,) = snapshot.manifest
    assert (line.from_seq, line.to_seq, line.entry_count) == (2, 6, 3)
    assert line.segment_id == "5f0c6c1e-2d7b-4c1a-9a53-0d7c0c1e2f3a"
    assert snapshot.rewind_point is not None and snapshot.rewind_point.seq == 11
    assert snapshot.rewind_message_count == 5


def test_a_document_with_the_retired_compaction_failure_count_and_unknown_keys_loads() -> None:
    doc = (
        r'{"version":1,"conversationId":"s-old","systemPrompt":null,"compactionFailureCount":0,'
        r'"futureTopLevel":{"x":[1,2]},"messages":[{"role":"USER","content":[{"type":"text","text":"hi",'
        r'"cacheControl":{"type":"ephemeral"}}],"futureMessageKey":true}],'
        r'"rewindPoint":{"messageCount":1,"userInput":{"type":"text","text":"hi","extra":1},"later":"x"}}'
    )
    snapshot = JsonSessionSnapshotCodec().decode(doc)
    assert snapshot.session_id == "s-old"
    assert snapshot.messages[0].text_content() == "hi"
    assert snapshot.rewind_point is not None and snapshot.rewind_point.user_input == TextInput(text="hi")
    assert JsonSessionSnapshotCodec().encode(snapshot) == (
        r'{"version":1,"conversationId":"s-old","systemPrompt":null,"messages":[{"role":"USER","content":'
        r'[{"type":"text","text":"hi"}]}],"rewindPoint":{"messageCount":1,"userInput":{"type":"text","text":"hi"}}}'
    )


def test_a_version_2_document_with_unknown_keys_everywhere_loads() -> None:
    doc = (
        V2_DOC.replace('"nextSeq":12,', '"nextSeq":12,"later":{"a":1},')
        .replace('"boundaryId":"b-01",', '"boundaryId":"b-01","futureSpanKey":[],')
        .replace('"entryCount":3}', '"entryCount":3,"compression":"zstd"}')
    )
    assert JsonSessionSnapshotCodec().encode(JsonSessionSnapshotCodec().decode(doc)) == V2_DOC
