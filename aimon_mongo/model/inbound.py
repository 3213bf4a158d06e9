"""The inbox envelope: everything a holder node needs to run a turn it did not receive itself."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from pydantic import Field

from aimon_mongo.model._base import Frozen, NonBlankStr, UtcDatetime
from aimon_mongo.model.principal import Principal
from aimon_mongo.model.priority import Priority
from aimon_mongo.model.submit_options import SubmitOptions
from aimon_mongo.model.user_input import TextInput, UserInput


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

    @classmethod
    def text(
        cls,
        session_id: str,
        text: str,
        *,
        agent_ref: str,
        initiator: Principal | None = None,
        priority: Priority = Priority.NEXT,
        delivered_at: datetime | None = None,
        turn_id: str | None = None,
        idempotency_key: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> InboundMessage:
        """A plain-text message for ``agent_ref`` in session ``session_id``.

        Defaults: the initiator is the system principal (:meth:`Principal.system`; pass
        ``Principal.user("alice")`` for a person), the priority ``NEXT``, and ``delivered_at`` now in UTC
        (the inbox orders entries by the server's clock, so this stamp is informational).
        """
        return cls(
            session_id=session_id,
            agent_ref=agent_ref,
            user_input=TextInput(text=text),
            priority=priority,
            initiator=initiator if initiator is not None else Principal.system(),
            delivered_at=delivered_at if delivered_at is not None else datetime.now(UTC),
            turn_id=turn_id,
            idempotency_key=idempotency_key,
            metadata=dict(metadata or {}),
        )

    def with_id(self, message_id: str) -> InboundMessage:
        """A copy stamped with the inbox-assigned id."""
        return self.model_copy(update={"id": message_id})
