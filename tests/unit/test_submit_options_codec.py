"""SubmitOptionsCodec: omitted when empty, only set keys written, retired and unknown keys ignored."""

from __future__ import annotations

import pytest
from hypothesis import given

from aimon_mongo.codec import submit_options as codec
from aimon_mongo.errors import CodecError
from aimon_mongo.model import LlmCallMetadata, Principal, PrincipalType, SubmitOptions
from tests.strategies import submit_options


def test_empty_options_encode_to_nothing() -> None:
    assert codec.encode(SubmitOptions.empty()) == {}
    assert codec.encode(SubmitOptions(llm_call_metadata=LlmCallMetadata())) == {}


def test_only_set_keys_are_written_in_order() -> None:
    options = SubmitOptions(
        principal=Principal(type=PrincipalType.USER, id="u1", display_name="Ada"),
        system_prompt_variables={"tone": "formal", "limits": {"words": 200, "strict": True}},
        execution_attributes={"region": "eu", "retries": [1, 2.5, None]},
        llm_call_metadata=LlmCallMetadata(component="router", trace_id="t-9", tags={"team": "core"}),
    )
    encoded = codec.encode(options)
    assert encoded == {
        "principal": {"type": "USER", "id": "u1", "displayName": "Ada"},
        "systemPromptVariables": {"tone": "formal", "limits": {"words": 200, "strict": True}},
        "executionAttributes": {"region": "eu", "retries": [1, 2.5, None]},
        "llmCallMetadata": {"component": "router", "traceId": "t-9", "tags": {"team": "core"}},
    }
    assert list(encoded) == ["principal", "systemPromptVariables", "executionAttributes", "llmCallMetadata"]
    assert codec.decode(encoded) == options


def test_every_llm_call_metadata_key_in_order() -> None:
    meta = LlmCallMetadata(
        component="c",
        parent_component="p",
        feature="f",
        principal=Principal(type=PrincipalType.GROUP, id="who", display_name="Who"),
        trace_id="t",
        tags={"k": "v"},
    )
    encoded = codec.encode(SubmitOptions(llm_call_metadata=meta))["llmCallMetadata"]
    assert list(encoded) == ["component", "parentComponent", "feature", "principal", "traceId", "tags"]
    assert encoded["principal"] == {"type": "GROUP", "id": "who", "displayName": "Who"}
    assert codec.decode({"llmCallMetadata": encoded}).llm_call_metadata == meta


@pytest.mark.parametrize("obj", [None, "options", 3, ["principal"], {}])
def test_absent_or_non_object_reads_as_empty(obj: object) -> None:
    assert codec.decode(obj) == SubmitOptions.empty()


def test_retired_and_unknown_keys_are_ignored() -> None:
    decoded = codec.decode(
        {
            "userContextInjection": True,
            "somethingFromTheFuture": {"x": 1},
            "executionAttributes": {"a": 1},
        }
    )
    assert decoded == SubmitOptions(execution_attributes={"a": 1})


def test_retired_key_is_never_written() -> None:
    options = SubmitOptions(execution_attributes={"userContextInjection": True})
    assert "userContextInjection" not in codec.encode(options)


def test_tag_values_are_read_as_text() -> None:
    decoded = codec.decode({"llmCallMetadata": {"tags": {"n": 5, "b": False, "s": "x"}}})
    assert decoded.llm_call_metadata == LlmCallMetadata(tags={"n": "5", "b": "false", "s": "x"})


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"principal": {"type": "ROBOT", "id": "r", "displayName": "R"}}, "Unknown principal type"),
        ({"principal": "USER:u1"}, "submitOptions.principal"),
        ({"principal": {"type": "USER", "id": "", "displayName": "x"}}, "id is blank"),
        ({"llmCallMetadata": "router"}, "LLM call metadata"),
        ({"llmCallMetadata": {"component": 5}}, "'component' is not a string"),
        ({"llmCallMetadata": {"tags": ["a"]}}, "tags"),
        ({"systemPromptVariables": ["a"]}, "variables map is not an object"),
    ],
)
def test_present_but_unreadable_parts_refuse(obj: object, message: str) -> None:
    with pytest.raises(CodecError, match=message):
        codec.decode(obj)


@given(submit_options())
def test_round_trip(options: SubmitOptions) -> None:
    encoded = codec.encode(options)
    assert set(encoded) <= codec.TOP_LEVEL_FIELDS
    assert (encoded == {}) == options.is_empty()
    decoded = codec.decode(encoded)
    assert decoded == options
    if options.principal is not None:
        assert decoded.principal is not None
        assert decoded.principal.display_name == options.principal.display_name
