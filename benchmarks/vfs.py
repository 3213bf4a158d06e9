#!/usr/bin/env python3
"""VFS benchmarks: ratios against raw PyMongo GridFS on one server, in one run.

    python benchmarks/vfs.py                         # 10,000 descendants, 32 MiB files
    python benchmarks/vfs.py --descendants 100000    # the issue's size (each ls takes minutes on a stand-in)
    python benchmarks/vfs.py --smoke                 # small sizes, a few seconds once the stand-in is set up
    python benchmarks/vfs.py --uri mongodb://host/   # a real deployment (or MONGODB_URI)

Without a URI it starts the SecantusDB stand-in (it inserts fast enough to hold 100,000 file documents
and returns GridFS chunks in bounded batches; mongoeco does neither). Rows:

1. ``ls`` of a directory with 10 children and N descendants vs one with 10 children and 10 descendants,
   in the same bucket (target <= 2x, shown as a ratio small time / big time >= 0.50x): wall time on the
   server, the work on the wire (find commands and documents returned), and wall time on the in-memory
   backend, whose ordered index stops at the limit.
2. ``ls`` vs the naive listing that reads every name under the prefix.
3. Writing and reading a large file vs raw ``GridFSBucket`` (target >= 0.95x throughput).

The sides take turns in every round. Absolute times on a stand-in measure the stand-in; read the ratios.
"""

from __future__ import annotations

import argparse
import io
import itertools
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from _timing import Report, Result, cpu_note, main, rounds, times  # benchmarks/_timing.py (run as a script)
from gridfs import GridFSBucket
from pymongo import MongoClient

from aimon_mongo.mongo.command_log import CommandLog
from aimon_mongo.standin import StandinServer, configured_uri
from aimon_mongo.vfs import GridFSFileSystem, MemoryFileSystem
from aimon_mongo.vfs.listing import children_of

DATABASE = "aimon_bench_vfs"
BATCH = 500
STANDIN_WRITE_BUDGET_MIB = 512


def populate(client: MongoClient[Any], big: int) -> None:
    """Three directories in one bucket: ``big/`` (10 children, ``big`` descendants), ``small/`` (10, 10) and
    ``flat/`` (``big`` files, no subdirectory)."""
    files = client[DATABASE]["fs.files"]
    now = datetime.now(UTC)
    docs: list[dict[str, Any]] = []

    def flush() -> None:
        if docs:
            files.insert_many(docs, ordered=False)
            docs.clear()

    for i in range(big):
        name = f"flat/{i:07d}.json"
        metadata = {"path": name}
        docs.append({"filename": name, "length": 0, "chunkSize": 1048576, "uploadDate": now, "metadata": metadata})
        if len(docs) >= BATCH:
            flush()
    for root, count in (("big", big), ("small", 10)):
        for i in range(count):
            docs.append(
                {
                    "filename": f"{root}/child{i % 10}/sub/{i:07d}.bin",
                    "length": 0,
                    "chunkSize": 1048576,
                    "uploadDate": now,
                    "metadata": {"path": f"{root}/child{i % 10}/sub/{i:07d}.bin"},
                }
            )
            if len(docs) >= BATCH:
                flush()
    flush()


def naive_ls(client: MongoClient[Any], prefix: str) -> list[str]:
    """The O(descendants) listing: read every name under the prefix, reduce in Python."""
    successor = prefix[:-1] + "0"
    cursor = client[DATABASE]["fs.files"].find({"filename": {"$gte": prefix, "$lt": successor}}, {"filename": 1})
    return [child.path for child in children_of(prefix, sorted(doc["filename"] for doc in cursor))]


TITLE = "VFS"
CASES = (
    "ls, big vs small directory, GridFS wall time",
    "ls, big vs small directory, documents on the wire",
    "ls, big vs small directory, memory backend",
    "ls vs naive full-prefix scan, GridFS wall time",
    "ls vs naive full-prefix scan, documents on the wire",
    "ls of a flat directory, round trips vs one seek per child",
    "write vs raw GridFSBucket upload",
    "read vs raw GridFSBucket download",
)


