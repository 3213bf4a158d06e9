"""Google ADK services against their peers on the same server, in one run: our ``AimonSessionService``
(MongoDB bundle) against ADK's first-party ``MongoDbSessionService`` (google-adk 2.13, experimental), and
our ``AimonArtifactService`` (GridFS) against google-adk-extras' ``MongoArtifactService``.

    python benchmarks/adk_services.py            # a 3,000-event session; 10,000 sessions of one user with
                                                 # MONGODB_URI, 2,000 on a stand-in (--sessions N: N)
    python benchmarks/adk_services.py --smoke    # tiny sizes, not timed (seconds)
    python benchmarks/adk_services.py --events 1000 --sessions 2000   # smaller (the case names keep theirs)

Each side has its own database on one server (``MONGODB_URI``, the stand-in ``benchmarks/run.py`` shares,
or a mongoeco stand-in of its own); both are driven from one event loop (the session peer runs PyMongo in
``asyncio.to_thread``, the artifact peer calls PyMongo in the loop; ours is native async on
``AsyncMongoClient``). Cases, rates per second, ratio ours / peer:

* ``append_event`` of a small event to a session loaded once (as a runner appends turn after turn);
* ``get_session`` of a 20-event session (the whole session), then of a session holding 3,000 events with
  ``num_recent_events=20`` (the whole 3,000 is not read here: the stand-in, scanning, stalls its heartbeats);
* ``list_sessions`` of one user holding many sessions, and our paginated listing (``list_sessions_page``,
  100 sessions) against the peer's full listing (it has no pages);
* ``save_artifact`` of a new version of a 4 KiB and of a 1 MiB ``inline_data`` part, and ``load_artifact``
  of the latest version of each.

Per operation, counted once on a warm service apart from the timed rounds: the commands sent
(``CommandLog``, the round-trip table), the documents the server returned in cursor batches, and the
BSON bytes of the commands and their replies (what goes over the wire, less the message headers); in
each case's note with the client CPU per operation (``time.process_time`` of this process, every thread:
the server is another process).

The listed user's sessions: each service makes the first with its own ``create_session``; every document that call
wrote naming that session is then copied for the other ids (the id replaced, new ObjectIds) with
``insert_many``, the same way on both sides (on the stand-in 2,000 ``create_session`` calls took 3 to 4.5
minutes a side, the later ones slower). The listed user's sessions are on databases of their own, one per
side.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import uuid
import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import bson
from _timing import SHARED_STANDIN, Report, Result, Sample, main, rounds  # benchmarks/_timing.py
from bson import ObjectId
from google.adk.events.event import Event
from google.adk.integrations.mongodb import MongoDbSessionService
from google.adk.sessions.base_session_service import GetSessionConfig
from google.genai import types
from pymongo import AsyncMongoClient, MongoClient, monitoring
from pymongo.database import Database

with warnings.catch_warnings():  # the peer's package imports its web server, a subclass of ADK's deprecated
    warnings.simplefilter("ignore", DeprecationWarning)  # AdkWebServer: not ours to fix, not the benchmark's
    from google_adk_extras.artifacts.mongo_artifact_service import MongoArtifactService

from aimon_mongo._async.vfs.gridfs import AsyncGridFSFileSystem
from aimon_mongo.adk import AimonArtifactService, AimonSessionService
from aimon_mongo.adk.sessions import MONGO_COLLECTIONS
from aimon_mongo.mongo import AsyncMongoSessionBackends
from aimon_mongo.mongo.command_log import NOT_ROUND_TRIPS, CommandLog
from aimon_mongo.standin import StandinServer, configured_uri

TITLE = "ADK services"
SESSION_PEER, ARTIFACT_PEER = "MongoDbSessionService", "MongoArtifactService"
SIZES = {"4 KiB": 4 * 1024, "1 MiB": 1024 * 1024}
CASES = (
    f"append_event vs {SESSION_PEER}",
    f"get_session, 20 events vs {SESSION_PEER}",
    f"get_session, last 20 of 3,000 events vs {SESSION_PEER}",
    f"list_sessions, one user's sessions vs {SESSION_PEER}",
    f"list_sessions_page (100) vs {SESSION_PEER} list_sessions",
    *(f"{op}, {size} vs {ARTIFACT_PEER}" for size in SIZES for op in ("save_artifact", "load_artifact")),
)
APP, USER, MANY = "bench-app", "bench-user", "bench-user-many"
STANDIN_SESSIONS = 2_000
"""Sessions of the listed user on a stand-in: its inserts slow down with every document a collection holds
(3,000 one-by-one took 146 s on the shared 2-CPU host), so 10,000 would take most of an hour a side."""
COPY_BATCH = 50
"""Sessions copied per ``insert_many`` (a long command on the stand-in holds up the driver's heartbeat)."""


class Wire(monitoring.CommandListener):
    """BSON bytes of the commands sent and of their replies while :attr:`on` (handshakes not counted)."""

    def __init__(self) -> None:
        self.on = False
        self.sent = self.received = 0

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if self.on and event.command_name not in NOT_ROUND_TRIPS:
            self.sent += len(bson.encode(event.command))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        if self.on and event.command_name not in NOT_ROUND_TRIPS:
            self.received += len(bson.encode(event.reply))

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


class Counted:
    """What one operation cost on the wire: commands, documents returned, bytes each way (per operation)."""

    def __init__(self, round_trips: float, documents: float, sent: float, received: float) -> None:
        self.round_trips, self.documents, self.sent, self.received = round_trips, documents, sent, received

    def text(self) -> str:
        return (f"{self.round_trips:.3g} round trips, {self.documents:,.0f} document(s) returned, "
                f"{kib(self.sent)} sent / {kib(self.received)} received")  # fmt: skip


def kib(count: float) -> str:
    return f"{count / 1024:,.1f} KiB" if count >= 1024 else f"{count:,.0f} B"


class Meter:
    """One ``CommandLog`` and one :class:`Wire`, registered for every client of this process (the artifact
    peer opens its own ``MongoClient`` from a connection string, so listeners cannot be handed to it);
    only one side runs while a count is taken."""

    def __init__(self) -> None:
        self.log, self.wire = CommandLog(), Wire()
        monitoring.register(self.log)
        monitoring.register(self.wire)

    def count(self, runner: asyncio.Runner, make: Callable[[], Awaitable[object]], operations: int = 1) -> Counted:
        self.wire.sent = self.wire.received = 0
        self.wire.on = True
        try:
            with self.log.recording() as seen:
                runner.run(make())  # type: ignore[arg-type]
        finally:
            self.wire.on = False
        per = float(operations)
        return Counted(seen.round_trips / per, seen.documents / per, self.wire.sent / per, self.wire.received / per)


def message(text: str) -> Event:
    return Event(
        author="user", invocation_id="bench", content=types.Content(role="user", parts=[types.Part(text=text)])
    )


def part(size: int) -> types.Part:
    return types.Part(inline_data=types.Blob(data=os.urandom(size), mime_type="application/octet-stream"))


def session_name(i: int) -> str:
    return f"sess-{i:06d}"


def renamed(value: Any, name: str) -> Any:
    """``value`` with every occurrence of the first session's id replaced by ``name``, new ObjectIds."""
    if isinstance(value, dict):
        return {k: renamed(v, name) for k, v in value.items()}
    if isinstance(value, list):
        return [renamed(v, name) for v in value]
    if isinstance(value, str):
        return value.replace(session_name(0), name)
    if isinstance(value, ObjectId):
        return ObjectId()
    return value


class Sessions:
    """One session service, driven the same way on both sides."""

    def __init__(self, service: Any, lister: Any) -> None:
        self.service, self.lister = service, lister
        """``service`` holds the sessions read and appended to, ``lister`` (on a database of its own) the user
        of many sessions."""
        self.turns: Any = None

    async def fill(self, session_id: str, events: int) -> None:
        session = await self.service.create_session(app_name=APP, user_id=USER, session_id=session_id)
        for i in range(events):
            await self.service.append_event(session, message(f"event {i}"))

    async def many(self, database: Database[Any], count: int) -> None:
        """``count`` sessions of the listed user: the first made by ``create_session``, the documents it wrote
        for that session copied for the others (see the module text)."""
        before = {name: {bson.encode({"id": d["_id"]}) for d in database[name].find({}, {"_id": 1})}
                  for name in database.list_collection_names()}  # fmt: skip
        await self.lister.create_session(app_name=APP, user_id=MANY, session_id=session_name(0))
        copied = 0
        for name in database.list_collection_names():
            seen = before.get(name, set())
            wrote = [d for d in database[name].find()
                     if bson.encode({"id": d["_id"]}) not in seen and session_name(0) in repr(d)]  # fmt: skip
            for start in range(1, count, COPY_BATCH):
                ids = range(start, min(count, start + COPY_BATCH))
                batch = [renamed(d, session_name(i)) for i in ids for d in wrote]
                if batch:
                    database[name].insert_many(batch, ordered=False)
            copied += len(wrote)
        assert copied, "create_session wrote no document naming the session"

    async def load_turns(self) -> None:
        """The session the appends go to, loaded once: each append moves its revision marker on."""
        self.turns = await self.service.get_session(
            app_name=APP, user_id=USER, session_id="turns", config=GetSessionConfig(num_recent_events=1)
        )

    async def append(self, count: int) -> None:
        for i in range(count):
            await self.service.append_event(self.turns, message(f"turn {i}"))

    async def get(self, session_id: str, config: GetSessionConfig | None, count: int = 1) -> None:
        for _ in range(count):
            got = await self.service.get_session(app_name=APP, user_id=USER, session_id=session_id, config=config)
            assert got is not None and got.events, session_id

    async def listing(self, expected: int) -> None:
        listed = await self.lister.list_sessions(app_name=APP, user_id=MANY)
        assert len(listed.sessions) == expected, len(listed.sessions)

    async def page(self) -> None:
        page = await self.lister.list_sessions_page(app_name=APP, user_id=MANY, page_size=100)
        assert page.sessions and page.next_page_token, "a first page of 100 with more to come"


class Artifacts:
    """One artifact service: ``files`` filenames, each given one new version per block."""

    def __init__(self, service: Any, files: int) -> None:
        self.service, self.files = service, files

    def name(self, size: str, i: int) -> str:
        return f"{size.replace(' ', '')}-{i:03d}.bin"

    async def save(self, size: str, payload: types.Part, files: int | None = None) -> None:
        for i in range(self.files if files is None else files):
            await self.service.save_artifact(
                app_name=APP, user_id=USER, session_id="art", filename=self.name(size, i), artifact=payload
            )

    async def load(self, size: str, expected: int, files: int | None = None) -> None:
        for i in range(self.files if files is None else files):
            got = await self.service.load_artifact(
                app_name=APP, user_id=USER, session_id="art", filename=self.name(size, i)
            )
            assert got is not None and got.inline_data is not None and len(got.inline_data.data or b"") == expected


class PeerArtifacts(MongoArtifactService):  # type: ignore[misc]
    """google-adk-extras 0.3.8's ``MongoArtifactService`` as published, given the two methods ADK's
    ``BaseArtifactService`` gained after it (abstract in google-adk 2.13, so the class cannot be instantiated
    without them). Neither is called here; save and load run the peer's own code."""

    async def list_artifact_versions(self, **_: Any) -> list[Any]:
        raise NotImplementedError("MongoArtifactService 0.3.8 has no list_artifact_versions")

    async def get_artifact_version(self, **_: Any) -> Any:
        raise NotImplementedError("MongoArtifactService 0.3.8 has no get_artifact_version")


def block(runner: asyncio.Runner, make: Callable[[], Awaitable[object]], operations: float) -> Callable[[], float]:
    def side() -> float:
        runner.run(make())  # type: ignore[arg-type]
        return operations

    return side


def cpu_per(samples: Sequence[Sample]) -> float:
    """Median client CPU per operation, µs."""
    return sorted(s.cpu / s.operations for s in samples)[len(samples) // 2] * 1e6


def note(per: str, ours: Counted, peer: Counted, samples: dict[str, list[Sample]]) -> str:
    cpu_ours, cpu_peer = cpu_per(samples["ours"]), cpu_per(samples["peer"])
    return (f"per {per}: ours {ours.text()}; peer {peer.text()}; client CPU {cpu_ours:,.0f} µs ours vs "
            f"{cpu_peer:,.0f} µs peer ({cpu_ours / cpu_peer:.2f}x)")  # fmt: skip


def patient(uri: str) -> str:
    """``uri`` with a 2-minute ``connectTimeoutMS`` (also the driver's heartbeat timeout), for every client of
    both sides: a stand-in busy with a long command answers heartbeats late, and the driver would give up the
    server and cancel the commands in flight."""
    if "?" in uri:
        return f"{uri}&connectTimeoutMS=120000"
    return f"{uri if '/' in uri.partition('://')[2] else uri + '/'}?connectTimeoutMS=120000"


def progress(started: float, what: str) -> None:
    print(f"adk_services: {what} at {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--events", type=int, default=3000, help="events of the long session (default 3,000)")
    parser.add_argument(
        "--sessions", type=int, default=None, help="sessions of the listed user (default 10,000; 2,000 on a stand-in)"
    )


def measure(args: argparse.Namespace) -> Report:
    uri = configured_uri()
    if uri is not None:
        where = "mongoeco stand-in" if os.environ.get(SHARED_STANDIN) else "MONGODB_URI"
        return measure_on(args, uri, where)
    server = StandinServer("mongoeco")
    try:
        return measure_on(args, server.start(), "mongoeco stand-in")
    finally:
        server.stop()


def measure_on(args: argparse.Namespace, uri: str, where: str) -> Report:
    """Every case on the server at ``uri`` (``where`` names it)."""
    many = args.sessions or (10_000 if where == "MONGODB_URI" else STANDIN_SESSIONS)
    appends, history, many, files = (3, 25, 110, 2) if args.smoke else (20, args.events, many, 10)
    short = 20
    meter = Meter()  # before any client: each client gets its listeners once
    suffix = uuid.uuid4().hex[:8]
    names = {
        side: f"bench_adk_{side}_{suffix}" for side in ("ours", "peer", "ours_many", "peer_many", "art", "peer_art")
    }
    uri = patient(uri)
    started = time.monotonic()
    ours_client: AsyncMongoClient[Any] = AsyncMongoClient(uri, tz_aware=True)
    peer_client: MongoClient[Any] = MongoClient(uri, tz_aware=True)
    results: list[Result] = []
    trips: dict[str, int] = {}
    with asyncio.Runner() as runner:

        def ours(database: str) -> AimonSessionService:
            bundle = AsyncMongoSessionBackends(
                ours_client[database], "bench-node", collection_names=MONGO_COLLECTIONS, ensure_schema=True
            )
            return AimonSessionService(bundle)

        def peer(database: str) -> MongoDbSessionService:
            return MongoDbSessionService(database_name=database, mongo_client=peer_client)

        peer_service = peer(names["peer"])
        sessions = {
            "ours": Sessions(ours(names["ours"]), ours(names["ours_many"])),
            "peer": Sessions(peer_service, peer(names["peer_many"])),
        }
        ours_art = AimonArtifactService(AsyncGridFSFileSystem(ours_client, names["art"]))
        peer_art = PeerArtifacts(uri, database_name=names["peer_art"])
        artifacts = {"ours": Artifacts(ours_art, files), "peer": Artifacts(peer_art, files)}

        def case(
            index: int, unit: str, per: str, label: str, make: Callable[[str], Callable[[], Awaitable[object]]],
            operations: int, repeats: int = args.repeats,
        ) -> None:  # fmt: skip
            """Time ``make(side)()`` on both sides, then count one run of it on each: one result, its note and
            its round-trip rows."""
            sides = {side: make(side) for side in ("ours", "peer")}
            samples = rounds({side: block(runner, run, operations) for side, run in sides.items()}, repeats)
            counted = {side: meter.count(runner, run, operations) for side, run in sides.items()}
            peer = ARTIFACT_PEER if "artifact" in label else SESSION_PEER
            trips[f"{label}: ours"] = round(counted["ours"].round_trips)
            trips[f"{label}: {peer}"] = round(counted["peer"].round_trips)
            text = note(per, counted["ours"], counted["peer"], samples)
            results.append(Result.timed(TITLE, CASES[index], samples["ours"], samples["peer"], unit=unit, note=text))
            progress(started, label)

        try:
            runner.run(peer_art.initialize())
            for name, side in sessions.items():
                runner.run(side.fill("turns", 1))
                runner.run(side.fill("short", short))
                runner.run(side.fill("history", history))
                runner.run(side.many(peer_client[names[f"{name}_many"]], many))
                runner.run(side.load_turns())
                progress(started, f"{name} filled")
            recent = GetSessionConfig(num_recent_events=20)
            list_rounds = max(1, args.repeats // 3)
            case(0, "appends/s", "append", "append_event", lambda s: lambda: sessions[s].append(appends), appends)
            case(1, "gets/s", "get", f"get_session ({short} events)",
                 lambda s: lambda: sessions[s].get("short", None), 1)  # fmt: skip
            case(2, "gets/s", "get", f"get_session (last 20 of {history:,})",
                 lambda s: lambda: sessions[s].get("history", recent), 1)  # fmt: skip
            case(3, "lists/s", "list", f"list_sessions ({many:,})", lambda s: lambda: sessions[s].listing(many), 1,
                 list_rounds)  # fmt: skip
            case(4, "lists/s", "list", f"list_sessions_page (100 of {many:,}), the peer's list_sessions",
                 lambda s: sessions[s].page if s == "ours" else lambda: sessions[s].listing(many), 1,
                 list_rounds)  # fmt: skip
            for offset, (size, length) in enumerate(SIZES.items()):
                payload = part(length)
                count = files if length < 1024 * 1024 else max(1, files // 5)
                case(5 + 2 * offset, "saves/s", "save", f"save_artifact ({size})",
                     lambda s, size=size, payload=payload, count=count: lambda: artifacts[s].save(size, payload, count),
                     count)  # fmt: skip
                case(6 + 2 * offset, "loads/s", "load", f"load_artifact ({size})",
                     lambda s, size=size, length=length, count=count: lambda: artifacts[s].load(size, length, count),
                     count)  # fmt: skip
            version = peer_client.admin.command("buildInfo").get("version", "?")
            transactions = "in transactions" if peer_service._transactions_supported else "without transactions"
        finally:
            runner.run(peer_art.cleanup())
            for name in names.values():
                peer_client.drop_database(name)
            runner.run(ours_client.close())
            peer_client.close()
    sizes = (f"{appends} appends per round, sessions of {short} and {history:,} events, {many:,} sessions of one "
             f"user, {files} artifacts of 4 KiB and {max(1, files // 5)} of 1 MiB per round")  # fmt: skip
    environment = {
        "ADK services' server": f"{where} (reports {version}); {SESSION_PEER} wrote {transactions}",
        "ADK services' sizes": sizes,
    }
    return Report(results, environment, round_trips={TITLE: trips})


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, options, repeats=6))
