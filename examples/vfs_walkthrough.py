#!/usr/bin/env python3
"""A walk through the virtual filesystem on GridFS: files, directories, streams, totals, fsck, fsspec.

    pip install 'aimon-mongo[fsspec]'        # extras: fsspec
    python examples/vfs_walkthrough.py

Runs against AIMON_MONGODB_URI, else MONGODB_URI, or starts the local MongoDB stand-in for the run; uses a
fresh database and drops it at the end.
"""

from __future__ import annotations

import uuid

import fsspec
from pymongo import MongoClient

from aimon_mongo.connection import uri_source
from aimon_mongo.errors import VfsFileNotFoundError
from aimon_mongo.standin import mongodb_or_standin
from aimon_mongo.vfs import GridFSFileSystem


def walkthrough(fs: GridFSFileSystem) -> None:
    # Files: parents need not exist; every write replaces the file whole and changes its etag.
    info = fs.write("workspace/c-1/notes.md", "# Notes\n\nfirst draft\n")
    print(f"wrote {info.path}: {info.size} bytes, etag {info.etag}")
    fs.write("workspace/c-1/notes.md", "# Notes\n\nsecond draft\n")
    print("read back:", fs.read_text("workspace/c-1/notes.md").splitlines()[-1])

    # Streams: a large file is written and read in chunks; it appears only when the writer closes.
    with fs.open_output("workspace/c-1/data/samples.csv") as out:
        out.write(b"id,value\n")
        for i in range(1000):
            out.write(f"{i},{i * i}\n".encode())
    with fs.open_input("workspace/c-1/data/samples.csv") as reader:
        print(f"samples.csv is {reader.size} bytes; header {reader.read(9)!r}")

    # Directories: explicit (mkdir) or implied by the paths of the files under them.
    fs.mkdir("workspace/c-1/empty")
    print("ls workspace/c-1:", fs.ls("workspace/c-1"))
    print("every file:", [f.path for f in fs.walk(".")])
    print("find *.md:", fs.find(".", "*.md"))

    # Copy, move, delete; missing paths raise VfsFileNotFoundError (also a FileNotFoundError).
    fs.copy("workspace/c-1/notes.md", "archive/notes-v2.md")
    fs.move("archive/notes-v2.md", "archive/notes-final.md")
    try:
        fs.read("archive/notes-v2.md")
    except VfsFileNotFoundError as exc:
        print("moved away:", exc)
    usage = fs.usage()
    print(f"usage: {usage.total_size} bytes in {usage.file_count} files, {usage.directory_count} directories")
    fs.delete_recursive("archive")

    # fsck: orphaned chunks, files with missing chunks, duplicate directory markers.
    report = fs.fsck()
    print("fsck clean:", report.clean)


def through_fsspec(uri: str, database: str) -> None:
    """The same files through fsspec (protocol gridfs): what pandas or pyarrow would use."""
    gfs = fsspec.filesystem("gridfs", uri=uri, database=database, skip_instance_cache=True)
    print("fsspec ls:", gfs.ls("workspace/c-1", detail=False))
    with gfs.open("workspace/c-1/data/samples.csv", "rb") as f:
        print("fsspec read:", f.readline().decode().strip())


def main() -> None:
    database = f"aimon_example_{uuid.uuid4().hex[:8]}"
    with mongodb_or_standin() as (uri, server):
        print(f"MongoDB: {'local stand-in' if server else uri_source()}; database {database}")
        client: MongoClient[dict[str, object]] = MongoClient(uri, tz_aware=True)
        try:
            with GridFSFileSystem(client, database) as fs:
                walkthrough(fs)
                through_fsspec(uri, database)
        finally:
            client.drop_database(database)
            client.close()


if __name__ == "__main__":
    main()
