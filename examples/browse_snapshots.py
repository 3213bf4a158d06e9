#!/usr/bin/env python3
"""Browse stored transcript snapshots: list them (without decoding), then render each transcript.

    pip install aimon-mongo                              # extras: none
    python examples/browse_snapshots.py                  # sample snapshots in a fresh database
    python examples/browse_snapshots.py --db aimon       # browse an existing filesystem database
    python examples/browse_snapshots.py --context agent:analyst:c-1

Runs against AIMON_MONGODB_URI, else MONGODB_URI, or starts the local MongoDB stand-in for the run. Without
--db it saves two sample transcripts into a fresh database (dropped at the end) so there is something to browse.
"""

from __future__ import annotations

import argparse
import uuid

from pymongo import MongoClient

from aimon_mongo.connection import uri_source
from aimon_mongo.model import TextInput
from aimon_mongo.snapshots import (
    Message,
    RewindPoint,
    Role,
    SessionSnapshot,
    TextBlock,
    ToolResult,
    ToolUse,
    VfsSessionSnapshotStore,
    render,
)
from aimon_mongo.standin import mongodb_or_standin
from aimon_mongo.vfs import GridFSFileSystem


def save_samples(store: VfsSessionSnapshotStore) -> None:
    """Two small transcripts, tagged with the agent runtime ids of their sub-agents."""
    question = "How many files are in the workspace?"
    research = SessionSnapshot.of_messages(
        "c-1",
        [
            Message(role=Role.USER, content=(TextBlock(text=question),)),
            Message(role=Role.ASSISTANT, tool_uses=(ToolUse(id="call-1", name="list_files", input={"dir": "."}),)),
            Message(role=Role.TOOL, tool_results=(ToolResult(tool_use_id="call-1", content="3 files"),)),
            Message(role=Role.ASSISTANT, content=(TextBlock(text="There are 3 files."),)),
        ],
        system_prompt="You answer questions about the workspace.",
        rewind_point=RewindPoint(seq=0, user_input=TextInput(text=question)),
    )
    store.save("task-research-1", "researcher", "agent:researcher:c-1", research)
    review = SessionSnapshot.of_messages("c-2", [Message(role=Role.USER, content=(TextBlock(text="Review it."),))])
    store.save("task-review-1", "reviewer", "agent:reviewer", review)


def browse(store: VfsSessionSnapshotStore, context: str | None) -> None:
    entries = [e for e in store.list_snapshots() if context is None or e.context_id == context]
    print(f"{len(entries)} snapshot(s) in {store.fs.working_directory}/{store.base_dir}/")
    for entry in entries:
        problem = f"  PROBLEM: {entry.problem}" if entry.problem else ""
        print(
            f"- {entry.task_id}: subagent={entry.subagent_name} context={entry.context_id} "
            f"messages={entry.message_count} v{entry.format_version} {entry.size} bytes "
            f"modified {entry.modified:%Y-%m-%d %H:%M:%S}{problem}"
        )
    for entry in entries:
        loaded = store.load(entry.task_id)  # None for anything that cannot be resumed
        print(f"\n=== {entry.task_id} ===")
        print(render(loaded.snapshot) if loaded is not None else "(cannot be loaded; see the problem above)", end="")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="existing filesystem database to browse (default: samples in a fresh one)")
    parser.add_argument("--context", help="only snapshots tagged with this agent runtime id")
    args = parser.parse_args()
    database = args.db or f"aimon_example_{uuid.uuid4().hex[:8]}"
    with mongodb_or_standin() as (uri, server):
        print(f"MongoDB: {'local stand-in' if server else uri_source()}; database {database}")
        client: MongoClient[dict[str, object]] = MongoClient(uri, tz_aware=True)
        try:
            with GridFSFileSystem(client, database) as fs:
                store = VfsSessionSnapshotStore(fs)
                if args.db is None:
                    save_samples(store)
                browse(store, args.context)
        finally:
            if args.db is None:
                client.drop_database(database)
            client.close()


if __name__ == "__main__":
    main()
