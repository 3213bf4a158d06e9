"""The inbound codec's output conforms to the declared inbox roots (JSON envelope and Mongo document)."""

from __future__ import annotations

from bson import ObjectId
from hypothesis import HealthCheck, given, settings

from aimon_mongo.codec.inbound import to_json_envelope, to_mongo_document
from aimon_mongo.model import InboundMessage
from aimon_mongo.schema_gate import assert_conforms
from tests import strategies as s

CONFORMS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@CONFORMS
@given(s.inbound_messages() | s.inbound_messages(inputs=s.deep_inputs))
def test_json_envelope_conforms(msg: InboundMessage) -> None:
    assert_conforms("inbox.json-envelope", to_json_envelope(msg))


@CONFORMS
@given(s.inbound_messages(bson_safe=True) | s.inbound_messages(inputs=s.deep_inputs, bson_safe=True))
def test_mongo_document_conforms(msg: InboundMessage) -> None:
    assert_conforms("mongo.inbox.document", to_mongo_document(msg, ObjectId()))
