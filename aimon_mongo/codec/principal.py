"""The ``{type, id, displayName}`` subtree of a principal (initiator, owner, submit-options principal)."""

from __future__ import annotations

from collections.abc import Mapping

from aimon_mongo import names as n
from aimon_mongo.codec._fields import clip, json_type, stored_texts
from aimon_mongo.errors import CodecError
from aimon_mongo.model._base import is_blank
from aimon_mongo.model.principal import Principal, PrincipalType
from aimon_mongo.stored._common import Principal as PrincipalJson

_TYPES = {t.value: t for t in PrincipalType}
_TYPE_NAMES = stored_texts(PrincipalType)  # plain str, and faster than Enum.value


def encode_principal(principal: Principal) -> PrincipalJson:
    """``{"type", "id", "displayName"}`` in that order."""
    return {
        n.PRINCIPAL_TYPE: _TYPE_NAMES[principal.type],
        n.PRINCIPAL_ID: principal.id,
        n.PRINCIPAL_DISPLAY_NAME: principal.display_name,
    }


def decode_principal(obj: object, field: str) -> Principal:
    """Strictly read a principal stored under ``field`` (named in the error).

    Refuses with :class:`CodecError`: not an object, an unknown ``type`` (e.g. ``ROBOT``), a non-string or
    blank ``id``, a non-string ``displayName``. Principals are immutable and the same few initiators come
    back on message after message, so decoded ones are interned (a bounded cache).
    """
    if type(obj) is not dict and not isinstance(obj, Mapping):
        if obj is None:
            raise CodecError(f"Missing {field} field")
        raise CodecError(f"Missing {field} field (not an object: {json_type(obj)})")
    kind = obj.get(n.PRINCIPAL_TYPE)
    pid = obj.get(n.PRINCIPAL_ID)
    display = obj.get(n.PRINCIPAL_DISPLAY_NAME)
    if type(kind) is str and type(pid) is str and type(display) is str:
        cached = _INTERNED.get((kind, pid, display))
        if cached is not None:
            return cached
    ptype = _TYPES.get(kind) if isinstance(kind, str) else None
    if ptype is None:
        shown = repr(clip(kind)) if isinstance(kind, str) else json_type(kind)
        raise CodecError(f"Unknown principal type in {field}: {shown}")
    if not isinstance(pid, str) or not isinstance(display, str):
        raise CodecError(f"Cannot reconstruct the principal in {field}: id and displayName must be strings")
    if is_blank(pid):
        raise CodecError(f"Cannot reconstruct the principal in {field}: id is blank")
    principal = Principal(type=ptype, id=str(pid), display_name=str(display))
    if len(_INTERNED) >= _INTERNED_MAX:
        _INTERNED.clear()
    _INTERNED[(str(kind), principal.id, principal.display_name)] = principal
    return principal


_INTERNED: dict[tuple[str, str, str], Principal] = {}
_INTERNED_MAX = 1024
