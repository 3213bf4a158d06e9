"""Encoded output of the codecs on main conforms to its declared stored root (so neither can drift alone)."""

from __future__ import annotations

import importlib.util

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aimon_mongo.codec import submit_options as submit_options_codec
from aimon_mongo.codec import user_input as user_input_codec
from aimon_mongo.model import (
    AudioInput,
    CompletionReason,
    FileInput,
    ImageInput,
    LlmCallMetadata,
    MultimodalInput,
    Principal,
    SubmitOptions,
    TextInput,
)
from aimon_mongo.schema_gate import assert_conforms, conformance_errors
from aimon_mongo.snapshots import (
    JsonSessionSnapshotCodec,
    JsonTaskResultCodec,
    SessionLogFormat,
    SessionSnapshot,
    TaskResult,
    content_hash,
    encode_entries,
)
from tests.schema_gate.conftest import REPO

# The snapshot tests' strategies cover every user input, submit option, message and snapshot shape.
_spec = importlib.util.spec_from_file_location(
    "snapshot_strategies_for_gate", REPO / "tests" / "unit" / "snapshots" / "snapshot_strategies.py"
)
assert _spec is not None and _spec.loader is not None
strategies = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(strategies)


@settings(max_examples=100, deadline=None)
@given(strategies.user_inputs)
def test_user_input_encoding_conforms(inp) -> None:
    assert_conforms("user-input", user_input_codec.encode(inp))
    assert_conforms("user-input", user_input_codec.encode_to_string(inp))


@settings(max_examples=100, deadline=None)
@given(strategies.submit_options)
def test_submit_options_encoding_conforms(options) -> None:
    assert_conforms("submit-options", submit_options_codec.encode(options))


def test_every_user_input_variant_and_every_submit_option_key_is_exercised() -> None:
    nested = MultimodalInput(
        inputs=(
            TextInput(text="a"),
            ImageInput(mime_type="image/png", data=b"\x00"),
            AudioInput(mime_type="audio/ogg", data=b"\x01\x02"),
            FileInput(mime_type="text/plain", file_name="a.txt", data=b"hi"),
            MultimodalInput(inputs=(TextInput(text="deep"),)),
        )
    )
    encoded = user_input_codec.encode(nested)
    assert {child["type"] for child in encoded["inputs"]} == {"text", "image", "audio", "file", "multimodal"}
    assert_conforms("user-input", encoded)
    full = SubmitOptions(
        principal=Principal.user("u1"),
        system_prompt_variables={"k": {"nested": [1, "x", None, True]}},
        execution_attributes={"a": 1.5},
        llm_call_metadata=LlmCallMetadata(
            component="c",
            parent_component="p",
            feature="f",
            principal=Principal.user("x"),
            trace_id="t",
            tags={"a": "b"},
        ),
    )
    encoded_options = submit_options_codec.encode(full)
    assert set(encoded_options) == {"principal", "systemPromptVariables", "executionAttributes", "llmCallMetadata"}
    assert len(encoded_options["llmCallMetadata"]) == 6
    assert_conforms("submit-options", encoded_options)


def test_drift_between_codec_and_declaration_is_caught() -> None:
    encoded = user_input_codec.encode(FileInput(mime_type="application/pdf", file_name="a.pdf", data=b"%PDF"))
    renamed = {("filename" if k == "fileName" else k): v for k, v in encoded.items()}
    errors = conformance_errors("user-input", renamed)
    assert errors == ["$.fileName: required key missing", "$.filename: key not declared for this object"]
    options = submit_options_codec.encode(SubmitOptions(principal=Principal.system()))
    options["userContextInjection"] = True  # retired: never written again
    assert conformance_errors("submit-options", options) == ["$.userContextInjection: key not declared for this object"]


# --- The snapshot codecs (main): documents v1/v2, segment payloads, task results -----------------------

V1 = JsonSessionSnapshotCodec()
V2 = JsonSessionSnapshotCodec(SessionLogFormat.V2)
SNAPSHOT_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _real_hashes(snapshot: SessionSnapshot) -> SessionSnapshot:
    """The strategies draw any text as a content hash; a stored one is always ``sha256:<hex>``."""
    manifest = tuple(
        line.model_copy(update={"content_hash": content_hash(line.segment_id)}) for line in snapshot.manifest
    )
    return snapshot.model_copy(update={"manifest": manifest})


@SNAPSHOT_SETTINGS
@given(strategies.v1_snapshots())
def test_snapshot_documents_conform_in_both_write_formats(snapshot: SessionSnapshot) -> None:
    assert_conforms("snapshot.document.v1", V1.encode(snapshot))
    assert_conforms("snapshot.document.v2", V2.encode(snapshot))


@SNAPSHOT_SETTINGS
@given(strategies.v2_snapshots())
def test_version_2_documents_and_segment_payloads_conform(snapshot: SessionSnapshot) -> None:
    assert_conforms("snapshot.document.v2", V1.encode(_real_hashes(snapshot)))
    assert_conforms("snapshot.segment-payload", encode_entries(snapshot.entries))


@settings(max_examples=100, deadline=None)
@given(
    st.builds(
        TaskResult,
        success=st.booleans(),
        final_answer=strategies.optional_texts,
        error_message=strategies.optional_texts,
        completion_reason=st.sampled_from(list(CompletionReason)),
        iteration_count=st.integers(0, 2**31 - 1),
        duration_millis=st.integers(0, 2**62),
        total_tokens=st.integers(0, 2**31 - 1),
        summary_truncated=st.booleans(),
    )
)
def test_task_results_conform(result: TaskResult) -> None:
    assert_conforms("task-result.document", JsonTaskResultCodec().encode(result))
