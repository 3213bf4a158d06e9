"""Snapshot benchmarks: what the codec and the GridFS snapshot store cost, against their baselines.

    python benchmarks/snapshots.py           # a 500-message and a 20-message transcript (a few minutes)
    python benchmarks/snapshots.py --smoke   # tiny sizes, a few seconds
    python benchmarks/snapshots.py --profile # where the codec's round trip spends its time (cProfile), no timing

Part 1: ``JsonSessionSnapshotCodec`` encode+decode of a transcript vs ``json.dumps``/``json.loads`` of the
same document as a plain dict (the floor any JSON codec pays), for version 1 and version 2. CPU time.

Part 2: save+load of the same snapshot through ``VfsSessionSnapshotStore`` on ``GridFSFileSystem`` vs a
raw ``GridFSBucket`` upload+download of the same envelope bytes, on the same server in the same rounds
(wall and client CPU time). Two more comparisons split the difference: the raw round trip plus the
codec's encode+decode (what the store's own overhead is measured against), and the filesystem's
write+read of the bytes (what the VFS adds over raw GridFS). The server is ``MONGODB_URI`` when set,
otherwise a mongoeco stand-in started here (absolute times then measure the stand-in).

Ratios are speeds: the baseline's time over ours (1.00x means as fast as the baseline; targets, issue 18:
the codec >= 0.7x of json.dumps + json.loads, the store against raw bytes >= 0.6x).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from _timing import SHARED_STANDIN, Report, Result, main, rounds, times  # benchmarks/_timing.py (run as a script)

from aimon_mongo.standin import StandinServer, configured_uri


@dataclass
class MongoTarget:
    """The server of the GridFS part: ``MONGODB_URI``, or a stand-in started in the background at once so
    its start overlaps part 1, and stopped at the end."""

    server: StandinServer | None = None
    _uri: str | None = None
    _error: BaseException | None = None
    _thread: threading.Thread | None = field(default=None, repr=False)

    def prefetch(self) -> None:
        if self._uri is not None or self._thread is not None:
            return
        self._uri = configured_uri()
        if self._uri is None:
            self.server = StandinServer()
            self._thread = threading.Thread(target=self._start, name="bench-standin", daemon=True)
            self._thread.start()

    def _start(self) -> None:
        assert self.server is not None
        try:
            self._uri = self.server.start()
        except BaseException as exc:  # reported by uri()
            self._error = exc

    def uri(self) -> str:
        self.prefetch()
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._uri is not None
        return self._uri

    def stop(self) -> None:
        if self._thread is not None:
            self._thread.join()
        if self.server is not None:
            self.server.stop()


MONGO = MongoTarget()


if __name__ == "__main__":
    MONGO.prefetch()  # the stand-in starts while the modules below import

# ruff: noqa: E402
from gridfs import GridFSBucket
from pymongo import MongoClient

from aimon_mongo.model import TextInput
from aimon_mongo.names import DEFAULT_GRIDFS_CHUNK_SIZE
from aimon_mongo.snapshots import (
    Artifact,
    JsonSessionSnapshotCodec,
    Message,
    ReasoningTrace,
    RewindPoint,
    Role,
    SessionLogFormat,
    SessionSnapshot,
    TextBlock,
    ToolResult,
    ToolUse,
    VfsSessionSnapshotStore,
)
from aimon_mongo.vfs import GridFSFileSystem


def transcript(message_count: int) -> SessionSnapshot:
    """A realistic transcript: user turns, assistant turns with tool calls, tool results."""
    messages: list[Message] = []
    for i in range(message_count):
        kind = i % 4
        if kind == 0:
            messages.append(Message.text(Role.USER, f"Please look at file {i} and summarise it. " * 4))
        elif kind == 1:
            messages.append(
                Message(
                    role=Role.ASSISTANT,
                    content=(TextBlock(text="Reading the file now."),),
                    tool_uses=(ToolUse(id=f"tu-{i}", name="read_file", input={"path": f"/w/f{i}.txt", "limit": 200}),),
                    reasoning=(ReasoningTrace(provider="anthropic", payload="x" * 200, tool_use_id=f"tu-{i}"),),
                )
            )
        elif kind == 2:
            messages.append(
                Message(
                    role=Role.TOOL,
                    tool_results=(ToolResult(tool_use_id=f"tu-{i - 1}", content="line of text\n" * 40),),
                    artifacts=(Artifact(path=f"/w/f{i}.txt", file_name=f"f{i}.txt", size=480),),
                )
            )
        else:
            messages.append(Message.text(Role.ASSISTANT, "The file says this and that. " * 10))
    point = RewindPoint(seq=message_count - 1, user_input=TextInput(text="again")) if message_count else None
    return SessionSnapshot.of_messages("bench-session", messages, system_prompt="You are helpful.", rewind_point=point)


COMPARISONS = (
    ("store save+load vs raw upload+download", "ours", "raw", 0.6),
    ("store save+load vs raw upload+download + codec", "ours", "raw_with_codec", None),
    ("VFS write+read vs raw upload+download", "vfs_bytes", "raw", None),
)
SIZES = ("large", "small")
CLOCKS = ("wall", "CPU")
TITLE = "snapshots"
CASES = (
    "codec v1 encode+decode vs json.dumps+json.loads",
    "codec v2 encode+decode vs json.dumps+json.loads",
    *(
        f"{size} transcript, {name} ({clock})"
        for size in SIZES
        for name, *_ in COMPARISONS
        for clock in ("wall", "CPU")
    ),
)


def codec_round_trip(message_count: int, calls: int, repeats: int) -> list[Result]:
    """Part 1: codec encode+decode vs json.dumps+json.loads of the same plain dict, CPU time."""
    snapshot = transcript(message_count)
    sides: dict[str, Callable[[], float]] = {}
    sizes = []
    for fmt in (SessionLogFormat.V1, SessionLogFormat.V2):
        codec = JsonSessionSnapshotCodec(fmt)
        text = codec.encode(snapshot)
        plain = json.loads(text)
        sides[f"ours v{fmt.wire_version}"] = times(lambda codec=codec: codec.decode(codec.encode(snapshot)), calls)
        sides[f"json v{fmt.wire_version}"] = times(
            lambda plain=plain: json.loads(json.dumps(plain, separators=(",", ":"))), calls
        )
        sizes.append(f"v{fmt.wire_version} {len(text):,} chars")
    samples = rounds(sides, repeats, gc_off=True)
    notes = (f"{message_count} messages ({', '.join(sizes)}), CPU time", "")
    return [
        Result.timed(TITLE, CASES[index], samples[f"ours v{v}"], samples[f"json v{v}"], clock="cpu",
                     unit="round trips/s", target=0.7, note=notes[index])
        for index, v in enumerate((1, 2))
    ]  # fmt: skip


def gridfs_round_trip(size: str, message_count: int, calls: int, repeats: int) -> list[Result]:
    """Part 2: store save+load on GridFS vs raw GridFSBucket upload+download of the same bytes."""
    client: MongoClient[dict[str, object]] = MongoClient(MONGO.uri(), tz_aware=True)
    database = f"bench_snapshots_{uuid.uuid4().hex[:8]}"
    try:
        fs = GridFSFileSystem(client, database, "vfs", DEFAULT_GRIDFS_CHUNK_SIZE)
        fs.initialize()
        store = VfsSessionSnapshotStore(fs)
        codec = JsonSessionSnapshotCodec()
        snapshot = transcript(message_count)
        store.save("bench-task", "bench", "agent:bench", snapshot)
        data = fs.read(store.path_of("bench-task"))  # the exact bytes the store writes
        document = codec.encode(snapshot)
        if len(document) >= len(data):
            raise RuntimeError("the envelope cannot be shorter than the document it embeds")
        bucket = GridFSBucket(client[database], "raw", chunk_size_bytes=DEFAULT_GRIDFS_CHUNK_SIZE)

        def ours() -> None:
            store.save("bench-task", "bench", "agent:bench", snapshot)
            if store.load("bench-task") is None:
                raise RuntimeError("the benchmark snapshot did not load")

        def raw() -> None:
            bucket.upload_from_stream("bench-task.json", io.BytesIO(data))
            bucket.open_download_stream_by_name("bench-task.json").read()

        def raw_with_codec() -> None:
            bucket.upload_from_stream("bench-task.json", io.BytesIO(codec.encode(snapshot).encode("utf-8")))
            codec.decode(bucket.open_download_stream_by_name("bench-task.json").read().decode("utf-8"))

        def vfs_bytes() -> None:
            fs.write("bytes/bench-task.json", data)
            fs.read("bytes/bench-task.json")

        def tidy() -> None:  # raw uploads never retire a revision: drop them so lookups stay equally cheap
            for suffix in ("files", "chunks"):
                client[database][f"raw.{suffix}"].delete_many({})

        functions = (ours, raw, raw_with_codec, vfs_bytes)
        samples = rounds({fn.__name__: times(fn, calls) for fn in functions}, repeats, tidy=tidy)
        note = f"{message_count} messages, {len(data):,} B envelope, {calls} round trips per round and side"
        results = []
        for name, mine, base, target in COMPARISONS:
            for label, clock in zip(CLOCKS, ("wall", "cpu"), strict=True):
                case = f"{size} transcript, {name} ({label})"
                results.append(Result.timed(TITLE, case, samples[mine], samples[base], clock=clock,
                                            unit="round trips/s", target=target if clock == "wall" else None,
                                            note="" if results else note))  # fmt: skip
        fs.close()
        return results
    finally:
        if configured_uri() is not None:  # a stand-in of our own is about to stop anyway
            client.drop_database(database)
        client.close()


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--messages", type=int, default=500, help="of the large transcript (default 500)")
    parser.add_argument("--rounds", type=int, default=10, help="round trips per timed block (default 10)")
    parser.add_argument("--profile", action="store_true",
                        help="profile the codec's encode+decode of the large transcript (--rounds round trips per "
                             "format, cProfile, top functions by own time on stderr) instead of timing")  # fmt: skip


def profile_codec(message_count: int, calls: int) -> None:
    """``--profile``: the codec round trip of part 1 under cProfile, for each format (a profiling aid only:
    the profiler slows Python code far more than pydantic-core's, so read shares, not times)."""
    import cProfile
    import pstats

    snapshot = transcript(message_count)
    for fmt in (SessionLogFormat.V1, SessionLogFormat.V2):
        codec = JsonSessionSnapshotCodec(fmt)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(calls):
            codec.decode(codec.encode(snapshot))
        profiler.disable()
        print(f"codec v{fmt.wire_version}: {message_count} messages, {calls} round trips", file=sys.stderr)
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(20)


def measure(args: argparse.Namespace) -> Report:
    if args.profile:
        MONGO.stop()  # started at import for the timed parts, not needed here
        profile_codec(args.messages, args.rounds)
        return Report([], {})
    large, small, calls = (20, 5, 2) if args.smoke else (args.messages, 20, args.rounds)
    MONGO.prefetch()
    try:
        results = codec_round_trip(large, calls, args.repeats)
        results += gridfs_round_trip("large", large, calls, args.repeats)
        results += gridfs_round_trip("small", small, calls, args.repeats)
    finally:
        MONGO.stop()
    where = "MONGODB_URI" if MONGO.server is None and not os.environ.get(SHARED_STANDIN) else "mongoeco stand-in"
    return Report(results, {"Snapshot store server": where})


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, options, repeats=25))
