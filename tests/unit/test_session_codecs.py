"""Round trips and refusals of the shared session codecs (signal, idempotency, task, totals)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import bson
import pytest
from bson.int64 import Int64
from hypothesis import given
from hypothesis import strategies as st

from aimon_mongo.codec import idempotency as idem
from aimon_mongo.codec import signal as sig
from aimon_mongo.codec import task as task_codec
from aimon_mongo.codec import totals as totals_codec
from aimon_mongo.errors import CodecError
from aimon_mongo.model import (
    BackgroundTask,
    CompletionReason,
    IdempotencyEntry,
    SessionSignal,
    TaskState,
    TurnResult,
)
from aimon_mongo.model.record import SessionTotals
from tests import session_strategies as s

T0 = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)


def _bson_round_trip(doc: dict[str, Any]) -> dict[str, Any]:
    """What a MongoDB server hands back: BSON-encoded and decoded (dates keep milliseconds)."""
    options = bson.CodecOptions(tz_aware=True, tzinfo=UTC)
    return bson.decode(bson.encode(doc), codec_options=options)


# --- signals ------------------------------------------------------------------------------------------


@given(s.signals)
def test_signal_json_round_trip(signal: SessionSignal) -> None:
    assert sig.signal_from_json(sig.signal_to_json(signal)) == signal


@given(s.signals)
def test_signal_document_round_trip_through_bson(signal: SessionSignal) -> None:
    stored = _bson_round_trip({"_id": bson.ObjectId(), **sig.encode_signal(signal)})
    assert sig.decode_signal(stored) == signal


def test_signal_unknown_kind_refused_without_echoing_payload() -> None:
    doc = {"conversationId": "s", "kind": "TELEPORT", "originNodeId": "n", "payload": {"secret": "p4ss"}}
    with pytest.raises(CodecError, match="Unknown signal kind: 'TELEPORT'") as info:
        sig.decode_signal(doc)
    assert "p4ss" not in str(info.value)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"kind": "EVICT", "originNodeId": "n"}, "conversationId"),
        ({"conversationId": "  ", "kind": "EVICT", "originNodeId": "n"}, "blank"),
        ({"conversationId": "s", "originNodeId": "n"}, "signal kind"),
        ({"conversationId": "s", "kind": "EVICT"}, "originNodeId"),
        ({"conversationId": "s", "kind": "EVICT", "originNodeId": "n", "payload": [1]}, "payload"),
        ({"conversationId": 7, "kind": "EVICT", "originNodeId": "n"}, "conversationId"),
    ],
)
def test_signal_refusals(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(CodecError, match=message):
        sig.decode_signal(doc)


def test_signal_bson_only_values_become_text_and_missing_payload_is_empty() -> None:
    oid = bson.ObjectId()
    doc = {"conversationId": "s", "kind": "EVENT", "originNodeId": "n", "payload": {"ts": T0, "ref": oid}}
    decoded = sig.decode_signal(doc)
    assert decoded.payload == {"ts": "2026-01-02T03:04:05.678Z", "ref": str(oid)}
    assert sig.decode_signal({"conversationId": "s", "kind": "YIELD", "originNodeId": "n"}).payload == {}


@pytest.mark.parametrize("text", ["not json", "[1]", '{"conversationId": NaN}', b"\xff"])
def test_signal_from_bad_json_refused(text: str | bytes) -> None:
    with pytest.raises(CodecError):
        sig.signal_from_json(text)


# --- idempotency ---------------------------------------------------------------------------------------


@given(s.idempotency_entries(), s.ttls)
def test_idempotency_json_round_trip(entry: IdempotencyEntry, ttl: timedelta) -> None:
    decoded, ttl_ms = idem.entry_from_json(idem.entry_to_json(entry, ttl))
    assert decoded == entry
    assert ttl_ms == idem.ttl_millis(ttl)


@given(s.idempotency_entries(millis=True))
def test_idempotency_mongo_round_trip_through_bson(entry: IdempotencyEntry) -> None:
    stored = _bson_round_trip({**idem.entry_to_mongo(entry), "expiresAt": T0})
    assert idem.entry_from_mongo(stored) == entry


@given(s.turn_results)
def test_result_round_trip(result: TurnResult) -> None:
    assert idem.decode_result(json.loads(json.dumps(idem.encode_result(result)))) == result


@pytest.mark.parametrize(("success", "expected"), [(True, "COMPLETED"), (False, "ERROR")])
def test_unknown_completion_reason_reads_coarse(success: bool, expected: str) -> None:
    stored = {"success": success, "completionReason": "QUANTUM_COLLAPSE", "wasStreamed": True}
    result = idem.decode_result(stored)
    assert result is not None
    assert result.completion_reason == CompletionReason(expected)
    assert result.final_answer is None and result.was_streamed is True
    absent = idem.decode_result({"success": success})
    assert absent is not None and absent.completion_reason == CompletionReason(expected)


def test_missing_holder_field_reads_as_no_holder() -> None:
    doc = {
        "_id": "k",
        "conversationId": "s",
        "inputHash": "h",
        "status": "IN_FLIGHT",
        "createdAt": T0,
        "lastTouchedAt": T0,
        "expiresAt": T0,
    }
    entry = idem.entry_from_mongo(doc)
    assert entry.holder_id is None and entry.result is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"status": "HALF_DONE"}, "idempotency status"),
        ({"status": None}, "idempotency status"),
        ({"_id": ""}, "blank"),
        ({"createdAt": "yesterday"}, "createdAt"),
        ({"result": {"finalAnswer": "x"}}, "success"),
        ({"result": "DONE"}, "result"),
        ({"holderId": 12}, "holderId"),
    ],
)
def test_idempotency_refusals(change: dict[str, Any], message: str) -> None:
    doc = {
        "_id": "k",
        "conversationId": "s",
        "inputHash": "h",
        "status": "IN_FLIGHT",
        "holderId": None,
        "createdAt": T0,
        "lastTouchedAt": T0,
        "result": None,
    }
    doc.update(change)
    with pytest.raises(CodecError, match=message):
        idem.entry_from_mongo(doc)


def test_ttl_millis_rounds_down_but_never_to_zero() -> None:
    assert idem.ttl_millis(timedelta(seconds=30)) == 30000
    assert idem.ttl_millis(timedelta(microseconds=10)) == 1


# --- background tasks ----------------------------------------------------------------------------------


@given(s.background_tasks())
def test_task_json_round_trip(task: BackgroundTask) -> None:
    assert task_codec.task_from_json(task_codec.task_to_json(task)) == task


@given(s.background_tasks(millis=True))
def test_task_mongo_round_trip_through_bson(task: BackgroundTask) -> None:
    stored = _bson_round_trip(task_codec.task_to_mongo(task))
    assert isinstance(stored["outputOffset"], Int64)
    decoded = task_codec.task_from_mongo(stored)
    assert decoded == task
    assert (decoded.owner is None) == (task.owner is None)
    if task.owner is not None and decoded.owner is not None:
        assert decoded.owner.display_name == task.owner.display_name


@given(s.background_tasks())
def test_task_layouts_carry_the_same_keys(task: BackgroundTask) -> None:
    mongo_keys = set(task_codec.task_to_mongo(task)) - {"_id"}
    json_keys = set(task_codec.task_to_json_object(task)) - {"taskId"}
    assert mongo_keys == json_keys


def test_task_defaults_for_missing_offset_and_description() -> None:
    doc = {"_id": "t", "subagentName": "a", "state": "PENDING", "startTime": T0}
    task = task_codec.task_from_mongo(doc)
    assert task.output_offset == 0 and task.description == "" and task.end_time is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"state": "ZOMBIE"}, "task state"),
        ({"startTime": None}, "startTime"),
        ({"outputOffset": "7"}, "outputOffset"),
        ({"outputOffset": True}, "outputOffset"),
        ({"owner": {"type": "ROBOT", "id": "r", "displayName": "R"}}, "principal type"),
        ({"subagentName": None}, "subagentName"),
    ],
)
def test_task_refusals(change: dict[str, Any], message: str) -> None:
    doc: dict[str, Any] = {"_id": "t", "subagentName": "a", "state": "PENDING", "startTime": T0}
    doc.update(change)
    with pytest.raises(CodecError, match=message):
        task_codec.task_from_mongo(doc)


def test_task_json_reads_integral_float_offset() -> None:
    text = '{"taskId":"t","subagentName":"a","state":"RUNNING","startTime":"2026-01-02T03:04:05Z","outputOffset":5.0}'
    assert task_codec.task_from_json(text).output_offset == 5
    assert task_codec.task_from_json(text).state is TaskState.RUNNING


# --- totals ---------------------------------------------------------------------------------------------


@given(s.session_totals)
def test_totals_round_trips(totals: SessionTotals) -> None:
    assert totals_codec.totals_from_json(totals_codec.totals_to_json(totals)) == totals
    assert totals_codec.decode_totals(_bson_round_trip(totals_codec.encode_totals(totals))) == totals


@given(st.dictionaries(st.sampled_from(["turnCount", "iterations", "totalTokens"]), st.integers(0, 99)))
def test_totals_missing_keys_read_as_zero(partial: dict[str, int]) -> None:
    totals = totals_codec.decode_totals(partial)
    assert totals.turn_count == partial.get("turnCount", 0)
    assert totals.prompt_tokens == 0


def test_totals_refuse_non_numbers() -> None:
    with pytest.raises(CodecError, match="promptTokens"):
        totals_codec.decode_totals({"promptTokens": "many"})
    with pytest.raises(CodecError, match="session totals"):
        totals_codec.decode_totals([1, 2])
