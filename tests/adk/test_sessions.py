"""ADK's session contract on every store family (memory, MongoDB, Redis, PostgreSQL), with two services
standing for two nodes: a single writer per session, every refusal ADK's ``StaleSessionError``."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
from google.adk.errors._stale_session_error import StaleSessionError
from google.adk.errors.already_exists_error import AlreadyExistsError
from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.adk.sessions.base_session_service import GetSessionConfig
from google.genai import types

from aimon_mongo.adk import AimonSessionService
from aimon_mongo.errors import InvalidArgumentError, StaleFencingTokenError

Open = Callable[..., AimonSessionService]
APP = "weather-app"


def event(text: str, *, at: float | None = None, **delta: object) -> Event:
    made = Event(
        author="user",
        invocation_id="inv-1",
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=dict(delta)),
    )
    if at is not None:
        made.timestamp = at
    return made


def texts(events: list[Event]) -> list[str]:
    return [e.content.parts[0].text for e in events if e.content and e.content.parts]  # type: ignore[misc]


async def test_create_get_list_delete_and_a_duplicate_id_is_refused(open_sessions: Open) -> None:
    node = open_sessions()
    made = await node.create_session(app_name=APP, user_id="ann", session_id="s-1", state={"topic": "rain"})
    assert (made.id, made.app_name, made.user_id, made.state, made.events) == ("s-1", APP, "ann", {"topic": "rain"}, [])
    with pytest.raises(AlreadyExistsError, match="s-1"):
        await open_sessions().create_session(app_name=APP, user_id="ann", session_id="s-1")
    generated = await node.create_session(app_name=APP, user_id="ann")
    assert generated.id and generated.id != "s-1"
    got = await node.get_session(app_name=APP, user_id="ann", session_id="s-1")
    assert got is not None and got.state == {"topic": "rain"}
    assert await node.get_session(app_name=APP, user_id="bob", session_id="s-1") is None
    listed = await node.list_sessions(app_name=APP, user_id="ann")
    assert sorted(s.id for s in listed.sessions) == sorted(["s-1", generated.id])
    assert all(s.events == [] for s in listed.sessions)
    await node.delete_session(app_name=APP, user_id="ann", session_id="s-1")
    assert await node.get_session(app_name=APP, user_id="ann", session_id="s-1") is None
    assert [s.id for s in (await node.list_sessions(app_name=APP, user_id="ann")).sessions] == [generated.id]
    again = await node.create_session(app_name=APP, user_id="ann", session_id="s-1")  # the id is free again
    assert again.state == {} and (await node.get_session(app_name=APP, user_id="ann", session_id="s-1")).events == []  # type: ignore[union-attr]


async def test_app_user_session_and_temp_state_are_scoped(open_sessions: Open) -> None:
    a, b = open_sessions(), open_sessions()
    s1 = await a.create_session(
        app_name=APP, user_id="ann", session_id="one", state={"app:units": "C", "user:name": "Ann"}
    )
    s2 = await b.create_session(app_name=APP, user_id="ann", session_id="two")
    s3 = await b.create_session(app_name=APP, user_id="bob", session_id="three")
    assert s2.state == {"app:units": "C", "user:name": "Ann"} and s3.state == {"app:units": "C"}
    await a.append_event(s1, event("hi", mood="ok", **{"user:city": "Oslo", "temp:scratch": 1, "app:units": "F"}))
    assert s1.state["temp:scratch"] == 1  # the caller's copy keeps temp state for the invocation
    fresh = await b.get_session(app_name=APP, user_id="ann", session_id="one")
    assert fresh is not None
    assert fresh.state == {"mood": "ok", "app:units": "F", "user:name": "Ann", "user:city": "Oslo"}
    other = await b.get_session(app_name=APP, user_id="ann", session_id="two")
    assert other is not None and other.state == {"app:units": "F", "user:name": "Ann", "user:city": "Oslo"}
    bob = await b.get_session(app_name=APP, user_id="bob", session_id="three")
    assert bob is not None and bob.state == {"app:units": "F"}
    assert await a.get_user_state(app_name=APP, user_id="ann") == {"name": "Ann", "city": "Oslo"}
    assert await a.get_user_state(app_name=APP, user_id="nobody") == {}
    stored = fresh.events[0].actions.state_delta
    assert "temp:scratch" not in stored and stored["mood"] == "ok"


async def test_events_round_trip_and_recent_events_are_read_from_the_tail(open_sessions: Open) -> None:
    node = open_sessions()
    session = await node.create_session(app_name=APP, user_id="ann", session_id="s")
    for i in range(12):
        await node.append_event(session, event(f"m{i}", at=1000.0 + i, n=i))
    whole = await node.get_session(app_name=APP, user_id="ann", session_id="s")
    assert whole is not None and texts(whole.events) == [f"m{i}" for i in range(12)]
    assert whole.events[3].model_dump() == session.events[3].model_dump()
    assert whole.last_update_time == 1011.0 and whole.state == {"n": 11}
    tail = await node.get_session(
        app_name=APP, user_id="ann", session_id="s", config=GetSessionConfig(num_recent_events=3)
    )
    assert tail is not None and texts(tail.events) == ["m9", "m10", "m11"]
    none = await node.get_session(
        app_name=APP, user_id="ann", session_id="s", config=GetSessionConfig(num_recent_events=0)
    )
    assert none is not None and none.events == []
    after = await node.get_session(
        app_name=APP, user_id="ann", session_id="s", config=GetSessionConfig(after_timestamp=1007.0)
    )
    assert after is not None and texts(after.events) == [f"m{i}" for i in range(7, 12)]
    both = GetSessionConfig(num_recent_events=2, after_timestamp=1002.0)
    assert texts((await node.get_session(app_name=APP, user_id="ann", session_id="s", config=both)).events) == [
        "m10",
        "m11",
    ]  # type: ignore[union-attr]
    partial = event("partial")
    partial.partial = True
    await node.append_event(session, partial)
    assert len((await node.get_session(app_name=APP, user_id="ann", session_id="s")).events) == 12  # type: ignore[union-attr]


async def test_listing_is_oldest_update_first_across_users_and_pages_by_id(open_sessions: Open) -> None:
    node = open_sessions()
    made = {}
    for user, sid in [("ann", "a1"), ("bob", "b1"), ("ann", "a2"), ("cy", "c1")]:
        made[sid] = await node.create_session(app_name=APP, user_id=user, session_id=sid)
    await node.create_session(app_name="other-app", user_id="ann", session_id="x")
    for at, sid in [(5000.0, "a2"), (5001.0, "c1"), (5002.0, "a1"), (5003.0, "b1")]:
        await node.append_event(made[sid], event(sid, at=at))
    everyone = await node.list_sessions(app_name=APP)
    assert [s.id for s in everyone.sessions] == ["a2", "c1", "a1", "b1"]
    assert [s.id for s in (await node.list_sessions(app_name=APP, user_id="ann")).sessions] == ["a2", "a1"]
    for i in range(5):
        await node.create_session(app_name=APP, user_id="dee", session_id=f"d{i}")
    seen, token = [], None
    while True:
        page = await node.list_sessions_page(app_name=APP, user_id="dee", page_size=2, page_token=token)
        assert len(page.sessions) <= 2
        seen += [s.id for s in page.sessions]
        token = page.next_page_token
        if token is None:
            break
    assert seen == [f"d{i}" for i in range(5)]


QUOTED_IDS = [
    "plain",
    "Upper",
    "with space",
    "100%",
    "a/b",
    "dash-id",
    "under_id",
    "tilde~",
    "caf\u00e9",
    "\u4e2d\u6587",
]
QUOTED_IDS += ["a+b", "%41", "A", "~", "0", "_", "-", "\U0001f600", "a%b", "a b"]


async def test_pages_are_in_encoded_id_order_and_every_session_comes_once(open_sessions: Open) -> None:
    node = open_sessions()
    for sid in QUOTED_IDS:
        await node.create_session(app_name=APP, user_id="eve", session_id=sid)
    await node.create_session(app_name=APP, user_id="eve-2", session_id="between")  # another user's listing
    expected = sorted(QUOTED_IDS, key=lambda sid: quote(sid, safe=""))
    for size in (1, 3, 7, len(QUOTED_IDS), 100):
        seen, token = [], None
        for _ in range(len(QUOTED_IDS) + 1):
            page = await node.list_sessions_page(app_name=APP, user_id="eve", page_size=size, page_token=token)
            assert len(page.sessions) <= size and all(s.user_id == "eve" and s.events == [] for s in page.sessions)
            seen += [s.id for s in page.sessions]
            token = page.next_page_token
            if token is None:
                break
        assert seen == expected, size
    assert (await node.list_sessions_page(app_name=APP, user_id="eve", page_token="~~")).sessions == []
    assert [s.id for s in (await node.list_sessions_page(app_name=APP, user_id="eve", page_token="b")).sessions] == [
        sid for sid in expected if quote(sid, safe="") > "b"
    ]  # a token that is no session's id
    for bad in (0, True, "3"):
        with pytest.raises(InvalidArgumentError, match="page_size"):
            await node.list_sessions_page(app_name=APP, user_id="eve", page_size=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="page_token"):
        await node.list_sessions_page(app_name=APP, user_id="eve", page_token="")


async def test_a_page_reads_only_page_size_plus_one_listing_entries(mongo_uri: str) -> None:
    from pymongo import AsyncMongoClient

    from aimon_mongo.adk.sessions import MONGO_COLLECTIONS
    from aimon_mongo.mongo import AsyncMongoSessionBackends
    from aimon_mongo.mongo.command_log import CommandLog
    from tests.fixtures.mongo import CLIENT_OPTIONS

    log = CommandLog()
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(mongo_uri, event_listeners=[log], **CLIENT_OPTIONS)
    database = f"t_{uuid.uuid4().hex[:16]}"
    bundle = AsyncMongoSessionBackends(
        client[database], "node-a", collection_names=MONGO_COLLECTIONS, ensure_schema=True
    )
    node = AimonSessionService(bundle)
    try:
        for i in range(30):
            await node.create_session(app_name=APP, user_id="fay", session_id=f"s{i:02d}")
        with log.recording() as seen:
            page = await node.list_sessions_page(app_name=APP, user_id="fay", page_size=5, page_token="s10")
        assert [s.id for s in page.sessions] == ["s11", "s12", "s13", "s14", "s15"] and page.next_page_token == "s15"
        # one find of the listing index (6 entries: the page and one to tell whether more follow), one
        # load_many of the 5 headers and the app and user state records (none stored)
        assert seen.by_name() == {"find": 2}
        assert seen.documents == 6 + 5
    finally:
        await client.drop_database(database)
        await client.close()


async def test_a_stale_copy_from_another_node_is_refused_with_adk_stale_session_error(open_sessions: Open) -> None:
    a, b = open_sessions(), open_sessions()
    created = await a.create_session(app_name=APP, user_id="ann", session_id="s")
    on_a = await a.get_session(app_name=APP, user_id="ann", session_id="s")
    on_b = await b.get_session(app_name=APP, user_id="ann", session_id="s")
    assert on_a is not None and on_b is not None
    await b.append_event(on_b, event("from b"))
    with pytest.raises(StaleSessionError):
        await a.append_event(on_a, event("from a"))
    with pytest.raises(StaleSessionError):
        await a.append_event(created, event("from the creation copy"))
    reloaded = await a.get_session(app_name=APP, user_id="ann", session_id="s")
    assert reloaded is not None and texts(reloaded.events) == ["from b"]
    await a.append_event(reloaded, event("from a, reloaded"))
    final = await b.get_session(app_name=APP, user_id="ann", session_id="s")
    assert final is not None and texts(final.events) == ["from b", "from a, reloaded"]


async def test_concurrent_writers_of_one_session_on_two_nodes_never_interleave(open_sessions: Open) -> None:
    a, b = open_sessions(), open_sessions()
    await a.create_session(app_name=APP, user_id="ann", session_id="s")
    won = 0
    for round_ in range(6):
        copies = [await n.get_session(app_name=APP, user_id="ann", session_id="s") for n in (a, b)]
        results = await asyncio.gather(
            a.append_event(copies[0], event(f"a{round_}")),  # type: ignore[arg-type]
            b.append_event(copies[1], event(f"b{round_}")),  # type: ignore[arg-type]
            return_exceptions=True,
        )
        errors = [r for r in results if isinstance(r, BaseException)]
        assert all(isinstance(e, StaleSessionError) for e in errors), errors
        assert len(errors) == 1  # exactly one of two writers holding the same revision wins
        won += 1
    stored = await a.get_session(app_name=APP, user_id="ann", session_id="s")
    assert stored is not None and len(stored.events) == won
    rounds = [t[1:] for t in texts(stored.events)]
    assert len(set(rounds)) == len(rounds)  # never two writers in one round: one history, no fork


async def test_a_writer_whose_lease_was_taken_over_is_refused(open_sessions: Open, session_store: object) -> None:
    from datetime import timedelta

    a = open_sessions(write_lease_ttl=timedelta(seconds=30), write_lease_wait=timedelta(0))
    await a.create_session(app_name=APP, user_id="ann", session_id="s")
    key = AimonSessionService.session_key(APP, "ann", "s")
    newer = await a.backends.leases.try_acquire(key, "someone-else", timedelta(seconds=30))
    assert newer is not None
    copy = await a.get_session(app_name=APP, user_id="ann", session_id="s")
    with pytest.raises(StaleSessionError):  # the session is being written by another holder now
        await a.append_event(copy, event("blocked"))  # type: ignore[arg-type]
    await a.backends.leases.release(newer)
    await a.append_event(copy, event("after"))  # type: ignore[arg-type]
    assert texts((await a.get_session(app_name=APP, user_id="ann", session_id="s")).events) == ["after"]  # type: ignore[union-attr]


async def test_an_append_after_a_writer_died_inside_its_append_waits_for_that_lease(
    open_sessions: Open, session_store: object
) -> None:
    """The adopting node of a host is not refused (its retries would run out first): it waits for the dead
    writer's append lease to lapse, then appends; with ``write_lease_wait=0`` it is refused at once."""
    from datetime import timedelta

    a = open_sessions()
    impatient = open_sessions(write_lease_wait=timedelta(0))
    await a.create_session(app_name=APP, user_id="ann", session_id="s")
    key = AimonSessionService.session_key(APP, "ann", "s")
    dead = await a.backends.leases.try_acquire(key, "a-writer-that-died", timedelta(milliseconds=400))
    assert dead is not None
    copy = await a.get_session(app_name=APP, user_id="ann", session_id="s")
    with pytest.raises(StaleSessionError):
        await impatient.append_event(copy, event("refused"))  # type: ignore[arg-type]
    await a.append_event(copy, event("after the lapse"))  # type: ignore[arg-type]  # waits <= 400 ms, then writes
    stored = await a.get_session(app_name=APP, user_id="ann", session_id="s")
    assert stored is not None and texts(stored.events) == ["after the lapse"]
    assert await a.backends.leases.try_acquire(key, "a-writer-that-died", timedelta(seconds=1)) is not None


