"""What the ADK services store conforms to its declarations (``aimon_mongo/stored/adk.py``), and the
stored names are the frozen literals."""

from __future__ import annotations

import json
from pathlib import Path

from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.genai import types

from aimon_mongo.adk import AimonArtifactService, AimonSessionService
from aimon_mongo.adk import artifacts as artifact_module
from aimon_mongo.adk import sessions as session_module
from aimon_mongo.schema_gate import assert_conforms


def test_the_stored_names_are_the_frozen_literals() -> None:
    assert session_module.MONGO_COLLECTIONS == {
        "records": "adk_session_records",
        "segments": "adk_session_log_segments",
        "fences": "adk_session_fences",
        "locks": "adk_session_locks",
    }
    assert (session_module.REDIS_NAMESPACE, session_module.POSTGRES_SCHEMA) == ("adk", "aimon_adk")
    assert AimonSessionService.session_key("my app", "u/1", "s:1") == "adk/my%20app/u%2F1/s%3A1"
    assert (artifact_module.DEFAULT_ROOT, artifact_module.META_SUFFIX) == ("adk-artifacts", ".meta.json")
    assert (artifact_module.ATTR_KIND, artifact_module.ATTR_MIME, artifact_module.ATTR_METADATA) == (
        "adk.kind",
        "adk.mime_type",
        "adk.custom_metadata",
    )
    assert (artifact_module.ATTR_FILE_URI, artifact_module.ATTR_CREATED) == ("adk.file_uri", "adk.create_time")


async def test_session_records_and_segments_hold_the_declared_json() -> None:
    service = AimonSessionService.from_url("memory://stored-shapes")
    made = await service.create_session(
        app_name="app", user_id="ann", session_id="s", state={"k": 1, "app:a": 2, "user:u": 3}
    )
    await service.append_event(
        made, Event(author="user", invocation_id="i", actions=EventActions(state_delta={"x": 1}))
    )
    records, segments = service.backends.records, service.backends.segments
    header = await records.load("adk/app/ann/s")
    assert header is not None and header.transcript is not None
    assert_conforms("adk.session-header", header.transcript)
    assert json.loads(header.transcript)["events"] == 1
    for key in ("adk-app/app", "adk-user/app/ann"):
        state = await records.load(key)
        assert state is not None and state.transcript is not None
        assert_conforms("adk.state", state.transcript)
    event = await segments.get("adk/app/ann/s", "000000000000")
    assert event is not None
    assert_conforms("adk.event", event.payload)
    assert Event.model_validate_json(event.payload).actions.state_delta == {"x": 1}
    for index, entry in (("adk-list/app/ann", "s"), ("adk-users/app", "ann")):
        found = await segments.get(index, entry)
        assert found is not None
        assert_conforms("adk.listing-entry", found.payload)


async def test_artifact_attributes_and_sidecars_hold_the_declared_map(tmp_path: Path) -> None:
    scope = {"app_name": "app", "user_id": "ann", "session_id": "s", "filename": "f"}
    in_memory = AimonArtifactService.from_url("memory://stored-attributes")
    await in_memory.save_artifact(artifact=types.Part(text="t"), custom_metadata={"a": [1]}, **scope)
    await in_memory.save_artifact(
        artifact=types.Part(file_data=types.FileData(file_uri="gs://b/o", mime_type="x/y")), **scope
    )
    for version in ("0000000000", "0000000001"):
        info = await in_memory.fs.info(f"adk-artifacts/app/ann/sessions/s/f/{version}")
        assert_conforms("adk.artifact-attributes", info.custom_metadata)
    local = AimonArtifactService.from_url(f"file://{tmp_path}")
    await local.save_artifact(artifact=types.Part(inline_data=types.Blob(data=b"b", mime_type="a/b")), **scope)
    sidecar = tmp_path / "adk-artifacts/app/ann/sessions/s/f/0000000000.meta.json"
    assert_conforms("adk.artifact-attributes", json.loads(sidecar.read_text()))
    assert (tmp_path / "adk-artifacts/app/ann/sessions/s/f/0000000000").read_bytes() == b"b"
    await local.close()
