"""``SubmitOptionsCodec``: the ``submitOptions`` subtree (JSON object; the same dict is the BSON form).

Written only when the options are not empty; inside it each key only when set, in the reference's order
(``llmCallMetadata``: ``component, parentComponent, feature, principal, traceId, tags``; its ``principal`` is
a ``{type, id, displayName}`` object like the top-level one — the bare string older builds of this library
wrote is still read). Unknown keys are ignored
on read (this is how the retired ``userContextInjection`` is tolerated). An absent or non-object subtree
reads as empty options; a present but unreadable principal or call metadata refuses with
:class:`CodecError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from aimon_mongo import names as n
from aimon_mongo.codec._fields import text_map
from aimon_mongo.codec.principal import decode_principal, encode_principal
from aimon_mongo.errors import CodecError
from aimon_mongo.model.principal import Principal
from aimon_mongo.model.submit_options import LlmCallMetadata, SubmitOptions, principal_from_text
from aimon_mongo.stored.submit_options import LlmCallMetadataJson, SubmitOptionsJson

TOP_LEVEL_FIELDS = frozenset(
    {n.SO_PRINCIPAL, n.SO_SYSTEM_PROMPT_VARIABLES, n.SO_EXECUTION_ATTRIBUTES, n.SO_LLM_CALL_METADATA}
)
LLM_CALL_METADATA_FIELDS = frozenset(
    {n.LLM_COMPONENT, n.LLM_PARENT_COMPONENT, n.LLM_FEATURE, n.LLM_PRINCIPAL, n.LLM_TRACE_ID, n.LLM_TAGS}
)

_LLM_TEXT_FIELDS = (
    (n.LLM_COMPONENT, "component"),
    (n.LLM_PARENT_COMPONENT, "parent_component"),
    (n.LLM_FEATURE, "feature"),
)


def encode(options: SubmitOptions) -> SubmitOptionsJson:
    """The subtree of ``options``; ``{}`` when they are empty (callers then omit the key)."""
    out: SubmitOptionsJson = {}
    if options.principal is not None:
        out[n.SO_PRINCIPAL] = encode_principal(options.principal)
    if options.system_prompt_variables:
        out[n.SO_SYSTEM_PROMPT_VARIABLES] = dict(options.system_prompt_variables)
    if options.execution_attributes:
        out[n.SO_EXECUTION_ATTRIBUTES] = dict(options.execution_attributes)
    llm = options.llm_call_metadata
    if llm is not None and not llm.is_empty():
        meta: LlmCallMetadataJson = {}
        if llm.component is not None:
            meta[n.LLM_COMPONENT] = llm.component
        if llm.parent_component is not None:
            meta[n.LLM_PARENT_COMPONENT] = llm.parent_component
        if llm.feature is not None:
            meta[n.LLM_FEATURE] = llm.feature
        if llm.principal is not None:
            meta[n.LLM_PRINCIPAL] = encode_principal(llm.principal)
        if llm.trace_id is not None:
            meta[n.LLM_TRACE_ID] = llm.trace_id
        if llm.tags:
            meta[n.LLM_TAGS] = dict(llm.tags)
        out[n.SO_LLM_CALL_METADATA] = meta
    return out


def decode(obj: object) -> SubmitOptions:
    """Read a ``submitOptions`` subtree; absent or non-object → empty options."""
    if not isinstance(obj, Mapping):
        return SubmitOptions.empty()
    principal = None
    if obj.get(n.SO_PRINCIPAL) is not None:
        principal = decode_principal(obj[n.SO_PRINCIPAL], "submitOptions.principal")
    try:
        return SubmitOptions(
            principal=principal,
            system_prompt_variables=_json_map(obj.get(n.SO_SYSTEM_PROMPT_VARIABLES)),
            execution_attributes=_json_map(obj.get(n.SO_EXECUTION_ATTRIBUTES)),
            llm_call_metadata=_llm_metadata(obj.get(n.SO_LLM_CALL_METADATA)),
        )
    except ValidationError:
        raise CodecError("Cannot reconstruct the submit options: a map holds a non-JSON value") from None


def _json_map(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise CodecError("Cannot reconstruct the submit options: a variables map is not an object")
    return {str(k): v for k, v in value.items()}


def _llm_metadata(value: object) -> LlmCallMetadata | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise CodecError("Cannot reconstruct the LLM call metadata: not an object")
    fields: dict[str, Any] = {}
    for key, attr in (*_LLM_TEXT_FIELDS, (n.LLM_TRACE_ID, "trace_id")):
        raw = value.get(key)
        if raw is None:
            continue
        if not isinstance(raw, str):
            raise CodecError(f"Cannot reconstruct the LLM call metadata: '{key}' is not a string")
        fields[attr] = raw
    fields["principal"] = _llm_principal(value.get(n.LLM_PRINCIPAL))
    fields["tags"] = text_map(value.get(n.LLM_TAGS), "llmCallMetadata.tags")
    return LlmCallMetadata(**fields)


def _llm_principal(raw: object) -> Principal | None:
    """The call principal: the reference's ``{type, id, displayName}`` object, or the bare string that
    builds of this library before the interop fix wrote (read with :func:`principal_from_text`, never
    refused: stores hold both forms). A damaged object refuses, as the reference does."""
    if raw is None:
        return None
    if isinstance(raw, str):
        return principal_from_text(raw)
    return decode_principal(raw, "llmCallMetadata.principal")
