"""The inbox envelope: everything a holder node needs to run a turn it did not receive itself."""

from __future__ import annotations

from pydantic import Field

from aimon_mongo.model._base import Frozen, NonBlankStr, UtcDatetime
from aimon_mongo.model.principal import Principal
from aimon_mongo.model.priority import Priority
from aimon_mongo.model.submit_options import SubmitOptions
from aimon_mongo.model.user_input import UserInput


class InboundMessage(Frozen):
    """Immutable envelope appended to a session's inbox.

    ``id`` is assigned by the inbox on ``deliver`` (ignored if set by the caller) and always present after
    ``collect``. ``session_id`` is stored under the frozen key ``conversationId``.
    """

    id: str | None = None
    turn_id: str | None = None
    session_id: NonBlankStr
    agent_ref: str
    context_discriminator: str | None = None
    user_input: UserInput
    priority: Priority = Priority.NEXT
    idempotency_key: str | None = None
    initiator: Principal
    delivered_at: UtcDatetime
    metadata: dict[str, str] = Field(default_factory=dict)
    submit_options: SubmitOptions = Field(default_factory=SubmitOptions.empty)

    def with_id(self, message_id: str) -> InboundMessage:
        """A copy stamped with the inbox-assigned id."""
        return self.model_copy(update={"id": message_id})