def test_write_lease_wait_is_checked(open_sessions: Open) -> None:
    from datetime import timedelta

    with pytest.raises(
        InvalidArgumentError, match=r"write_lease_wait must be a timedelta >= 0, got datetime.timedelta\(days=-1"
    ):
        open_sessions(write_lease_wait=timedelta(seconds=-1))
    with pytest.raises(InvalidArgumentError, match=r"write_lease_wait must be a timedelta >= 0, got 5"):
        open_sessions(write_lease_wait=5)


class _PausedLoads:
    """The record store of a bundle whose next ``load`` waits for ``go`` after reading (a writer that
    stalls in the middle of an append, after it checked the session's revision)."""

    def __init__(self, records: Any) -> None:
        self._records = records
        self.loaded = asyncio.Event()
        self.go = asyncio.Event()
        self.armed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._records, name)

    async def load(self, session_id: str) -> Any:
        found = await self._records.load(session_id)
        if self.armed:
            self.armed = False
            self.loaded.set()
            await self.go.wait()
        return found


class _Bundle:
    def __init__(self, inner: Any, records: Any) -> None:
        self._inner, self.records = inner, records

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


async def test_a_writer_that_stalled_past_its_lease_meets_the_fence_as_stale_session_error() -> None:
    from datetime import UTC, datetime, timedelta

    from aimon_mongo.memory import AsyncMemorySessionBackends
    from aimon_mongo.memory.storage import MemoryStorage

    now = [datetime(2026, 12, 1, tzinfo=UTC)]
    storage = MemoryStorage(lambda: now[0])
    paused = _PausedLoads(AsyncMemorySessionBackends("node-a", storage=storage).records)
    a = AimonSessionService(
        _Bundle(AsyncMemorySessionBackends("node-a", storage=storage), paused), write_lease_ttl=timedelta(seconds=5)
    )  # type: ignore[arg-type]
    b = AimonSessionService(AsyncMemorySessionBackends("node-b", storage=storage), write_lease_ttl=timedelta(seconds=5))
    await a.create_session(app_name=APP, user_id="ann", session_id="s")
    copy_a = await a.get_session(app_name=APP, user_id="ann", session_id="s")
    copy_b = await b.get_session(app_name=APP, user_id="ann", session_id="s")
    paused.armed = True
    stalled = asyncio.create_task(a.append_event(copy_a, event("from the stalled writer")))  # type: ignore[arg-type]
    await paused.loaded.wait()  # a holds the lease and has read revision 0
    now[0] += timedelta(seconds=6)  # a's lease lapses
    await b.append_event(copy_b, event("from b"))  # type: ignore[arg-type]
    paused.go.set()
    with pytest.raises(StaleSessionError) as refused:
        await stalled
    assert isinstance(refused.value.__cause__, StaleFencingTokenError)  # refused by the store's fence
    stored = await b.get_session(app_name=APP, user_id="ann", session_id="s")
    assert stored is not None and texts(stored.events) == ["from b"]


