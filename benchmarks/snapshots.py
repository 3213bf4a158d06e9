"""Snapshot benchmarks: what the codec and the GridFS snapshot store cost, printed as ratios.

    python benchmarks/snapshots.py           # a 500-message transcript
    python benchmarks/snapshots.py --smoke   # tiny sizes, under 10 seconds

Part 1: ``JsonSessionSnapshotCodec`` encode+decode of a transcript vs ``json.dumps``/``json.loads`` of the
same document as a plain dict (the floor any JSON codec pays), for version 1 and version 2. CPU time.

Part 2: save+load of the same snapshot through ``VfsSessionSnapshotStore`` on ``GridFSFileSystem`` vs a
raw ``GridFSBucket`` upload+download of the same envelope bytes, on the same server in the same run
(wall and client CPU time, best of several runs). Two more lines split the difference: the raw round
trip plus the codec's encode+decode (what the store's own overhead is measured against), and the
filesystem's write+read of the bytes (what the VFS adds over raw GridFS). The server is ``MONGODB_URI``
when set, otherwise a mongoeco stand-in started here (absolute times then measure the stand-in).

``ratio`` is our cost over the baseline's (lower is better); ``speed`` is its inverse (baseline time
over ours; 1.00x means as fast as the baseline).
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

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


@dataclass(frozen=True)
class Result:
    """One comparison: our operation vs its baseline, seconds per round trip (``clock`` says which time)."""

    name: str
    ours: float
    baseline: float
    clock: str = "cpu"

    def line(self) -> str:
        ratio = self.ours / self.baseline if self.baseline else float("inf")
        speed = self.baseline / self.ours if self.ours else float("inf")
        return (
            f"{self.name:<58} {self.clock:<4} ours {self.ours * 1e3:9.3f} ms   baseline {self.baseline * 1e3:9.3f} ms"
            f"   ratio {ratio:6.2f}x   speed {speed:5.2f}x"
        )


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
                    tool_uses=(
                        ToolUse(id=f"tu-{i}", name="read_file", input={"path": f"/w/f{i}.txt", "limit": 200}),
                    ),
                    reasoning=(
                        ReasoningTrace(provider="anthropic", payload="x" * 200, tool_use_id=f"tu-{i}"),
                    ),
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
    return SessionSnapshot.of_messages(
        "bench-session", messages, system_prompt="You are helpful.", rewind_point=point
    )


def _per_call(fn: Callable[[], object], rounds: int, repeats: int = 7) -> float:
    """Best CPU seconds per call over ``repeats`` runs of ``rounds`` calls (robust on a busy host)."""
    fn()  # warm up
    best = float("inf")
    gc.disable()  # as timeit does: collector pauses are noise, not cost of either side
    try:
        for _ in range(repeats):
            start = time.process_time()
            for _ in range(rounds):
                fn()
            best = min(best, (time.process_time() - start) / rounds)
    finally:
        gc.enable()
    return best


def codec_round_trip(message_count: int, rounds: int) -> list[Result]:
    """Part 1: codec encode+decode vs json.dumps+json.loads of the same plain dict."""
    snapshot = transcript(message_count)
    results = []
    for fmt in (SessionLogFormat.V1, SessionLogFormat.V2):
        codec = JsonSessionSnapshotCodec(fmt)
        text = codec.encode(snapshot)
        plain = json.loads(text)
        ours = _per_call(lambda codec=codec: codec.decode(codec.encode(snapshot)), rounds)
        base = _per_call(lambda plain=plain: json.loads(json.dumps(plain, separators=(",", ":"))), rounds)
        results.append(
            Result(f"encode+decode v{fmt.wire_version}, {message_count} msgs, {len(text)} chars", ours, base)
        )
    return results




def _wall_and_cpu(
    fns: list[Callable[[], object]], rounds: int, repeats: int, tidy: Callable[[], object]
) -> dict[str, tuple[float, float]]:
    """Best wall and best CPU seconds per call of each function, by name.

    The functions take turns within every repeat, so a change of load on the host (other processes, the
    server's own garbage collection) falls on all of them alike. ``tidy`` runs after every timed block,
    untimed.
    """
    best = {fn.__name__: (float("inf"), float("inf")) for fn in fns}
    for fn in fns:
        fn()  # warm up
    for _ in range(repeats):
        for fn in fns:
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(rounds):
                fn()
            wall, cpu = (time.perf_counter() - wall) / rounds, (time.process_time() - cpu) / rounds
            tidy()
            best[fn.__name__] = (min(best[fn.__name__][0], wall), min(best[fn.__name__][1], cpu))
    return best


def gridfs_round_trip(message_count: int, rounds: int) -> list[Result]:
    """Part 2: store save+load on GridFS vs raw GridFSBucket upload+download of the same bytes."""
    repeats = 2 if rounds <= 3 else 5
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

        measured = _wall_and_cpu([ours, raw, raw_with_codec, vfs_bytes], rounds, repeats, tidy)
        size = f"{message_count} msgs, {len(data)} B"
        comparisons = [
            (f"GridFS store save+load vs raw up+down, {size}", "ours", "raw"),
            ("GridFS store save+load vs raw up+down + codec", "ours", "raw_with_codec"),
            ("GridFS VFS write+read vs raw up+down (same bytes)", "vfs_bytes", "raw"),
        ]
        results = []
        for name, mine, base in comparisons:
            results.append(Result(name, measured[mine][0], measured[base][0], "wall"))
            results.append(Result(name, measured[mine][1], measured[base][1], "cpu"))
        if len(document) >= len(data):
            raise RuntimeError("the envelope cannot be shorter than the document it embeds")
        fs.close()
        return results
    finally:
        if configured_uri() is not None:  # a stand-in of our own is about to stop anyway
            client.drop_database(database)
        client.close()


PARTS: list[Callable[[int, int], list[Result]]] = [codec_round_trip, gridfs_round_trip]
"""Every benchmark part: ``(message_count, rounds) -> results``."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes (under 10 seconds)")
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    count, rounds = (20, 2) if args.smoke else (args.messages, args.rounds)
    MONGO.prefetch()
    try:
        for part in PARTS:
            for result in part(count, rounds):
                print(result.line(), flush=True)
    finally:
        MONGO.stop()


if __name__ == "__main__":
    main()
