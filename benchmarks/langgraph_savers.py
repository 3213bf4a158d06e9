"""LangGraph checkpointer benchmark: our MongoDB saver against ``langgraph-checkpoint-mongodb``'s
``MongoDBSaver`` on the same server, driven by the same graph.

    python benchmarks/langgraph_savers.py           # 30-step small state, 6-step 5 MB state, a 20 MB state (minutes)
    python benchmarks/langgraph_savers.py --smoke   # tiny sizes, seconds

A real ``StateGraph`` (plain Python nodes: a counter and a short message per step, plus for the large case a
document channel written once) runs once on LangGraph's ``InMemorySaver`` while every ``put`` it makes is
recorded. Each side then replays exactly those puts on its own saver, each followed by ``get_tuple`` of the
new checkpoint, on a fresh thread per round: put+get_tuple per second, sync savers on both sides (the
peer's async methods run its sync ones in a thread pool). Stored bytes per step are the BSON sizes of
everything each saver wrote (documents, plus GridFS files and chunks for ours) divided by the steps. The
20 MB case puts one 20 MB state on both: the peer refuses it (one BSON document per checkpoint, 16 MiB
limit), ours stores it and reads it back (checked, not timed). Ratios: ours / peer (rates), peer / ours
(bytes). Targets: >= 1.0x small, >= 3.0x large.
"""

from __future__ import annotations

import argparse
import operator
import os
import sys
import uuid
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from _timing import SHARED_STANDIN, Report, Result, main, rounds  # benchmarks/_timing.py (run as a script)
from bson.errors import InvalidDocument
from bson.raw_bson import RawBSONDocument
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.mongodb import MongoDBSaver
from langgraph.graph import END, START, StateGraph
from pymongo import MongoClient
from pymongo.errors import DocumentTooLarge

from aimon_mongo.langgraph import AimonCheckpointSaver
from aimon_mongo.mongo import ensure_schema
from aimon_mongo.standin import StandinServer, configured_uri

TITLE = "langgraph"
CASES = (
    "small state: put+get_tuple vs MongoDBSaver",
    "5 MB state, one small channel changing: put+get_tuple vs MongoDBSaver",
    "small state: stored bytes per step vs MongoDBSaver",
    "5 MB state: stored bytes per step vs MongoDBSaver",
)
MIB = 1024 * 1024


class State(TypedDict):
    counter: int
    messages: Annotated[list[str], operator.add]
    document: bytes


class Recorder(InMemorySaver):
    """InMemorySaver that remembers every put (config, checkpoint, metadata, new_versions)."""

    def __init__(self) -> None:
        super().__init__()
        self.puts: list[tuple[Any, Any, Any, Any]] = []

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        self.puts.append((config, checkpoint, metadata, new_versions))
        return super().put(config, checkpoint, metadata, new_versions)


def recorded_puts(steps: int, document_bytes: int) -> list[tuple[Any, Any, Any, Any]]:
    """The puts a real graph makes: ``steps`` loop steps; the document channel set once at the start."""

    def load(state: State) -> dict[str, Any]:
        return {"document": os.urandom(document_bytes), "counter": 0}

    def work(state: State) -> dict[str, Any]:
        return {"counter": state["counter"] + 1, "messages": [f"step {state['counter'] + 1}"]}

    def route(state: State) -> str:
        return "work" if state["counter"] < steps else END

    graph = StateGraph(State)
    graph.add_node("load", load)
    graph.add_node("work", work)
    graph.add_edge(START, "load")
    graph.add_edge("load", "work")
    graph.add_conditional_edges("work", route)
    recorder = Recorder()
    graph.compile(checkpointer=recorder).invoke(
        {"counter": 0, "messages": []}, {"configurable": {"thread_id": "rec"}, "recursion_limit": steps + 10}
    )
    return recorder.puts


def replay(saver: Any, puts: list[tuple[Any, Any, Any, Any]]) -> Callable[[], float]:
    """One side: replay ``puts`` on a fresh thread, each put followed by get_tuple of what it stored."""

    def side() -> float:
        thread = uuid.uuid4().hex
        for config, checkpoint, metadata, new_versions in puts:
            conf = {"configurable": {**config["configurable"], "thread_id": thread}}
            stored = saver.put(conf, checkpoint, metadata, new_versions)
            if saver.get_tuple(stored) is None:
                raise RuntimeError("a stored checkpoint did not read back")
        return float(len(puts))

    return side


def stored_bytes(client: MongoClient[Any], database: str, collections: tuple[str, ...]) -> int:
    raw = client.get_database(database, codec_options=client.codec_options.with_options(document_class=RawBSONDocument))
    return sum(len(doc.raw) for name in collections for doc in raw[name].find())


