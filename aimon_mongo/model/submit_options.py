"""Per-turn options preserved end to end from the submitter to the holder node."""

from __future__ import annotations

import warnings
from typing import Any

from pydantic import Field, JsonValue, field_validator

from aimon_mongo.model._base import Frozen, is_blank
from aimon_mongo.model.principal import Principal


def principal_from_text(text: str) -> Principal | None:
    """The principal a bare string names: ``Principal.user(text)``; ``None`` for a blank string.

    Builds of this library before the interop fix modelled (and stored) ``llmCallMetadata.principal`` as a
    string where the reference has a ``Principal``. Such a string is read as the user it names, with the
    string as both id and display name (nothing of it is lost), so the next write stores the object form
    every reader understands. A blank string attributes nothing and reads as no principal.
    """
    return None if is_blank(text) else Principal.user(text)


class LlmCallMetadata(Frozen):
    """Attribution of the LLM calls a turn makes. Every field is optional.

    ``principal`` is a :class:`Principal`, as in the reference. A plain string is still accepted (with a
    :class:`DeprecationWarning`) and read with :func:`principal_from_text`.
    """

    component: str | None = None
    parent_component: str | None = None
    feature: str | None = None
    principal: Principal | None = None
    trace_id: str | None = None
    tags: dict[str, str] = Field(default_factory=dict)

    @field_validator("principal", mode="before")
    @classmethod
    def _principal_from_text(cls, value: object) -> object:
        if isinstance(value, str):
            warnings.warn(
                "LlmCallMetadata.principal takes a Principal; a string is read as Principal.user(string)",
                DeprecationWarning,
                stacklevel=4,
            )
            return principal_from_text(value)
        return value

    def is_empty(self) -> bool:
        return not self.tags and all(
            v is None for v in (self.component, self.parent_component, self.feature, self.principal, self.trace_id)
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
