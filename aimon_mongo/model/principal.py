"""Who initiated something: a user, a group, the system or a service."""

from __future__ import annotations

from enum import StrEnum

from aimon_mongo.model._base import Frozen, NonBlankStr


class PrincipalType(StrEnum):
    """Kind of principal; the enum name is the stored value."""

    USER = "USER"
    GROUP = "GROUP"
    SYSTEM = "SYSTEM"
    SERVICE = "SERVICE"


class Principal(Frozen):
    """``{type, id, displayName}``. Equality and hashing use ``type`` and ``id`` only."""

    type: PrincipalType
    id: NonBlankStr
    display_name: str

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Principal):
            return NotImplemented
        return self.type == other.type and self.id == other.id

    def __hash__(self) -> int:
        return hash((self.type, self.id))

    @classmethod
    def system(cls) -> Principal:
        """The system principal (``SYSTEM`` / ``system`` / ``System``)."""
        return _SYSTEM

    @classmethod
    def user(cls, user_id: str, display_name: str | None = None) -> Principal:
        """A user principal; the display name defaults to the id."""
        return cls(type=PrincipalType.USER, id=user_id, display_name=display_name or user_id)


_SYSTEM = Principal(type=PrincipalType.SYSTEM, id="system", display_name="System")