async def test_what_is_read_back_equals_what_the_writer_holds(open_sessions: Open) -> None:
    node, other = open_sessions(), open_sessions()
    made = await node.create_session(app_name=APP, user_id="ann", state={"k": "v"})
    assert await other.get_session(app_name=APP, user_id="ann", session_id=made.id) == made
    image = types.Content(role="user", parts=[types.Part.from_bytes(data=b"\x89PNG\x00", mime_type="image/png")])
    grounding = types.GroundingMetadata(search_entry_point=types.SearchEntryPoint(sdk_blob=b"\x00\x01"))
    await node.append_event(made, Event(invocation_id="i1", author="user", content=image, grounding_metadata=grounding))
    rich = Event(
        invocation_id="i2",
        author="agent",
        content=types.Content(role="model", parts=[types.Part(text="done")]),
        turn_complete=True,
        actions=EventActions(artifact_delta={"file": 0}, transfer_to_agent="helper", escalate=True),
        long_running_tool_ids={"tool-1"},
        error_code="E1",
        interrupted=True,
        usage_metadata=types.GenerateContentResponseUsageMetadata(prompt_token_count=3, total_token_count=5),
        custom_metadata={"trace": "t-1"},
        output_transcription=types.Transcription(text="said", finished=True),
        timestamp=made.last_update_time + 10,
    )
    await node.append_event(made, rich)
    got = await other.get_session(app_name=APP, user_id="ann", session_id=made.id)
    assert got == made  # state, events (bytes included), last_update_time and revision marker
    assert got is not None and got.last_update_time == rich.timestamp


