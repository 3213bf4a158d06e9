"""Fuzzed stored shapes: the decoders raise nothing but CodecError, and recover_address raises nothing.

What comes back from a successful decode is a valid model that writes back and reads again unchanged.
"""

from __future__ import annotations

import json
from datetime import UTC, timedelta, timezone
from typing import Any

from bson import ObjectId
from bson.decimal128 import Decimal128
from bson.int64 import Int64
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aimon_mongo.codec import user_input
from aimon_mongo.codec.inbound import (
    from_json_envelope,
    from_mongo_document,
    recover_address,
    to_json_envelope,
    to_mongo_document,
)
from aimon_mongo.codec.json_text import parse_json
from aimon_mongo.errors import CodecError
from aimon_mongo.model import InboundMessage
from tests import strategies as s
from tests.helpers import JSON_ENVELOPE_KEYS, assert_same_message

FUZZ = settings(deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow])

# --- values a damaged or foreign entry may hold

any_text = st.text(alphabet=st.characters(), max_size=40)  # lone surrogates included
wild_json = s.json_values() | st.floats() | any_text  # NaN, infinities, surrogates on top of JSON
encodings = s.user_inputs().map(user_input.encode)
instants = st.sampled_from(
    [
        "2024-05-01T12:34:56.789Z",
        "2024-05-01T12:34:56.123456789Z",
        "2024-05-01T14:34:56+02:00",
        "0001-01-01T00:00:00+01:00",
        "2024-05-01T12:34:56+99:00",
        "9999-12-31T23:59:59-01:00",
        "2024-02-30T00:00:00Z",
    ]
)
principal_shapes = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["USER", "GROUP", "SYSTEM", "SERVICE", "ROBOT", ""]) | wild_json,
        "id": s.non_blank_texts | st.just("  ") | wild_json,
        "displayName": s.texts | wild_json,
    },
)


def envelope_shapes() -> st.SearchStrategy[dict[str, Any]]:
    """JSON envelopes with each key absent, plausible, or anything at all."""
    plausible: dict[str, st.SearchStrategy[Any]] = {
        "conversationId": s.non_blank_texts,
        "agentRef": s.texts,
        "userInput": s.texts,
        "userInputEncoded": encodings | st.none(),
        "priority": st.sampled_from(["NOW", "NEXT", "LATER", "SOON"]),
        "turnId": s.optional_texts,
        "contextDiscriminator": s.optional_texts,
        "idempotencyKey": s.optional_texts,
        "initiator": principal_shapes,
        "deliveredAt": instants,
        "metadata": st.dictionaries(s.texts, wild_json, max_size=3),
        "submitOptions": st.fixed_dictionaries(
            {},
            optional={
                "principal": principal_shapes | wild_json,
                "systemPromptVariables": wild_json,
                "executionAttributes": wild_json,
                "llmCallMetadata": st.dictionaries(s.texts, wild_json, max_size=3) | wild_json,
                "userContextInjection": wild_json,
            },
        ),
    }
    return st.fixed_dictionaries({}, optional={key: value | wild_json for key, value in plausible.items()})


bson_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()
    | any_text
    | st.binary(max_size=16)
    | st.datetimes()
    | st.datetimes(timezones=st.sampled_from([UTC, timezone(timedelta(hours=13)), timezone(-timedelta(hours=9))]))
    | st.builds(ObjectId)
    | st.integers(-(2**63), 2**63 - 1).map(Int64)
    | st.sampled_from([Decimal128("1.5"), Decimal128("NaN")])
)
bson_values = st.recursive(
    bson_scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(s.texts, c, max_size=3), max_leaves=8
)


def payload_shapes() -> st.SearchStrategy[dict[str, Any]]:
    plausible: dict[str, st.SearchStrategy[Any]] = {
        "agentRef": s.texts,
        "contextDiscriminator": s.optional_texts,
        "userInput": s.texts,
        "userInputEncoded": encodings.map(json.dumps) | any_text | st.none(),
        "turnId": s.optional_texts,
        "idempotencyKey": s.optional_texts,
        "initiator": principal_shapes,
        "deliveredAt": st.datetimes() | s.utc_datetimes(),
        "metadata": st.dictionaries(s.texts, bson_values, max_size=3),
        "submitOptions": st.dictionaries(
            st.sampled_from(["principal", "systemPromptVariables", "executionAttributes", "llmCallMetadata"]),
            bson_values | principal_shapes,
            max_size=4,
        ),
    }
    return st.fixed_dictionaries({}, optional={key: value | bson_values for key, value in plausible.items()})


