"""Per-turn options preserved end to end from the submitter to the holder node."""

from __future__ import annotations

from typing import Any

from pydantic import Field, JsonValue

from aimon_mongo.model._base import Frozen
from aimon_mongo.model.principal import Principal


class LlmCallMetadata(Frozen):
    """Attribution of the LLM calls a turn makes. Every field is optional."""

    component: str | None = None
    parent_component: str | None = None
    feature: str | None = None
    principal: str | None = None
    trace_id: str | None = None
    tags: dict[str, str] = Field(default_factory=dict)

    def is_empty(self) -> bool:
        return not self.tags and all(
            v is None
            for v in (self.component, self.parent_component, self.feature, self.principal, self.trace_id)
        )


class SubmitOptions(Frozen):
    """Optional caller-supplied executor metadata of one turn.

    The two maps hold JSON values; anything else would not survive the JSON and BSON stored forms
    ("values, not identities": nested objects come back as plain dicts).
    """

    principal: Principal | None = None
    system_prompt_variables: dict[str, JsonValue] = Field(default_factory=dict)
    execution_attributes: dict[str, JsonValue] = Field(default_factory=dict)
    llm_call_metadata: LlmCallMetadata | None = None

    def is_empty(self) -> bool:
        """True when nothing is set (the stored form then omits the subtree entirely)."""
        return (
            self.principal is None
            and not self.system_prompt_variables
            and not self.execution_attributes
            and (self.llm_call_metadata is None or self.llm_call_metadata.is_empty())
        )

    @classmethod
    def empty(cls) -> SubmitOptions:
        return _EMPTY

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, SubmitOptions):
            return NotImplemented
        return _normal(self) == _normal(other)

    __hash__ = None  # type: ignore[assignment]


def _normal(options: SubmitOptions) -> tuple[Any, ...]:
    llm = options.llm_call_metadata
    return (
        options.principal,
        options.system_prompt_variables,
        options.execution_attributes,
        None if llm is None or llm.is_empty() else llm,
    )


_EMPTY = SubmitOptions()