def run_case(
    client: MongoClient[Any], label: str, steps: int, document_bytes: int, repeats: int, target: float
) -> list[Result]:
    puts = recorded_puts(steps, document_bytes)
    ours_db, peer_db = f"bench_lg_{uuid.uuid4().hex[:8]}", f"bench_lg_peer_{uuid.uuid4().hex[:8]}"
    ensure_schema(client[ours_db])
    ours = AimonCheckpointSaver(client[ours_db])
    peer = MongoDBSaver(client, db_name=peer_db)
    ours_cols = ("langgraph_checkpoints", "langgraph_values.files", "langgraph_values.chunks")
    peer_cols = ("checkpoints", "checkpoint_writes")
    try:
        ours_bytes = stored_bytes_of_one_run(client, ours, ours_db, ours_cols, puts)
        peer_bytes = stored_bytes_of_one_run(client, peer, peer_db, peer_cols, puts)

        def tidy() -> None:  # both start every round from empty collections (the stand-in scans)
            for db, names in ((ours_db, ours_cols), (peer_db, peer_cols)):
                for name in names:
                    client[db][name].delete_many({})

        samples = rounds({"ours": replay(ours, puts), "peer": replay(peer, puts)}, repeats, tidy=tidy)
        note = f"{len(puts)} puts per round (a {steps}-step graph), document {document_bytes:,} B"
        return [
            Result.timed(TITLE, CASES[0 if label == "small" else 1], samples["ours"], samples["peer"],
                         unit="put+get_tuple/s", target=target, note=note),
            Result(TITLE, CASES[2 if label == "small" else 3], "bytes/step", (ours_bytes / len(puts),) * repeats,
                   (peer_bytes / len(puts),) * repeats, higher_is_better=False,
                   note=f"ours {ours_bytes:,} B, MongoDBSaver {peer_bytes:,} B for {len(puts)} steps"),
        ]  # fmt: skip
    finally:
        client.drop_database(ours_db)
        client.drop_database(peer_db)


def stored_bytes_of_one_run(
    client: MongoClient[Any], saver: Any, database: str, collections: tuple[str, ...], puts: list[Any]
) -> int:
    replay(saver, puts)()
    size = stored_bytes(client, database, collections)
    for name in collections:
        client[database][name].delete_many({})
    return size


def beyond_the_document_limit(client: MongoClient[Any], size: int) -> str:
    """A ``size``-byte state: the peer refuses it, ours stores it and reads it back (checked)."""
    puts = recorded_puts(1, size)
    config, checkpoint, metadata, new_versions = next(p for p in puts if "document" in p[3])
    ours_db, peer_db = f"bench_lg_{uuid.uuid4().hex[:8]}", f"bench_lg_peer_{uuid.uuid4().hex[:8]}"
    ensure_schema(client[ours_db])
    try:
        peer = MongoDBSaver(client, db_name=peer_db)
        try:
            peer.put(config, checkpoint, metadata, new_versions)
            raise RuntimeError(f"MongoDBSaver stored a {size:,} B state; the comparison needs a refused one")
        except (DocumentTooLarge, InvalidDocument) as exc:
            refused = type(exc).__name__
        ours = AimonCheckpointSaver(client[ours_db], value_cache_bytes=0)
        stored = ours.put(config, checkpoint, metadata, new_versions)
        back = AimonCheckpointSaver(client[ours_db], value_cache_bytes=0).get_tuple(stored)
        if back is None or back.checkpoint["channel_values"]["document"] != checkpoint["channel_values"]["document"]:
            raise RuntimeError("our saver did not read the large state back intact")
        return f"{size / MIB:.0f} MiB state: MongoDBSaver refused it ({refused}); ours stored it and read it back"
    finally:
        client.drop_database(ours_db)
        client.drop_database(peer_db)


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--steps", type=int, default=30, help="graph steps of the small case (default 30)")


def measure(args: argparse.Namespace) -> Report:
    small_steps, large_steps, large, limit = (3, 2, MIB, 17 * MIB) if args.smoke else (args.steps, 6, 5 * MIB, 20 * MIB)
    server = None
    uri = configured_uri()
    if uri is None:
        server = StandinServer("mongoeco")
        uri = server.start()
    client: MongoClient[Any] = MongoClient(uri, tz_aware=True)
    try:
        results = run_case(client, "small", small_steps, 64, args.repeats, 1.0)
        results += run_case(client, "large", large_steps, large, args.repeats, 3.0)
        refusal = beyond_the_document_limit(client, limit)
    finally:
        client.close()
        if server is not None:
            server.stop()
    where = "MONGODB_URI" if server is None and not os.environ.get(SHARED_STANDIN) else "mongoeco stand-in"
    return Report(results, {"LangGraph savers' server": where, "Beyond 16 MiB": refusal})


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, options, repeats=5))
