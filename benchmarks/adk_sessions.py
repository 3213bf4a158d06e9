"""Google ADK session services: our ``AimonSessionService`` (MongoDB bundle) against ADK's first-party
``MongoDbSessionService`` (google-adk 2.13, experimental) on the same server.

    python benchmarks/adk_sessions.py            # 100 appends a round, a 3,000-event session, 10,000 sessions
    python benchmarks/adk_sessions.py --smoke    # tiny sizes, seconds
    python benchmarks/adk_sessions.py --events 1000 --sessions 2000   # smaller sizes (the case names keep theirs)

Cases, each side on its own database of one server, both driven from one event loop (the peer runs
PyMongo in ``asyncio.to_thread``; ours is native async on ``AsyncMongoClient``):

* ``append_event`` of a small event to one session, reloading the session first (what a runner does per
  turn is one get, then appends): appends per second;
* ``get_session`` of a session holding 3,000 events with ``num_recent_events=20`` (ADK #4917: the whole
  history was read to return the tail), and without a config (the whole history);
* ``list_sessions`` of one user holding 10,000 sessions (ADK #4871), and our paginated listing
  (``list_sessions_page``, 100 sessions) against the peer's full listing.

Round trips per operation are counted with a ``CommandLog`` on each side's client; client CPU per
operation is in each case's note. Ratios are ours / peer (rates).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from _timing import SHARED_STANDIN, Report, Result, cpu_note, main, rounds  # benchmarks/_timing.py
from google.adk.events.event import Event
from google.adk.integrations.mongodb import MongoDbSessionService
from google.adk.sessions.base_session_service import GetSessionConfig
from google.genai import types
from pymongo import AsyncMongoClient, MongoClient

from aimon_mongo.adk import AimonSessionService
from aimon_mongo.adk.sessions import MONGO_COLLECTIONS
from aimon_mongo.mongo import AsyncMongoSessionBackends
from aimon_mongo.mongo.command_log import CommandLog
from aimon_mongo.standin import StandinServer, configured_uri

TITLE = "adk sessions"
CASES = (
    "append_event vs MongoDbSessionService",
    "get_session, last 20 of 3,000 events vs MongoDbSessionService",
    "get_session, all 3,000 events vs MongoDbSessionService",
    "list_sessions, 10,000 sessions vs MongoDbSessionService",
    "list_sessions_page (100) vs MongoDbSessionService list_sessions, 10,000 sessions",
)
APP, USER = "bench-app", "bench-user"


def message(text: str) -> Event:
    return Event(
        author="user", invocation_id="bench", content=types.Content(role="user", parts=[types.Part(text=text)])
    )


class Side:
    """One service on its own database, its commands counted."""

    def __init__(self, name: str, service: Any, log: CommandLog) -> None:
        self.name, self.service, self.log = name, service, log

    async def fill(self, session_id: str, events: int) -> None:
        session = await self.service.create_session(app_name=APP, user_id=USER, session_id=session_id)
        for i in range(events):
            await self.service.append_event(session, message(f"event {i}"))

    async def append_round(self, session_id: str, count: int) -> None:
        session = await self.service.get_session(
            app_name=APP, user_id=USER, session_id=session_id, config=GetSessionConfig(num_recent_events=1)
        )
        for i in range(count):
            await self.service.append_event(session, message(f"turn {i}"))

    async def sessions(self, count: int) -> None:
        for i in range(count):
            await self.service.create_session(app_name=APP, user_id=f"{USER}-many", session_id=f"s{i:06d}")


def block(runner: asyncio.Runner, make: Callable[[], Awaitable[object]], operations: float) -> Callable[[], float]:
    def side() -> float:
        runner.run(make())  # type: ignore[arg-type]
        return operations

    return side


def counted(runner: asyncio.Runner, side: Side, make: Callable[[], Awaitable[object]]) -> int:
    with side.log.recording() as seen:
        runner.run(make())  # type: ignore[arg-type]
    return seen.round_trips


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--events", type=int, default=3000, help="events of the long session (default 3,000)")
    parser.add_argument("--sessions", type=int, default=10_000, help="sessions of the listed user (default 10,000)")


def measure(args: argparse.Namespace) -> Report:
    appends, history, many = (5, 30, 50) if args.smoke else (100, args.events, args.sessions)
    uri = configured_uri()
    server = None if uri else StandinServer("mongoeco")
    if server is not None:
        uri = server.start()
    assert uri is not None
    ours_log, peer_log = CommandLog(), CommandLog()
    ours_client: AsyncMongoClient[Any] = AsyncMongoClient(uri, tz_aware=True, event_listeners=[ours_log])
    peer_client: MongoClient[Any] = MongoClient(uri, tz_aware=True, event_listeners=[peer_log])
    ours_db, peer_db = f"bench_adk_{uuid.uuid4().hex[:8]}", f"bench_adk_peer_{uuid.uuid4().hex[:8]}"
    results: list[Result] = []
    trips: dict[str, int] = {}
    with asyncio.Runner() as runner:
        bundle = AsyncMongoSessionBackends(
            ours_client[ours_db], "bench-node", collection_names=MONGO_COLLECTIONS, ensure_schema=True
        )
        ours = Side("ours", AimonSessionService(bundle), ours_log)
        peer = Side("peer", MongoDbSessionService(database_name=peer_db, mongo_client=peer_client), peer_log)
        sides = (ours, peer)
        try:
            for side in sides:
                runner.run(side.fill("turns", 1))
                runner.run(side.fill("history", history))
                runner.run(side.sessions(many))
            samples = rounds(
                {s.name: block(runner, lambda s=s: s.append_round("turns", appends), appends) for s in sides},
                args.repeats,
            )
            results.append(Result.timed(TITLE, CASES[0], samples["ours"], samples["peer"], unit="appends/s",
                                        note=cpu_note(samples["ours"], samples["peer"], "append")))  # fmt: skip
            for case, config in ((CASES[1], GetSessionConfig(num_recent_events=20)), (CASES[2], None)):

                def get(side: Side, config: GetSessionConfig | None = config) -> Awaitable[object]:
                    return side.service.get_session(app_name=APP, user_id=USER, session_id="history", config=config)

                samples = rounds({s.name: block(runner, lambda s=s: get(s), 1) for s in sides}, args.repeats)
                results.append(Result.timed(TITLE, case, samples["ours"], samples["peer"], unit="gets/s",
                                            note=cpu_note(samples["ours"], samples["peer"], "get")))  # fmt: skip
                label = "get_session (last 20 of 3,000)" if config else "get_session (all 3,000)"
                trips[f"{label}: ours"] = counted(runner, ours, lambda: get(ours))
                trips[f"{label}: MongoDbSessionService"] = counted(runner, peer, lambda: get(peer))

            def listing(side: Side) -> Awaitable[object]:
                return side.service.list_sessions(app_name=APP, user_id=f"{USER}-many")

            def page(side: Side) -> Awaitable[object]:
                return side.service.list_sessions_page(app_name=APP, user_id=f"{USER}-many", page_size=100)

            list_rounds = max(1, args.repeats // 3)
            samples = rounds({s.name: block(runner, lambda s=s: listing(s), 1) for s in sides}, list_rounds)
            results.append(Result.timed(TITLE, CASES[3], samples["ours"], samples["peer"], unit="lists/s",
                                        note=cpu_note(samples["ours"], samples["peer"], "list")))  # fmt: skip
            samples = rounds(
                {"ours": block(runner, lambda: page(ours), 1), "peer": block(runner, lambda: listing(peer), 1)},
                list_rounds,
            )
            results.append(Result.timed(TITLE, CASES[4], samples["ours"], samples["peer"], unit="lists/s",
                                        note=cpu_note(samples["ours"], samples["peer"], "list")))  # fmt: skip
            trips["append_event: ours"] = counted(runner, ours, lambda: ours.append_round("turns", 1)) - counted(
                runner, ours, lambda: ours.append_round("turns", 0)
            )
            trips["append_event: MongoDbSessionService"] = counted(
                runner, peer, lambda: peer.append_round("turns", 1)
            ) - counted(runner, peer, lambda: peer.append_round("turns", 0))
            trips["list_sessions (10,000): ours"] = counted(runner, ours, lambda: listing(ours))
            trips["list_sessions (10,000): MongoDbSessionService"] = counted(runner, peer, lambda: listing(peer))
            trips["list_sessions_page (100): ours"] = counted(runner, ours, lambda: page(ours))
            version = peer_client.admin.command("buildInfo").get("version", "?")
        finally:
            runner.run(ours_client.drop_database(ours_db))
            peer_client.drop_database(peer_db)
            runner.run(ours_client.close())
            peer_client.close()
            if server is not None:
                server.stop()
    where = "MONGODB_URI" if server is None and not os.environ.get(SHARED_STANDIN) else "mongoeco stand-in"
    sizes = f"{appends} appends per round, a {history:,}-event session, {many:,} sessions of one user"
    environment = {"ADK sessions' server": f"{where} (reports {version})", "ADK sessions' sizes": sizes}
    return Report(results, environment, round_trips={TITLE: trips})


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, options, repeats=6))
