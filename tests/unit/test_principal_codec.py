"""The ``{type, id, displayName}`` subtree and principal equality."""

from __future__ import annotations

import pytest
from hypothesis import given

from aimon_mongo.codec.principal import decode_principal, encode_principal
from aimon_mongo.errors import CodecError
from aimon_mongo.model import Principal, PrincipalType
from tests.strategies import principals


def test_encode_shape_and_order() -> None:
    encoded = encode_principal(Principal(type=PrincipalType.SERVICE, id="svc-1", display_name="Billing"))
    assert encoded == {"type": "SERVICE", "id": "svc-1", "displayName": "Billing"}
    assert list(encoded) == ["type", "id", "displayName"]


def test_equality_is_by_type_and_id_only() -> None:
    a = Principal(type=PrincipalType.USER, id="u1", display_name="Ada")
    b = Principal(type=PrincipalType.USER, id="u1", display_name="Ada Lovelace")
    c = Principal(type=PrincipalType.GROUP, id="u1", display_name="Ada")
    assert a == b
    assert hash(a) == hash(b)
    assert a != c
    assert len({a, b, c}) == 2


def test_system_principal() -> None:
    assert encode_principal(Principal.system()) == {"type": "SYSTEM", "id": "system", "displayName": "System"}


@given(principals)
def test_round_trip_keeps_display_name(principal: Principal) -> None:
    decoded = decode_principal(encode_principal(principal), "initiator")
    assert decoded == principal
    assert decoded.display_name == principal.display_name
    assert decoded.type is principal.type


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (None, "Missing initiator field"),
        ("USER:u1", "Missing initiator field \\(not an object"),
        ({"type": "ROBOT", "id": "r2", "displayName": "R2"}, "Unknown principal type in initiator: 'ROBOT'"),
        ({"type": "user", "id": "u", "displayName": "x"}, "Unknown principal type"),
        ({"id": "u", "displayName": "x"}, "Unknown principal type in initiator: null"),
        ({"type": "USER", "displayName": "x"}, "id and displayName must be strings"),
        ({"type": "USER", "id": 7, "displayName": "x"}, "id and displayName must be strings"),
        ({"type": "USER", "id": "u"}, "id and displayName must be strings"),
        ({"type": "USER", "id": "  ", "displayName": "x"}, "id is blank"),
    ],
)
def test_decode_refuses(obj: object, message: str) -> None:
    with pytest.raises(CodecError, match=message):
        decode_principal(obj, "initiator")


def test_decoded_principals_are_interned() -> None:
    raw = {"type": "USER", "id": "intern-me", "displayName": "I"}
    assert decode_principal(raw, "initiator") is decode_principal(dict(raw), "initiator")