async def test_a_padded_session_id_is_normalized_on_create_read_and_delete(open_sessions: Open) -> None:
    node = open_sessions()
    made = await node.create_session(app_name=APP, user_id="ann", session_id="  s-7 ")
    assert made.id == "s-7"
    assert await node.get_session(app_name=APP, user_id="ann", session_id=" s-7  ") is not None
    await node.delete_session(app_name=APP, user_id="ann", session_id=" s-7 ")
    assert await node.get_session(app_name=APP, user_id="ann", session_id="s-7") is None


async def test_a_refused_append_leaves_no_app_or_user_state_behind(open_sessions: Open) -> None:
    a, b = open_sessions(), open_sessions()
    await a.create_session(app_name=APP, user_id="ann", session_id="s", state={"app:mode": "calm", "user:tz": "UTC"})
    stale = await a.get_session(app_name=APP, user_id="ann", session_id="s")
    fresh = await b.get_session(app_name=APP, user_id="ann", session_id="s")
    await b.append_event(fresh, event("b"))  # type: ignore[arg-type]
    with pytest.raises(StaleSessionError):
        await a.append_event(stale, event("a", **{"app:mode": "loud", "user:tz": "CET", "k": 1}))  # type: ignore[arg-type]
    after = await b.get_session(app_name=APP, user_id="ann", session_id="s")
    assert after is not None and after.state == {"app:mode": "calm", "user:tz": "UTC"}
    assert await a.get_user_state(app_name=APP, user_id="ann") == {"tz": "UTC"}


async def test_shared_state_locked_too_long_is_a_timeout_naming_it_after_the_event_is_stored() -> None:
    from datetime import timedelta

    node = AimonSessionService.from_url("memory://state-lock", state_lock_wait=timedelta(0))
    made = await node.create_session(app_name=APP, user_id="ann", session_id="s")
    held = await node.backends.leases.try_acquire(f"adk-app/{APP}", "another-writer", timedelta(seconds=30))
    assert held is not None
    with pytest.raises(TimeoutError, match=f"adk-app/{APP}"):
        await node.append_event(made, event("kept", **{"app:mode": "x"}))
    stored = await node.get_session(app_name=APP, user_id="ann", session_id="s")
    assert stored is not None and texts(stored.events) == ["kept"] and "app:mode" not in stored.state
    await node.backends.leases.release(held)
