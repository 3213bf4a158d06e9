"""ADK's artifact contract on every filesystem family (memory, GridFS, local directory): versions, text and
inline data, ``user:`` scope, complete key listing, custom metadata, canonical URIs naming the file, delete;
concurrent savers on two nodes; an artifact far above 16 MB on GridFS."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

import pytest
from google.adk.artifacts.base_artifact_service import ArtifactVersion
from google.adk.errors.input_validation_error import InputValidationError
from google.genai import types

from aimon_mongo.adk import AimonArtifactService

Open = Callable[..., AimonArtifactService]
SCOPE: dict[str, Any] = {"app_name": "app", "user_id": "ann", "session_id": "s1"}


def text(value: str) -> types.Part:
    return types.Part(text=value)


def blob(data: bytes, mime: str = "image/png") -> types.Part:
    return types.Part(inline_data=types.Blob(data=data, mime_type=mime))


async def test_versions_count_from_zero_and_each_loads_back(open_artifacts: Open) -> None:
    service = open_artifacts()
    assert await service.load_artifact(filename="report.md", **SCOPE) is None
    assert await service.save_artifact(filename="report.md", artifact=text("draft"), **SCOPE) == 0
    assert await service.save_artifact(filename="report.md", artifact=blob(b"\x00\xff" * 10), **SCOPE) == 1
    assert await service.save_artifact(filename="report.md", artifact={"text": "final"}, **SCOPE) == 2
    assert await service.list_versions(filename="report.md", **SCOPE) == [0, 1, 2]
    assert (await service.load_artifact(filename="report.md", **SCOPE)) == text("final")
    assert (await service.load_artifact(filename="report.md", version=0, **SCOPE)) == text("draft")
    loaded = await service.load_artifact(filename="report.md", version=1, **SCOPE)
    assert loaded is not None and loaded.inline_data is not None
    assert (loaded.inline_data.data, loaded.inline_data.mime_type) == (b"\x00\xff" * 10, "image/png")
    assert await service.load_artifact(filename="report.md", version=7, **SCOPE) is None


async def test_user_scope_key_listing_metadata_uris_and_delete(open_artifacts: Open) -> None:
    service = open_artifacts()
    await service.save_artifact(
        filename="a/b.txt", artifact=text("x"), custom_metadata={"source": "tool", "n": 2}, **SCOPE
    )
    await service.save_artifact(filename="user:profile.json", artifact=blob(b"{}", "application/json"), **SCOPE)
    s2: dict[str, Any] = {"app_name": "app", "user_id": "ann", "session_id": "s2"}
    for name in ("only-s2", ".env", "we*ird[1]{a,b}?.txt"):  # a leading dot, glob characters: listed all the same
        await service.save_artifact(filename=name, artifact=text("y"), **s2)
    with pytest.raises(InputValidationError):
        await service.save_artifact(filename="needs-session", artifact=text("z"), app_name="app", user_id="ann")
    # the user-scoped artifact is seen from every session of the user, and without a session
    assert await service.list_artifact_keys(**SCOPE) == ["a/b.txt", "user:profile.json"]
    assert await service.list_artifact_keys(**s2) == [".env", "only-s2", "user:profile.json", "we*ird[1]{a,b}?.txt"]
    assert await service.load_artifact(filename=".env", **s2) == text("y")
    assert await service.list_versions(filename="we*ird[1]{a,b}?.txt", **s2) == [0]
    assert await service.list_artifact_keys(app_name="app", user_id="ann") == ["user:profile.json"]
    assert await service.list_artifact_keys(app_name="app", user_id="bob", session_id="s1") == []
    profile = await service.load_artifact(
        filename="user:profile.json", app_name="app", user_id="ann", session_id="other"
    )
    assert profile is not None and profile.inline_data is not None and profile.inline_data.data == b"{}"
    described = await service.get_artifact_version(filename="a/b.txt", **SCOPE)
    assert isinstance(described, ArtifactVersion)
    assert (described.version, described.custom_metadata, described.mime_type) == (
        0,
        {"source": "tool", "n": 2},
        "text/plain",
    )
    assert described.create_time > 0
    # the canonical URI names the version's file, an ordinary file of the filesystem
    path = "adk-artifacts/app/ann/sessions/s1/a%2Fb.txt/0000000000"
    where = service.fs.working_directory
    expected = {"memory": f"memory://{path}", "gridfs": f"{where}/{path}"}.get(
        where.split(":")[0], f"file://{where}/{path}"
    )
    assert described.canonical_uri == expected
    assert await service.fs.read(path) == b"x"
    assert [v.version for v in await service.list_artifact_versions(filename="a/b.txt", **SCOPE)] == [0]
    await service.delete_artifact(filename="a/b.txt", **SCOPE)
    await service.delete_artifact(filename="never-saved", **SCOPE)
    assert await service.list_artifact_keys(**SCOPE) == ["user:profile.json"]
    assert await service.load_artifact(filename="a/b.txt", **SCOPE) is None
    assert await service.save_artifact(filename="a/b.txt", artifact=text("again"), **SCOPE) == 0


async def test_an_unsupported_part_is_refused(open_artifacts: Open) -> None:
    service = open_artifacts()
    call = types.Part(function_call=types.FunctionCall(name="f", args={}))
    with pytest.raises(InputValidationError, match="function_call"):
        await service.save_artifact(filename="f", artifact=call, **SCOPE)


async def test_concurrent_savers_on_two_nodes_get_every_version_once(open_artifacts: Open) -> None:
    a, b = open_artifacts(), open_artifacts()
    saves = [
        node.save_artifact(filename="shared.txt", artifact=text(f"{name}-{i}"), **SCOPE)
        for i in range(15)
        for name, node in (("a", a), ("b", b))
    ]
    versions = await asyncio.gather(*saves)
    assert sorted(versions) == list(range(30))
    contents = {(await a.load_artifact(filename="shared.txt", version=v, **SCOPE)).text for v in range(30)}  # type: ignore[union-attr]
    assert contents == {f"{n}-{i}" for n in "ab" for i in range(15)}


async def test_a_guessed_version_never_leaves_a_gap_nor_repeats_one(open_artifacts: Open) -> None:
    a, b = open_artifacts(), open_artifacts()
    assert await a.save_artifact(filename="g", artifact=text("a0"), **SCOPE) == 0
    # b has not seen "g": its guess 0 is taken, so it lists and goes on; then it guesses right
    assert [await b.save_artifact(filename="g", artifact=text(f"b{i}"), **SCOPE) for i in range(3)] == [1, 2, 3]
    # a last saw version 0: still stored, so a tries 1, which b took; a lists and takes the next free one
    assert await a.save_artifact(filename="g", artifact=text("a4"), **SCOPE) == 4
    # deleted on the other node: the version a last saw (4) is gone, so a starts again at 0, not at 5
    await b.delete_artifact(filename="g", **SCOPE)
    assert await a.save_artifact(filename="g", artifact=text("again"), **SCOPE) == 0
    assert await b.save_artifact(filename="g", artifact=text("b-again"), **SCOPE) == 1
    assert await a.list_versions(filename="g", **SCOPE) == [0, 1]
    assert await a.load_artifact(filename="g", **SCOPE) == text("b-again")
    assert await b.load_artifact(filename="g", version=0, **SCOPE) == text("again")


async def test_content_read_after_a_listing_is_refused_when_the_file_is_another_one_now(open_artifacts: Open) -> None:
    from aimon_mongo.errors import FileReplacedError

    service = open_artifacts()
    path = "adk-artifacts/app/ann/sessions/s1/f/0000000000"
    await service.save_artifact(filename="f", artifact=text("first"), **SCOPE)
    if not service.fs.supports_attributes:  # a local directory's attributes are in a sidecar: no etag to check
        stored = await service._attributes(path)
        assert stored is not None and stored[1] is None
        assert stored[0]["adk.kind"] == "text" and stored[0]["adk.mime_type"] == "text/plain"
        assert await service._content(path, None) == b"first"
        return
    listed = (await service.fs.info(path)).etag
    await service.delete_artifact(filename="f", **SCOPE)  # deleted and saved again between listing and read
    await service.save_artifact(filename="f", artifact=text("second"), **SCOPE)
    with pytest.raises(FileReplacedError):
        await service._content(path, listed)
    assert await service._content(path, (await service.fs.info(path)).etag) == b"second"


async def test_on_gridfs_a_save_costs_one_lookup_beyond_its_write_a_load_one_scan_beyond_its_read(
    mongo_uri: str, mongo_db_name: str
) -> None:
    from aimon_mongo.mongo import clients
    from aimon_mongo.mongo.command_log import CommandLog
    from aimon_mongo.testing import STANDIN_TIMEOUT_MS
    from aimon_mongo.vfs import AsyncGridFSFileSystem

    log = CommandLog()
    client = clients.async_mongo_client(mongo_uri, timeout_ms=STANDIN_TIMEOUT_MS, event_listeners=[log])
    fs = AsyncGridFSFileSystem(client, mongo_db_name)
    service = AimonArtifactService(fs)
    version_file = "adk-artifacts/app/ann/sessions/s1/f/0000000001"
    try:
        await service.save_artifact(filename="f", artifact=blob(b"v0"), **SCOPE)
        with log.recording() as write:  # the conditional write a save makes, on its own
            await fs.write("elsewhere/0000000000", b"w0", if_absent=True, attributes={"adk.kind": "inline_data"})
        with log.recording() as first:  # a filename this service has not seen: version 0, no listing
            assert await service.save_artifact(filename="new", artifact=blob(b"n0"), **SCOPE) == 0
        with log.recording() as saved:  # the version seen last is looked up, then the next one is written
            assert await service.save_artifact(filename="f", artifact=blob(b"v1"), **SCOPE) == 1
        with log.recording() as read:
            assert await fs.read(version_file) == b"v1"
        with log.recording() as loaded:  # one scan of the versions (attributes along), then the read
            assert await service.load_artifact(filename="f", **SCOPE) == blob(b"v1")
        with log.recording() as missing:
            assert await service.load_artifact(filename="never-saved", **SCOPE) is None
        with log.recording() as listed:  # the user's directory and the session's
            assert await service.list_artifact_keys(app_name="app", user_id="bob", session_id="s9") == []
    finally:
        await client.close()
    assert first.round_trips == write.round_trips
    assert missing.round_trips == 1 and listed.round_trips == 2  # nothing there: one scan per directory
    assert saved.round_trips == write.round_trips + 1
    assert loaded.round_trips == read.round_trips + 1 and loaded.documents == read.documents + 2


async def test_from_url_takes_the_database_from_the_path_and_the_override(mongo_uri: str, mongo_db_name: str) -> None:
    from tests.adk.conftest import with_database

    service = AimonArtifactService.from_url(with_database(mongo_uri, mongo_db_name))
    overridden = AimonArtifactService.from_url(with_database(mongo_uri, "ignored"), database=mongo_db_name)
    try:
        assert service.fs.working_directory == f"gridfs://{mongo_db_name}/fs"
        assert overridden.fs.working_directory == f"gridfs://{mongo_db_name}/fs"
        await service.save_artifact(filename="n", artifact=text("1"), **SCOPE)
        assert await overridden.load_artifact(filename="n", **SCOPE) == text("1")
    finally:
        await service.close()
        await overridden.close()


async def test_a_20_mib_artifact_is_stored_in_gridfs_chunks_and_fsck_is_clean(
    mongo_uri: str, mongo_db_name: str, async_mongo_client: Any
) -> None:
    from tests.adk.conftest import with_database

    service = AimonArtifactService.from_url(with_database(mongo_uri, mongo_db_name))
    payload = os.urandom(1 << 20) * 20
    try:
        assert (
            await service.save_artifact(filename="big.bin", artifact=blob(payload, "application/octet-stream"), **SCOPE)
            == 0
        )
        loaded = await service.load_artifact(filename="big.bin", **SCOPE)
        assert loaded is not None and loaded.inline_data is not None and loaded.inline_data.data == payload
        chunks = await async_mongo_client[mongo_db_name]["fs.chunks"].count_documents({})
        assert chunks >= 20  # chunks of at most 1 MiB: no document near 16 MB
        report = await service.fs.fsck()  # type: ignore[attr-defined]
        assert report.files_missing_chunks == [] and report.orphaned_chunks == 0
        assert await service.fs.ls_recursive("adk-artifacts") == [
            "adk-artifacts/app/ann/sessions/s1/big.bin/0000000000"
        ]
    finally:
        await service.close()


async def test_memory_urls_share_one_store_per_name() -> None:
    one, two = AimonArtifactService.from_url("memory://shared-x"), AimonArtifactService.from_url("memory://shared-x")
    other = AimonArtifactService.from_url("memory://shared-y")
    await one.save_artifact(filename="f", artifact=text("v"), **SCOPE)
    assert await two.load_artifact(filename="f", **SCOPE) == text("v")
    assert await other.load_artifact(filename="f", **SCOPE) is None


async def test_the_console_sees_artifact_versions_as_files(mongo_uri: str, mongo_db_name: str) -> None:
    from aimon_mongo.console._data import ConsoleData
    from tests.adk.conftest import with_database

    service = AimonArtifactService.from_url(with_database(mongo_uri, mongo_db_name))
    try:
        await service.save_artifact(
            filename="chart.png", artifact=blob(b"png-bytes"), custom_metadata={"k": "v"}, **SCOPE
        )
    finally:
        await service.close()
    console = ConsoleData(mongo_uri, session_db=mongo_db_name, vfs_db=mongo_db_name)
    try:
        children, count = console.listing("adk-artifacts/app/ann/sessions/s1/chart.png", 0, 10)
        info = console.info(children[0].path)
    finally:
        console.close()
    assert count == 1 and children[0].path == "adk-artifacts/app/ann/sessions/s1/chart.png/0000000000"
    assert info.size == len(b"png-bytes") and info.custom_metadata["adk.custom_metadata"] == '{"k": "v"}'