def bench_ls(client: MongoClient[Any], log: CommandLog, big: int, repeats: int) -> list[Result]:
    """``ls`` of the big directory against the small one and against the naive listing, in the same rounds."""
    with GridFSFileSystem(client, DATABASE) as fs:
        assert (
            fs.ls("big") == [f"big/child{i}" for i in range(10)] == [p.replace("small", "big") for p in fs.ls("small")]
        )
        actions: dict[str, Callable[[], object]] = {
            "big": lambda: fs.ls("big"),
            "small": lambda: fs.ls("small"),
            "naive": lambda: naive_ls(client, "big/"),
        }
        samples = rounds({name: times(action, 1) for name, action in actions.items()}, repeats)
        work = {}
        for name, action in actions.items():
            with log.recording() as seen:
                action()
            work[name] = (seen.round_trips, seen.documents)
        with log.recording() as flat:
            listed = fs.ls("flat")
        assert len(listed) == big
        # The listing before issue 18 sent one seek per child and one that found nothing; it is not run
        # here: on the stand-in each seek reads the whole remaining range (quadratic in the children).
        per_child_round_trips = big + 1
    size = f"10 children and {big:,} descendants vs 10 children and 10 descendants"
    wire = (f"{size}; find commands {work['big'][0]} vs {work['small'][0]} "
            f"(one read per subdirectory child plus two)")  # fmt: skip
    return [
        Result.timed(TITLE, CASES[0], samples["big"], samples["small"], unit="ls/s", target=0.5,
                     note=f"{size}; target: the big directory's ls takes at most 2x the small one's"),
        Result(TITLE, CASES[1], "docs", (work["big"][1],), (work["small"][1],), target=0.5, higher_is_better=False,
               note=wire),
        Result.timed(TITLE, CASES[3], samples["big"], samples["naive"], unit="ls/s",
                     note=f"the naive listing reads every name under the prefix ({big:,}) and reduces it in Python"),
        Result(TITLE, CASES[4], "docs", (work["big"][1],), (work["naive"][1],), higher_is_better=False,
               note=f"find commands {work['big'][0]} vs {work['naive'][0]}"),
        Result(TITLE, CASES[5], "round trips", (flat.round_trips,), (per_child_round_trips,),
               higher_is_better=False,
               note=f"`ls` of {big:,} files in one directory, counted with CommandLog; the baseline is the "
                    "listing before issue 18, one `find … limit 1` per child plus one (counted by rule, not run)"),
    ]  # fmt: skip


def bench_memory_ls(big: int, repeats: int) -> Result:
    with MemoryFileSystem() as fs:
        store: Any = fs._store  # bulk load through the store: writing 100,000 files one by one is not the point
        names = sorted(
            f"{root}/child{i % 10}/sub/{i:07d}.bin"
            for root, count in (("big", big), ("small", 10))
            for i in range(count)
        )
        for name in names:
            store.insert(name, b"", {"path": name})
        samples = rounds({"big": times(lambda: fs.ls("big"), 200), "small": times(lambda: fs.ls("small"), 200)},
                         repeats)  # fmt: skip
    return Result.timed(TITLE, CASES[2], samples["big"], samples["small"], unit="ls/s", target=0.5,
                        note="the same listing code over an ordered in-process index (`bisect`)")  # fmt: skip


