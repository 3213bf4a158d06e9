"""Hypothesis strategies for damaged inbox entries, in each backend's stored form.

A *damage* is a function from a good stored form (built by the shared codec) to a stored form that the
decoder must refuse. The JSON envelope (Redis stream field ``p``, PostgreSQL ``payload``) and the MongoDB
document have their own kinds; every kind is listed by name so a failure names it.

Not generated on MongoDB: damage to the top-level ``conversationId``. It is what a collect selects the
session's entries by: such a document is not in that session's inbox at all (neither delivered nor
reported). A damaged top-level ``priority`` (unknown ordinal, wrong type, null) is generated: a collect of
every tier takes it too.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from bson import Binary, ObjectId
from hypothesis import strategies as st

from aimon_mongo.codec.inbound import to_json_envelope, to_mongo_document
from aimon_mongo.model import Priority
from tests.conformance.helpers import message

WRONG_VALUES = st.sampled_from([None, 0, 1.5, True, [], ["x"], {}, {"$ne": None}])
ENVELOPE_REQUIRED = ("conversationId", "agentRef", "userInput", "priority", "initiator", "deliveredAt")
PAYLOAD_REQUIRED = ("agentRef", "userInput", "initiator", "deliveredAt")
NOT_OBJECTS = ["[]", "[1,2]", "42", '"text"', "null", "true"]

Damage = Callable[[Any], Any]


def good_envelope(session_id: str, turn_id: str, priority: Priority) -> dict[str, Any]:
    return dict(json.loads(to_json_envelope(message(session_id, turn_id=turn_id, priority=priority))))


def good_document(session_id: str, turn_id: str, priority: Priority) -> dict[str, Any]:
    doc = to_mongo_document(message(session_id, turn_id=turn_id, priority=priority), ObjectId())
    del doc["_id"], doc["deliveredAt"]  # assigned by the store, as deliver() does
    return doc


def _set(path: tuple[str, ...], value: Any) -> Damage:
    def damage(obj: Any) -> Any:
        obj = copy.deepcopy(obj)
        target = obj
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return obj

    return damage


def _drop(path: tuple[str, ...]) -> Damage:
    def damage(obj: Any) -> Any:
        obj = copy.deepcopy(obj)
        target = obj
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
        return obj

    return damage


def _text(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"))


@st.composite
def envelope_damage(draw: st.DrawFn, *, bytes_allowed: bool) -> tuple[str, Callable[[dict[str, Any]], Any]]:
    """(kind, function from a good envelope object to the stored ``p`` / payload form). With
    ``bytes_allowed`` (Redis) the stored form may be text that is not JSON, or not even UTF-8."""
    kinds = ["missing", "wrong-type", "principal", "enum", "instant", "not-object", "turn-id-type"]
    if bytes_allowed:
        kinds += ["truncated", "not-utf8", "not-json", "foreign-fields"]
    kind = draw(st.sampled_from(kinds))
    if kind == "missing":
        field = draw(st.sampled_from(ENVELOPE_REQUIRED))
        return f"missing {field}", lambda env: _text(_drop((field,))(env))
    if kind == "wrong-type":
        field = draw(st.sampled_from(ENVELOPE_REQUIRED))
        value = draw(WRONG_VALUES.filter(lambda v: not (field == "initiator" and isinstance(v, dict) and not v)))
        return f"{field} = {value!r}", lambda env: _text(_set((field,), value)(env))
    if kind == "principal":
        value = draw(st.sampled_from(["ROBOT", "user", "", "AGENT "]))
        return f"initiator.type = {value!r}", lambda env: _text(_set(("initiator", "type"), value)(env))
    if kind == "enum":
        value = draw(st.sampled_from(["URGENT", "now", "", "NOW ", "0"]))
        return f"priority = {value!r}", lambda env: _text(_set(("priority",), value)(env))
    if kind == "instant":
        value = draw(st.sampled_from(["yesterday", "2026-13-01T00:00:00Z", "", "1700000000"]))
        return f"deliveredAt = {value!r}", lambda env: _text(_set(("deliveredAt",), value)(env))
    if kind == "not-object":
        value = draw(st.sampled_from(NOT_OBJECTS))
        return f"envelope = {value}", lambda env: value
    if kind == "turn-id-type":
        value = draw(st.sampled_from([5, [], {"$gt": ""}, True]))
        return f"turnId = {value!r}", lambda env: _text(_set(("turnId",), value)(env))
    if kind == "truncated":
        fraction = draw(st.floats(min_value=0.0, max_value=0.99))
        return f"truncated at {fraction:.2f}", lambda env: _text(env)[: int(len(_text(env)) * fraction)]
    if kind == "not-utf8":
        junk = draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80\x80"]))
        return f"bytes {junk!r} inside", lambda env: _text(env).encode()[:10] + junk + _text(env).encode()[10:]
    if kind == "not-json":
        value = draw(st.sampled_from(["{", "{'conversationId': 1}", "NaN-ish", '{"a":}', "\x00"]))
        return f"not JSON {value!r}", lambda env: value
    return "fields without p", lambda env: {"x": "1", "payload": _text(env)}


@st.composite
def document_damage(draw: st.DrawFn) -> tuple[str, Callable[[dict[str, Any]], Any]]:
    """(kind, function from a good MongoDB document to a damaged one)."""
    kinds = ["missing", "wrong-type", "principal", "enum", "payload", "bytes", "encoded"]
    kind = draw(st.sampled_from(kinds))
    if kind == "missing":
        field = draw(st.sampled_from(PAYLOAD_REQUIRED))
        return f"missing payload.{field}", _drop(("payload", field))
    if kind == "wrong-type":
        field = draw(st.sampled_from(PAYLOAD_REQUIRED))
        value = draw(WRONG_VALUES.filter(lambda v: not (field == "initiator" and isinstance(v, dict) and not v)))
        return f"payload.{field} = {value!r}", _set(("payload", field), value)
    if kind == "principal":
        value = draw(st.sampled_from(["ROBOT", "user", ""]))
        return f"payload.initiator.type = {value!r}", _set(("payload", "initiator", "type"), value)
    if kind == "enum":
        value = draw(st.sampled_from([-1, -7, 0.5, 7, "NOW", None]))
        return f"priority = {value!r}", _set(("priority",), value)
    if kind == "payload":
        value = draw(st.sampled_from(["text", 5, ["a"], None]))
        return f"payload = {value!r}", _set(("payload",), value)
    if kind == "bytes":
        field = draw(st.sampled_from(["userInput", "agentRef", "turnId"]))
        return f"payload.{field} = bytes", _set(("payload", field), Binary(b"\xff\xfe"))
    value = draw(st.sampled_from([5, ["x"], {"type": "TEXT"}]))
    return f"payload.userInputEncoded = {value!r}", _set(("payload", "userInputEncoded"), value)