def document_shapes() -> st.SearchStrategy[dict[str, Any]]:
    plausible: dict[str, st.SearchStrategy[Any]] = {
        "_id": st.builds(ObjectId),
        "conversationId": s.non_blank_texts,
        "priority": st.integers(-1, 3) | st.integers(0, 2).map(Int64),
        "deliveredAt": st.datetimes(),
        "payload": payload_shapes(),
    }
    return st.fixed_dictionaries({}, optional={key: value | bson_values for key, value in plausible.items()})


ENVELOPE_PATHS = [(key,) for key in JSON_ENVELOPE_KEYS] + [
    ("initiator", "type"),
    ("initiator", "id"),
    ("initiator", "displayName"),
    ("submitOptions", "principal"),
    ("submitOptions", "systemPromptVariables"),
    ("submitOptions", "llmCallMetadata"),
    ("userInputEncoded", "type"),
    ("userInputEncoded", "mimeType"),
    ("userInputEncoded", "data"),
    ("userInputEncoded", "inputs"),
]
DOCUMENT_PATHS = [("_id",), ("conversationId",), ("priority",), ("deliveredAt",), ("payload",)] + [
    ("payload", *path) for path in ENVELOPE_PATHS if path[0] not in ("conversationId", "priority")
]


@st.composite
def damaged(draw: st.DrawFn, start: dict[str, Any], paths: list[tuple[str, ...]], values: Any) -> dict[str, Any]:
    """``start`` with up to three keys (at any level) removed or replaced; sometimes left intact."""
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(paths))
        container: Any = start
        for key in path[:-1]:
            container = container.get(key) if isinstance(container, dict) else None
        if not isinstance(container, dict):
            continue
        if draw(st.booleans()):
            container.pop(path[-1], None)
        else:
            container[path[-1]] = draw(values)
    return start


def damaged_envelopes() -> st.SearchStrategy[dict[str, Any]]:
    """Real envelopes (from real messages) with a few keys broken."""
    start = s.inbound_messages().map(lambda msg: json.loads(to_json_envelope(msg)))
    return start.flatmap(lambda obj: damaged(obj, ENVELOPE_PATHS, wild_json | principal_shapes | instants))


def damaged_documents() -> st.SearchStrategy[dict[str, Any]]:
    """Real Mongo documents with a few keys broken."""
    start = s.inbound_messages().map(lambda msg: to_mongo_document(msg, ObjectId()))
    return start.flatmap(
        lambda doc: damaged(doc, DOCUMENT_PATHS, bson_values | principal_shapes | encodings.map(json.dumps))
    )


# --- the properties


def check_json(text: str | bytes) -> None:
    try:
        msg = from_json_envelope(text, "7-0")
    except CodecError:
        return
    assert_written_back(msg)


def check_mongo(doc: Any) -> None:
    try:
        msg = from_mongo_document(doc)
    except CodecError:
        return
    assert_written_back(msg)


def assert_written_back(msg: InboundMessage) -> None:
    """A decoded message is valid by the model's rules and survives both forms unchanged."""
    assert_same_message(InboundMessage.model_validate(msg.model_dump()), msg)
    try:
        text = to_json_envelope(msg)
    except CodecError:  # e.g. text with a lone surrogate read from a foreign entry: refused on write
        return
    assert_same_message(from_json_envelope(text, msg.id), msg)
    oid = ObjectId(msg.id) if msg.id is not None and len(msg.id) == 24 else ObjectId()
    assert_same_message(from_mongo_document(to_mongo_document(msg, oid)), msg.with_id(str(oid)))


@FUZZ
@given(any_text)
def test_json_decoder_on_any_text(text: str) -> None:
    check_json(text)


