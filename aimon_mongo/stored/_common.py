"""Subtrees shared by several families (no roots of their own)."""

from __future__ import annotations

from typing import TypedDict

from aimon_mongo.model.principal import PrincipalType


class Principal(TypedDict):
    """``{type, id, displayName}`` wherever a principal is stored (initiator, owner, options principal)."""

    type: PrincipalType
    id: str
    displayName: str
