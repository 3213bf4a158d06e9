"""``SubmitOptionsCodec``: the ``submitOptions`` subtree (same keys in JSON and BSON).

Omitted entirely when the options are empty; inside it each key only when set. Readers ignore keys they do
not know (the retired ``userContextInjection`` is tolerated that way and must never be reused).
"""

from __future__ import annotations

from typing import Any, Final, NotRequired, TypedDict

from aimon_mongo.stored.declare import Family, body, root

from ._common import Principal

FORMAT_VERSION: Final = 1
FAMILY: Final = Family("submit-options", FORMAT_VERSION)


@body
class LlmCallMetadataJson(TypedDict):
    component: NotRequired[str]
    parentComponent: NotRequired[str]
    feature: NotRequired[str]
    principal: NotRequired[Principal]
    traceId: NotRequired[str]
    tags: NotRequired[dict[str, str]]


@root("submit-options", FAMILY)
@body
class SubmitOptionsJson(TypedDict):
    principal: NotRequired[Principal]
    systemPromptVariables: NotRequired[dict[str, Any]]
    executionAttributes: NotRequired[dict[str, Any]]
    llmCallMetadata: NotRequired[LlmCallMetadataJson]
