"""The ``{type, id, displayName}`` subtree of a principal (initiator, owner, submit-options principal)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from aimon_mongo import names as n
from aimon_mongo.errors import CodecError
from aimon_mongo.model.principal import Principal, PrincipalType

_TYPES = {t.value: t for t in PrincipalType}


def encode_principal(principal: Principal) -> dict[str, Any]:
    """``{"type", "id", "displayName"}`` in that order."""
    return {
        n.PRINCIPAL_TYPE: principal.type.value,
        n.PRINCIPAL_ID: principal.id,
        n.PRINCIPAL_DISPLAY_NAME: principal.display_name,
    }


def decode_principal(obj: object, field: str) -> Principal:
    """Strictly read a principal stored under ``field`` (named in the error)."""
    if not isinstance(obj, Mapping):
        raise CodecError(f"Missing {field} field (not an object)")
    kind = obj.get(n.PRINCIPAL_TYPE)
    if not isinstance(kind, str) or kind not in _TYPES:
        shown = repr(kind[:40]) if isinstance(kind, str) else type(kind).__name__
        raise CodecError(f"Unknown principal type in {field}: {shown}")
    pid = obj.get(n.PRINCIPAL_ID)
    display = obj.get(n.PRINCIPAL_DISPLAY_NAME)
    if not isinstance(pid, str) or not isinstance(display, str):
        raise CodecError(f"Cannot reconstruct the principal in {field}: id and displayName must be strings")
    try:
        return Principal(type=_TYPES[kind], id=pid, display_name=display)
    except ValidationError:
        raise CodecError(f"Cannot reconstruct the principal in {field}: id is blank") from None