def bench_transfer(client: MongoClient[Any], size: int, repeats: int) -> list[Result]:
    """Write and read of ``size`` bytes against raw GridFS, the four sides taking turns in every round."""
    data = os.urandom(1024 * 1024) * (size // (1024 * 1024))
    mib = size / (1024 * 1024)
    bucket = GridFSBucket(client[DATABASE], bucket_name="bench")
    written: list[Callable[[], object]] = []  # deletions of what the last write block wrote
    names = itertools.count()
    with GridFSFileSystem(client, DATABASE, bucket="bench") as fs:
        read_id = bucket.upload_from_stream("read-raw.bin", io.BytesIO(data))
        fs.write("read-ours.bin", data)
        assert bucket.open_download_stream(read_id).read() == data == fs.read("read-ours.bin")

        def raw_write() -> float:
            file_id = bucket.upload_from_stream(f"w{next(names)}.bin", io.BytesIO(data))
            written.append(lambda: bucket.delete(file_id))
            return mib

        def ours_write() -> float:
            name = f"w{next(names)}.bin"
            fs.write(name, data)
            written.append(lambda: fs.delete_recursive(name))
            return mib

        def tidy() -> None:  # untimed: drop what was written, so that every write meets the same bucket
            while written:
                written.pop()()

        sides = {
            "raw write": raw_write,
            "ours write": ours_write,
            "raw read": lambda: (bucket.open_download_stream(read_id).read(), mib)[1],
            "ours read": lambda: (fs.read("read-ours.bin"), mib)[1],
        }
        samples = rounds(sides, repeats, tidy=tidy, warmup=False)  # ls warmed the connection up
    label = f"{mib:.0f} MiB files, {repeats} rounds"
    return [
        Result.timed(TITLE, CASES[6], samples["ours write"], samples["raw write"], unit="MiB/s", target=0.95,
                     note=f"{label}; {cpu_note(samples['ours write'], samples['raw write'], 'MiB')}"),
        Result.timed(TITLE, CASES[7], samples["ours read"], samples["raw read"], unit="MiB/s", target=0.95,
                     note=label),
    ]  # fmt: skip


def round_trips_per_operation(client: MongoClient[Any], log: CommandLog) -> str:
    """Commands each public VFS operation sends (CommandLog), on a small tree in a bucket of its own."""
    with GridFSFileSystem(client, DATABASE, bucket="ops") as fs:
        fs.write("d/a.txt", b"alpha\n")
        fs.write("d/sub/b.txt", b"beta\n")
        fs.mkdir("d/empty")
        last: dict[str, str] = {}
        operations: list[tuple[str, Callable[[], object]]] = [
            ("write (new file)", lambda: fs.write("d/new.txt", b"new\n")),
            ("write (overwrite)", lambda: last.update(etag=str(fs.write("d/new.txt", b"newer\n").etag))),
            ("write if_revision", lambda: fs.write("d/new.txt", b"n3\n", if_revision=last["etag"])),
            ("append", lambda: fs.append("d/new.txt", b"more\n")),
            ("read", lambda: fs.read("d/a.txt")),
            ("read_range", lambda: fs.read_range("d/a.txt", 1, 3)),
            ("read_lines", lambda: fs.read_lines("d/a.txt")),
            ("exists", lambda: fs.exists("d/a.txt")),
            ("is_dir", lambda: fs.is_dir("d")),
            ("is_file", lambda: fs.is_file("d/a.txt")),
            ("info", lambda: fs.info("d/a.txt")),
            ("ls (3 files, 2 subdirectories)", lambda: fs.ls("d")),
            ("ls_info (same)", lambda: fs.ls_info("d")),
            ("ls_recursive", lambda: fs.ls_recursive("d")),
            ("walk", lambda: list(fs.walk("d"))),
            ("find", lambda: fs.find("d", "*.txt")),
            ("glob", lambda: fs.glob("d/**/*.txt")),
            ("grep", lambda: fs.grep("alpha", "d")),
            ("touch", lambda: fs.touch("d/a.txt")),
            ("usage", lambda: fs.usage("d")),
            ("mkdir (one level)", lambda: fs.mkdir("d/made")),
            ("copy", lambda: fs.copy("d/a.txt", "d/copy.txt")),
            ("move", lambda: fs.move("d/copy.txt", "d/moved.txt")),
            ("delete (file)", lambda: fs.delete("d/moved.txt")),
            ("delete (empty directory)", lambda: fs.delete("d/made")),
            ("delete_recursive", lambda: fs.delete_recursive("d/sub")),
        ]
        counts = []
        for name, operation in operations:
            with log.recording() as seen:
                operation()
            counts.append(f"{name} {seen.round_trips}")
        fs.delete_recursive("d")
    return ", ".join(counts)


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--uri", default=configured_uri(), help="MongoDB deployment (default: a stand-in)")
    parser.add_argument("--descendants", type=int, default=None, help="of the big directory (default 10,000)")
    parser.add_argument("--mib", type=int, default=None, help="size of the transferred file (default 32)")


def measure(args: argparse.Namespace) -> Report:
    big, mib = (500, 2) if args.smoke else (10_000, 32)
    big, mib = args.descendants or big, args.mib or mib
    transfers = args.repeats
    server = None
    uri = args.uri
    if not uri:
        server = StandinServer("secantus")
        uri = server.start()
        # SecantusDB keeps every written chunk in its oplog for an hour, inside a 1 GiB WiredTiger cache:
        # past about 700 MiB written in all, writes fail ("internal server error"). Stay under 512 MiB.
        transfers = min(args.repeats, max(2, (STANDIN_WRITE_BUDGET_MIB // mib - 2) // 2))
    log = CommandLog()
    try:
        with MongoClient(uri, event_listeners=[log], tz_aware=True, socketTimeoutMS=600_000) as client:
            client.drop_database(DATABASE)
            info = client.admin.command("buildInfo")
            populate(client, big)
            results = bench_ls(client, log, big, args.repeats)
            results.insert(2, bench_memory_ls(big, args.repeats))
            results.extend(bench_transfer(client, mib * 1024 * 1024, transfers))
            per_operation = round_trips_per_operation(client, log)
            client.drop_database(DATABASE)
    finally:
        if server is not None:
            server.stop()
    where = "SecantusDB stand-in" if server is not None else "MONGODB_URI"
    return Report(results, {"VFS server": f"{where} (reports {info.get('version')})",
                            "VFS round trips per operation (GridFS, CommandLog)": per_operation})  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, options))
