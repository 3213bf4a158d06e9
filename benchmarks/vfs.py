#!/usr/bin/env python3
"""VFS benchmarks: ratios against raw PyMongo GridFS on one server, in one run.

    python benchmarks/vfs.py            # full sizes: 100,000 descendants, 64 MiB files
    python benchmarks/vfs.py --smoke    # small sizes, under 10 s once the stand-in is set up
    python benchmarks/vfs.py --uri mongodb://host/   # a real deployment (or MONGODB_URI)

Without a URI it starts the SecantusDB stand-in (it inserts fast enough to hold 100,000 file documents
and returns GridFS chunks in bounded batches; mongoeco does neither). Rows:

1. ``ls`` of a directory with 10 children and N descendants vs one with 10 children and 10 descendants,
   in the same bucket (target <= 2x): wall time on the server, the work on the wire (find commands and
   documents returned), and wall time on the in-memory backend, whose ordered index stops at the limit.
2. ``ls`` vs the naive listing that reads every name under the prefix.
3. Writing and reading a large file vs raw ``GridFSBucket`` (target >= 0.95x throughput).

Absolute times on a stand-in measure the stand-in; read the ratios.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from gridfs import GridFSBucket
from pymongo import MongoClient, monitoring

from aimon_mongo.standin import StandinServer, configured_uri
from aimon_mongo.vfs import GridFSFileSystem, MemoryFileSystem
from aimon_mongo.vfs.listing import children_of

DATABASE = "aimon_bench_vfs"
BATCH = 500


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


def median_seconds(action: Callable[[], Any], repeat: int) -> float:
    """Median wall time of ``repeat`` runs (fewer once the runs have taken 2 s in all)."""
    timings: list[float] = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        timings.append(time.perf_counter() - started)
        if sum(timings) > 2.0:
            break
    return statistics.median(timings)


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
            docs.append({"filename": f"{root}/child{i % 10}/sub/{i:07d}.bin", "length": 0, "chunkSize": 1048576,
                         "uploadDate": now, "metadata": {"path": f"{root}/child{i % 10}/sub/{i:07d}.bin"}})
            if len(docs) >= BATCH:
                flush()
    flush()


def naive_ls(client: MongoClient[Any], prefix: str) -> list[str]:
    """The O(descendants) listing: read every name under the prefix, reduce in Python."""
    successor = prefix[:-1] + "0"
    cursor = client[DATABASE]["fs.files"].find({"filename": {"$gte": prefix, "$lt": successor}}, {"filename": 1})
    return [child.path for child in children_of(prefix, sorted(doc["filename"] for doc in cursor))]


def bench_ls(client: MongoClient[Any], counter: FindCounter, big: int, repeat: int) -> list[tuple[str, str, str]]:
    rows = []
    with GridFSFileSystem(client, DATABASE) as fs:
        assert fs.ls("big") == [f"big/child{i}" for i in range(10)] == [p.replace("small", "big") for p in
                                                                          fs.ls("small")]
        big_s = median_seconds(lambda: fs.ls("big"), repeat)
        small_s = median_seconds(lambda: fs.ls("small"), repeat)
        with counter.counting():
            fs.ls("big")
        big_work = (counter.commands, counter.documents)
        with counter.counting():
            fs.ls("small")
        small_work = (counter.commands, counter.documents)
        naive_s = median_seconds(lambda: naive_ls(client, "big/"), max(1, repeat // 2))
        with counter.counting():
            naive_ls(client, "big/")
        naive_work = (counter.commands, counter.documents)
    rows.append((f"ls 10 children/{big:,} desc. vs 10/10, GridFS wall time",
                 f"{big_s * 1000:.1f} ms vs {small_s * 1000:.1f} ms", f"{big_s / small_s:.2f}x (target <= 2x)"))
    rows.append((f"ls 10 children/{big:,} desc. vs 10/10, finds + docs on the wire",
                 f"{big_work[0]}+{big_work[1]} vs {small_work[0]}+{small_work[1]}",
                 f"{big_work[1] / small_work[1]:.2f}x docs"))
    rows.append((f"ls vs naive full-prefix scan ({big:,} desc.), GridFS wall time",
                 f"{big_s * 1000:.1f} ms vs {naive_s * 1000:.1f} ms", f"naive/ls = {naive_s / big_s:.2f}x"))
    rows.append((f"ls vs naive full-prefix scan ({big:,} desc.), docs on the wire",
                 f"{big_work[1]} vs {naive_work[1]}", f"naive/ls = {naive_work[1] / big_work[1]:.0f}x"))
    return rows


def bench_memory_ls(big: int, repeat: int) -> tuple[str, str, str]:
    with MemoryFileSystem() as fs:
        store: Any = fs._store  # bulk load through the store: writing 100,000 files one by one is not the point
        names = sorted(f"{root}/child{i % 10}/sub/{i:07d}.bin" for root, count in (("big", big), ("small", 10))
                       for i in range(count))
        for name in names:
            store.insert(name, b"", {"path": name})
        big_s = median_seconds(lambda: fs.ls("big"), repeat * 20)
        small_s = median_seconds(lambda: fs.ls("small"), repeat * 20)
    return (f"ls 10 children/{big:,} desc. vs 10/10, memory backend (ordered index)",
            f"{big_s * 1e6:.0f} us vs {small_s * 1e6:.0f} us", f"{big_s / small_s:.2f}x (target <= 2x)")


def bench_transfer(client: MongoClient[Any], size: int, repeat: int) -> list[tuple[str, str, str]]:
    data = os.urandom(1024 * 1024) * (size // (1024 * 1024))
    bucket = GridFSBucket(client[DATABASE], bucket_name="bench")
    raw_w, our_w, raw_r, our_r = [], [], [], []
    raw_cpu_w, our_cpu_w = [], []
    with GridFSFileSystem(client, DATABASE, bucket="bench") as fs:
        for round_ in range(repeat):
            order = [0, 1] if round_ % 2 == 0 else [1, 0]
            for which in order:
                name = f"f{round_}-{which}.bin"
                wall, cpu = time.perf_counter(), time.process_time()
                if which == 0:
                    file_id = bucket.upload_from_stream(name, io.BytesIO(data))
                    raw_w.append(time.perf_counter() - wall)
                    raw_cpu_w.append(time.process_time() - cpu)
                else:
                    fs.write(name, data)
                    our_w.append(time.perf_counter() - wall)
                    our_cpu_w.append(time.process_time() - cpu)
            for which in order:
                name = f"f{round_}-{which}.bin"
                wall = time.perf_counter()
                if which == 0:
                    got = bucket.open_download_stream(file_id).read()
                    raw_r.append(time.perf_counter() - wall)
                else:
                    got = fs.read(name)
                    our_r.append(time.perf_counter() - wall)
                assert got == data
            fs.delete_recursive(f"f{round_}-1.bin")
            bucket.delete(file_id)
    mib = size // (1024 * 1024)
    rw, ow, rr, orr = (statistics.median(x) for x in (raw_w, our_w, raw_r, our_r))
    rc, oc = statistics.median(raw_cpu_w), statistics.median(our_cpu_w)
    return [
        (f"write {mib} MiB vs raw GridFSBucket", f"{ow:.3f} s vs {rw:.3f} s (client CPU {oc:.3f} vs {rc:.3f} s)",
         f"{rw / ow:.2f}x throughput (target >= 0.95x)"),
        (f"read {mib} MiB vs raw GridFSBucket", f"{orr:.3f} s vs {rr:.3f} s",
         f"{rr / orr:.2f}x throughput (target >= 0.95x)"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="small sizes (< 10 s)")
    parser.add_argument("--uri", default=configured_uri(), help="MongoDB deployment (default: a stand-in)")
    args = parser.parse_args(argv)
    begun = time.perf_counter()
    big, size, repeat = (500, 2 * 1024 * 1024, 3) if args.smoke else (100_000, 64 * 1024 * 1024, 5)
    server = None
    uri = args.uri
    if not uri:
        server = StandinServer("secantus")
        uri = server.start()
    counter = FindCounter()
    try:
        with MongoClient(uri, event_listeners=[counter], tz_aware=True, socketTimeoutMS=600_000) as client:
            client.drop_database(DATABASE)
            info = client.admin.command("buildInfo")
            populate(client, big)
            rows = bench_ls(client, counter, big, repeat)
            rows.append(bench_memory_ls(big, repeat))
            rows.extend(bench_transfer(client, size, repeat))
            client.drop_database(DATABASE)
    finally:
        if server is not None:
            server.stop()
    where = "stand-in SecantusDB" if server is not None else "MONGODB_URI"
    print(f"VFS benchmarks ({'smoke' if args.smoke else 'full'}), server {where} {info.get('version')}, "
          f"{time.perf_counter() - begun:.1f} s including the server's start")
    width = max(len(row[0]) for row in rows)
    middle = max(len(row[1]) for row in rows)
    print(f"| {'benchmark'.ljust(width)} | {'ours vs baseline'.ljust(middle)} | ratio |")
    print(f"|{'-' * (width + 2)}|{'-' * (middle + 2)}|-------|")
    for name, figures, ratio in rows:
        print(f"| {name.ljust(width)} | {figures.ljust(middle)} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
