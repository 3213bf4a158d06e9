"""Encoded output of the codecs on main conforms to its declared stored root (so neither can drift alone)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from aimon_mongo.codec import submit_options as submit_options_codec
from aimon_mongo.codec import user_input as user_input_codec
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
)
from aimon_mongo.schema_gate import assert_conforms, conformance_errors

_text = st.text(max_size=20)
_leaf = st.one_of(
    st.builds(TextInput, text=_text),
    st.builds(ImageInput, mime_type=st.sampled_from(["image/png", "image/jpeg"]), data=st.binary(max_size=16)),
    st.builds(AudioInput, mime_type=st.just("audio/wav"), data=st.binary(max_size=16)),
    st.builds(
        FileInput,
        mime_type=st.sampled_from(["text/plain", "application/pdf"]),
        file_name=_text,
        data=st.binary(max_size=16),
    ),
)
user_inputs = st.recursive(
    _leaf,
    lambda children: st.builds(MultimodalInput, inputs=st.lists(children, min_size=1, max_size=3).map(tuple)),
    max_leaves=6,
)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=5,
)
_principals = st.builds(
    Principal,
    type=st.sampled_from(list(PrincipalType)),
    id=st.text(min_size=1, max_size=8).filter(str.strip),
    display_name=_text,
)
_llm = st.builds(
    LlmCallMetadata,
    component=st.none() | _text,
    parent_component=st.none() | _text,
    feature=st.none() | _text,
    principal=st.none() | _text,
    trace_id=st.none() | _text,
    tags=st.dictionaries(_text, _text, max_size=3),
)
submit_options = st.builds(
    SubmitOptions,
    principal=st.none() | _principals,
    system_prompt_variables=st.dictionaries(st.text(max_size=6), _json, max_size=3),
    execution_attributes=st.dictionaries(st.text(max_size=6), _json, max_size=3),
    llm_call_metadata=st.none() | _llm,
)


@settings(max_examples=100, deadline=None)
@given(user_inputs)
def test_user_input_encoding_conforms(inp) -> None:
    assert_conforms("user-input", user_input_codec.encode(inp))
    assert_conforms("user-input", user_input_codec.encode_to_string(inp))


@settings(max_examples=100, deadline=None)
@given(submit_options)
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
            component="c", parent_component="p", feature="f", principal="x", trace_id="t", tags={"a": "b"}
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
