"""``from_url`` for both services and the ``aimon+…`` schemes in ADK's service registry (what ``adk web`` and
``adk api_server`` resolve ``--session_service_uri`` / ``--artifact_service_uri`` through)."""

from __future__ import annotations

from typing import Any

import pytest
from google.adk.cli.service_registry import ServiceRegistry, get_service_registry
from google.adk.events.event import Event
from google.genai import types

from aimon_mongo.adk import AimonArtifactService, AimonSessionService, register_services
from aimon_mongo.errors import InvalidArgumentError
from tests.adk.conftest import with_database
from tests.fixtures.redis import delete_namespace


async def test_the_session_url_names_the_database_and_database_overrides_it(mongo_uri: str, mongo_db_name: str) -> None:
    from_path = AimonSessionService.from_url(with_database(mongo_uri, mongo_db_name), ensure_schema=True)
    overridden = AimonSessionService.from_url(with_database(mongo_uri, "ignored"), database=mongo_db_name)
    try:
        await from_path.create_session(app_name="app", user_id="ann", session_id="s")
        assert await overridden.get_session(app_name="app", user_id="ann", session_id="s") is not None
        assert from_path.backends.database.name == mongo_db_name  # type: ignore[attr-defined]
    finally:
        await from_path.close()
        await overridden.close()


async def test_memory_urls_share_one_store_per_url() -> None:
    one, two = AimonSessionService.from_url("memory://url-test"), AimonSessionService.from_url("memory://url-test")
    elsewhere = AimonSessionService.from_url("memory://url-test-other")
    await one.create_session(app_name="app", user_id="ann", session_id="s")
    assert await two.get_session(app_name="app", user_id="ann", session_id="s") is not None
    assert await elsewhere.get_session(app_name="app", user_id="ann", session_id="s") is None


@pytest.mark.parametrize("url", ["sqlite:///x.db", "gs://bucket", "no-scheme"])
def test_an_unknown_scheme_is_refused_naming_it(url: str) -> None:
    with pytest.raises(InvalidArgumentError, match=r"scheme|not a URL"):
        AimonSessionService.from_url(url)
    with pytest.raises(InvalidArgumentError, match=r"scheme|not a URL"):
        AimonArtifactService.from_url(url)


def test_a_password_never_reaches_the_message() -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        AimonSessionService.from_url("sqlite://me:s3cret@host/db")
    assert "s3cret" not in str(refused.value)


async def test_the_aimon_schemes_resolve_through_adks_registry(tmp_path: object) -> None:
    registry = ServiceRegistry()
    register_services(registry)
    sessions = registry.create_session_service("aimon+memory://registry-test", agents_dir="/agents")
    artifacts = registry.create_artifact_service(f"aimon+file://{tmp_path}/a", agents_dir="/agents")
    assert isinstance(sessions, AimonSessionService) and isinstance(artifacts, AimonArtifactService)
    await sessions.create_session(app_name="app", user_id="ann", session_id="s")
    assert await AimonSessionService.from_url("memory://registry-test").get_session(
        app_name="app", user_id="ann", session_id="s"
    )
    assert (
        await artifacts.save_artifact(
            app_name="app", user_id="ann", session_id="s", filename="f", artifact=types.Part(text="x")
        )
        == 0
    )
    assert registry.create_session_service("memory://") is None  # ADK's own schemes are left to ADK
    register_services()  # the global registry adk web uses
    assert isinstance(
        get_service_registry().create_session_service("aimon+memory://registry-test"), AimonSessionService
    )


async def test_adk_data_lives_apart_from_the_conversation_stores(
    mongo_uri: str, mongo_db_name: str, mongo_client: Any, redis_url: str, redis_root: str
) -> None:
    import redis

    from aimon_mongo.redis import RedisKeyPrefixes

    mongo = AimonSessionService.from_url(with_database(mongo_uri, mongo_db_name))
    prefixes = RedisKeyPrefixes().under(redis_root)
    on_redis = AimonSessionService.from_url(redis_url, key_prefixes=prefixes)
    try:
        for service in (mongo, on_redis):
            made = await service.create_session(app_name="app", user_id="ann", session_id="s")
            await service.append_event(made, Event(author="user", invocation_id="i"))
        names = set(mongo_client[mongo_db_name].list_collection_names())
        assert {"adk_session_records", "adk_session_log_segments", "adk_session_fences", "adk_session_locks"} <= names
        assert mongo_client[mongo_db_name]["adk_session_records"].count_documents({"_id": "adk/app/ann/s"}) == 1
        assert "session_records" not in names or mongo_client[mongo_db_name]["session_records"].count_documents({}) == 0
        client = redis.Redis.from_url(redis_url)
        try:
            assert list(client.scan_iter(match=f"{redis_root}:*")) == []
            assert list(client.scan_iter(match=f"adk:{redis_root}:*"))
        finally:
            client.close()
    finally:
        await mongo.close()
        await on_redis.close()
        delete_namespace(redis_url, f"adk:{redis_root}")


async def test_a_memory_store_lives_while_a_service_holds_it() -> None:
    import gc

    first = AimonSessionService.from_url("memory://")
    await first.create_session(app_name="app", user_id="ann", session_id="kept")
    second = AimonSessionService.from_url("memory://")
    assert await second.get_session(app_name="app", user_id="ann", session_id="kept") is not None
    del first
    gc.collect()
    assert await second.get_session(app_name="app", user_id="ann", session_id="kept") is not None  # second holds it
    del second
    gc.collect()
    fresh = AimonSessionService.from_url("memory://")
    assert await fresh.get_session(app_name="app", user_id="ann", session_id="kept") is None
