"""The store envelope (pure): splicing the codec's text is byte-for-byte the parse-and-print the reference
does, the result conforms to the declared ``snapshot.envelope`` root, and reading it back gives the
snapshot; path rules refuse what is not one segment."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from snapshot_strategies import ids, v1_snapshots, v2_snapshots

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.schema_gate import assert_conforms
from aimon_mongo.snapshots import JsonSessionSnapshotCodec, SessionLogFormat, SessionSnapshot, content_hash
from aimon_mongo.snapshots import _json as j
from aimon_mongo.snapshots.envelope import (
    build_envelope,
    decode_snapshot,
    parse_agent_runtime_id,
    read_envelope,
    validate_agent_runtime_id,
)
from aimon_mongo.snapshots.layout import object_path, segment_name, segment_start, validate_base_dir

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=150)
# An agent name cannot hold ":" (the first ":" after "agent:" ends it); a discriminator may.
agent_names = ids.filter(lambda name: ":" not in name)
runtime_ids = st.none() | st.builds(lambda n, d: f"agent:{n}" + (f":{d}" if d else ""), agent_names, st.none() | ids)


@pytest.mark.slow
@SETTINGS
@given(st.one_of(v1_snapshots(), v2_snapshots()), ids, runtime_ids, st.sampled_from(list(SessionLogFormat)))
def test_spliced_envelope_equals_parse_and_print(
    snapshot: SessionSnapshot, name: str, runtime_id: str | None, fmt: SessionLogFormat
) -> None:
    codec = JsonSessionSnapshotCodec(fmt)
    # the strategies draw any text as a content hash; a stored one is always "sha256:<hex>"
    manifest = tuple(
        line.model_copy(update={"content_hash": content_hash(line.segment_id)}) for line in snapshot.manifest
    )
    snapshot = snapshot.model_copy(update={"manifest": manifest})
    text = build_envelope(codec, name, runtime_id, snapshot)
    head = {"v": 1, "subagentName": name} | ({"contextId": runtime_id} if runtime_id is not None else {})
    head["snapshot"] = j.loads(codec.encode(snapshot))
    assert text == j.dumps(head)
    assert list(json.loads(text)) == list(head)
    assert_conforms("snapshot.envelope", text)
    stored = read_envelope(text.encode("utf-8"))
    assert (stored.subagent_name, stored.context_id) == (name, runtime_id)
    assert decode_snapshot(codec, stored) == codec.decode(codec.encode(snapshot))


@pytest.mark.parametrize("base", [None, "", "  ", "/", ".", "./", "a/../b", "/abs", "a//b", 5])
def test_base_dirs_that_are_refused(base: object) -> None:
    with pytest.raises(InvalidArgumentError, match="base_dir"):
        validate_base_dir(base)


def test_base_dir_spellings() -> None:
    assert validate_base_dir("task-snapshot/") == "task-snapshot"
    assert validate_base_dir("control/task-snapshot") == "control/task-snapshot"
    assert object_path("control/x", "t-1", ".json") == "control/x/t-1.json"


def test_a_task_id_too_long_for_a_path_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="does not make a valid path"):
        object_path("task-snapshot", "x" * 5000, ".json")


@pytest.mark.parametrize(
    ("name", "start"),
    [
        ("d/00000000000000000042.seg", 42),
        ("d/7.seg", 7),
        ("d/-1.seg", None),
        ("d/+1.seg", None),
        ("d/x.seg", None),
        ("d/.seg", None),
        ("d/42.txt", None),
        ("d/99999999999999999999.seg", None),  # beyond a Java long
        ("d/09223372036854775807.seg", 2**63 - 1),
    ],
)
def test_segment_names(name: str, start: int | None) -> None:
    assert segment_start(name) == start


def test_segment_names_are_zero_padded_to_20_digits() -> None:
    assert segment_name(0) == "00000000000000000000.seg"
    assert segment_name(1234) == "00000000000000001234.seg"


@pytest.mark.parametrize("text", ["agent::", "agent:", "agent: :x", "agent:x:", "agent:x: ", "reviewer"])
def test_malformed_runtime_ids_read_as_absent_and_are_refused_on_save(text: str) -> None:
    assert parse_agent_runtime_id(text) is None
    with pytest.raises(InvalidArgumentError, match="agent runtime id"):
        validate_agent_runtime_id(text)


@pytest.mark.parametrize("text", ["agent:reviewer", "agent:reviewer:c-1", "agent:x:a:b"])
def test_well_formed_runtime_ids(text: str) -> None:
    assert parse_agent_runtime_id(text) == text == validate_agent_runtime_id(text)
