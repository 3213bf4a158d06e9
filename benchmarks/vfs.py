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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from _timing import Report, Result, cpu_note, main, rounds, times  # benchmarks/_timing.py (run as a script)
from gridfs import GridFSBucket
from pymongo import MongoClient, monitoring

from aimon_mongo.standin import StandinServer, configured_uri
from aimon_mongo.vfs import GridFSFileSystem, MemoryFileSystem
from aimon_mongo.vfs.listing import children_of

DATABASE = "aimon_bench_vfs"
BATCH = 500
STANDIN_WRITE_BUDGET_MIB = 512


class FindCounter(monitoring.CommandListener):
    """Counts find/getMore commands and the documents they return."""

    def __init__(self) -> None:
        self.active = False
        self.commands = 0
        self.documents = 0

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if self.active and event.command_name in ("find", "getMore"):
            self.commands += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        if self.active and event.command_name in ("find", "getMore"):
            cursor = event.reply.get("cursor", {})
            self.documents += len(cursor.get("firstBatch", cursor.get("nextBatch", [])))

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        return None

    @contextmanager
    def counting(self) -> Iterator[None]:
        self.commands = self.documents = 0
        self.active = True
        try:
            yield
        finally:
            self.active = False


def populate(client: MongoClient[Any], big: int) -> None:
    """Two directories in one bucket: ``big/`` (10 children, ``big`` descendants), ``small/`` (10, 10)."""
    files = client[DATABASE]["fs.files"]
    now = datetime.now(UTC)
    docs: list[dict[str, Any]] = []

    def flush() -> None:
        if docs:
            files.insert_many(docs, ordered=False)
            docs.clear()

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
    "write vs raw GridFSBucket upload",
    "read vs raw GridFSBucket download",
)


def bench_ls(client: MongoClient[Any], counter: FindCounter, big: int, repeats: int) -> list[Result]:
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
            with counter.counting():
                action()
            work[name] = (counter.commands, counter.documents)
    size = f"10 children and {big:,} descendants vs 10 children and 10 descendants"
    wire = (f"{size}; find commands {work['big'][0]} vs {work['small'][0]} "
            f"(one `find … limit 1` per child plus two)")  # fmt: skip
    return [
        Result.timed(TITLE, CASES[0], samples["big"], samples["small"], unit="ls/s", target=0.5,
                     note=f"{size}; target: the big directory's ls takes at most 2x the small one's"),
        Result(TITLE, CASES[1], "docs", (work["big"][1],), (work["small"][1],), target=0.5, higher_is_better=False,
               note=wire),
        Result.timed(TITLE, CASES[3], samples["big"], samples["naive"], unit="ls/s",
                     note=f"the naive listing reads every name under the prefix ({big:,}) and reduces it in Python"),
        Result(TITLE, CASES[4], "docs", (work["big"][1],), (work["naive"][1],), higher_is_better=False,
               note=f"find commands {work['big'][0]} vs {work['naive'][0]}"),
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
        Result.timed(TITLE, CASES[5], samples["ours write"], samples["raw write"], unit="MiB/s", target=0.95,
                     note=f"{label}; {cpu_note(samples['ours write'], samples['raw write'], 'MiB')}"),
        Result.timed(TITLE, CASES[6], samples["ours read"], samples["raw read"], unit="MiB/s", target=0.95,
                     note=label),
    ]  # fmt: skip


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
    counter = FindCounter()
    try:
        with MongoClient(uri, event_listeners=[counter], tz_aware=True, socketTimeoutMS=600_000) as client:
            client.drop_database(DATABASE)
            info = client.admin.command("buildInfo")
            populate(client, big)
            results = bench_ls(client, counter, big, args.repeats)
            results.insert(2, bench_memory_ls(big, args.repeats))
            results.extend(bench_transfer(client, mib * 1024 * 1024, transfers))
            client.drop_database(DATABASE)
    finally:
        if server is not None:
            server.stop()
    where = "SecantusDB stand-in" if server is not None else "MONGODB_URI"
    return Report(results, {"VFS server": f"{where} (reports {info.get('version')})"})


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, options))