@FUZZ
@given(st.binary(max_size=200))
def test_json_decoder_on_any_bytes(raw: bytes) -> None:
    check_json(raw)
    check_json(raw.decode("latin-1"))


@FUZZ
@given(wild_json)
def test_json_decoder_on_any_json_value(value: Any) -> None:
    check_json(json.dumps(value))


@FUZZ
@given(envelope_shapes() | damaged_envelopes())
def test_json_decoder_on_envelopes_with_wrong_types(obj: dict[str, Any]) -> None:
    check_json(json.dumps(obj))


@FUZZ
@given(st.integers(1, 20_000), st.sampled_from(["[", '{"a":', '{"userInputEncoded":']))
def test_json_decoder_on_deep_nesting(depth: int, opener: str) -> None:
    check_json(opener * depth)


@FUZZ
@given(bson_values)
def test_mongo_decoder_on_any_value(value: Any) -> None:
    check_mongo(value)


@FUZZ
@given(document_shapes() | damaged_documents())
def test_mongo_decoder_on_documents_with_wrong_types(doc: dict[str, Any]) -> None:
    check_mongo(doc)


@FUZZ
@given(wild_json.map(json.dumps) | any_text | wild_json.map(lambda v: json.dumps(v, ensure_ascii=False)))
def test_parse_json_fast_path_agrees_with_the_json_module(text: str) -> None:
    try:
        expected = json.loads(text)
    except (ValueError, RecursionError):
        expected = _REFUSED
    try:
        actual = parse_json(text, "value")
    except CodecError:
        actual = _REFUSED
    if expected is not _REFUSED and _holds_non_finite(expected):
        return  # NaN / Infinity literals: the json module reads them, parse_json refuses them on purpose
    assert _same_json(actual, expected)


_REFUSED = object()


def _holds_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return value != value or value in (float("inf"), float("-inf"))
    if isinstance(value, list):
        return any(_holds_non_finite(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_non_finite(v) for v in value.values())
    return False


def _same_json(a: Any, b: Any) -> bool:
    """Equal, with the same types (1 and 1.0 and True differ), at every level."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same_json(a[k], b[k]) for k in a)
    return a is b or a == b or (a != a and b != b)


# --- recover_address


def _ids_in(obj: Any) -> set[Any]:
    """Every value stored under turnId / idempotencyKey, at the top or in a Mongo payload."""
    found: set[Any] = set()
    if not isinstance(obj, dict):
        return found
    for source in (obj, obj.get("payload")):
        if isinstance(source, dict):
            for key in ("turnId", "idempotencyKey"):
                value = source.get(key)
                if isinstance(value, str):
                    found.add(value)
    return found


def check_recover(raw: Any, parsed: Any) -> None:
    turn_id, key = recover_address(raw)
    for value in (turn_id, key):
        assert value is None or (isinstance(value, str) and value.strip() and value in _ids_in(parsed))


@FUZZ
@given(envelope_shapes() | damaged_envelopes() | document_shapes() | damaged_documents() | bson_values)
def test_recover_address_on_stored_shapes(obj: Any) -> None:
    check_recover(obj, obj)
    try:
        text = json.dumps(obj)
    except (TypeError, ValueError):
        return
    check_recover(text, json.loads(text))
    check_recover(text.encode("ascii"), json.loads(text))  # json.dumps escapes everything non-ASCII


@FUZZ
@given(any_text | st.binary(max_size=200))
def test_recover_address_on_garbage(raw: str | bytes) -> None:
    turn_id, key = recover_address(raw)
    assert turn_id is None or isinstance(turn_id, str)
    assert key is None or isinstance(key, str)


def test_recover_address_on_hostile_objects() -> None:
    class Exploding(dict[str, Any]):
        def get(self, key: str, default: Any = None) -> Any:
            raise MemoryError

    class BadBytes(bytes):
        def decode(self, *args: Any, **kwargs: Any) -> str:
            raise RuntimeError

    for raw in (Exploding(), BadBytes(b'{"turnId":"t"}'), "[" * 200_000, {"payload": Exploding()}):
        assert recover_address(raw) in {(None, None), ("t", None)}
