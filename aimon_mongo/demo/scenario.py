"""The demo scenario: two nodes share conversation ``c-1`` through one MongoDB database.

node-a delivers a text and a multimodal message; node-b takes the lease, collects the messages in
priority order, writes the agent's files into the filesystem, records the transcript with a fenced write,
saves a snapshot tagged with its context id and publishes TURN_RESULT, which node-a receives. node-b's
lease then expires, node-a takes over with a higher fencing token, and node-b's late fenced write is
refused. Every step is reported to a :class:`Narrator`; the result is a JSON-ready summary.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from typing import Any, Protocol

from pymongo import MongoClient

from aimon_mongo import names as n
from aimon_mongo.clock import system_clock
from aimon_mongo.demo import transcript as t
from aimon_mongo.errors import AimonStorageError, StaleFencingTokenError
from aimon_mongo.model import (
    BackgroundTask,
    InboundMessage,
    Lease,
    Principal,
    Priority,
    SessionSignal,
    SignalKind,
    TaskState,
    UserInput,
)
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema
from aimon_mongo.snapshots import (
    DEFAULT_SNAPSHOT_BASE_DIR,
    JsonSessionSnapshotCodec,
    SessionSnapshot,
    VfsSessionSnapshotStore,
    render_lines,
)
from aimon_mongo.vfs import GridFSFileSystem

NODE_A = "node-a"
NODE_B = "node-b"
LEASE_TTL = timedelta(seconds=3)
"""node-b's lease: long enough that node-a's attempt right after it is refused, short enough to wait out."""
WAIT = 20.0
"""Seconds to wait for the signal and for node-b's lease to run out before the demo gives up."""


class DemoError(AimonStorageError):
    """A step of the demo did not behave as the scenario expects (the message says which)."""


class Narrator(Protocol):
    """Where the steps are told (a Rich console, or nothing for ``--json``)."""

    def step(self, title: str) -> None: ...

    def detail(self, text: str, style: str = "") -> None: ...

    def tree(self, fs: GridFSFileSystem, root: str) -> None: ...

    def transcript(self, task_id: str, subagent: str, context_id: str | None, snapshot: SessionSnapshot) -> None: ...


def _kind(user_input: UserInput) -> str:
    return user_input.type


def _lease_json(lease: Lease) -> dict[str, Any]:
    return {"holder_id": lease.holder_id, "fencing_token": lease.fencing_token, "expires_at": lease.expires_at}


def _message(user_input: UserInput, priority: Priority, turn: str) -> InboundMessage:
    return InboundMessage(
        session_id=t.SESSION_ID,
        agent_ref=t.SUBAGENT,
        user_input=user_input,
        priority=priority,
        turn_id=turn,
        initiator=Principal.user("alice", "Alice"),
        delivered_at=system_clock(),
        metadata={"channel": "demo"},
    )


def _acquire_when_free(node: MongoSessionBackends, holder: str, ttl: timedelta) -> Lease:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        lease = node.leases.try_acquire(t.SESSION_ID, holder, ttl)
        if lease is not None:
            return lease
        time.sleep(0.1)
    raise DemoError(f"{holder} could not take the lease of {t.SESSION_ID} within {WAIT:.0f} s")


def run_scenario(
    client: MongoClient[dict[str, Any]], database: str, say: Narrator, vfs_database: str | None = None
) -> dict[str, Any]:
    """Run every step: the session stores on ``database``, the files on ``vfs_database`` (default: the same
    database); both fresh, or at least without a previous run (see :func:`previous_run`). Returns the
    machine summary."""
    db = client[database]
    ensure_schema(db)
    node_a = MongoSessionBackends(db, NODE_A)
    node_b = MongoSessionBackends(db, NODE_B)
    fs = GridFSFileSystem(client, vfs_database or database)
    fs.initialize()
    try:
        return _steps(node_a, node_b, fs, say)
    finally:
        node_a.close()
        node_b.close()
        fs.close()


def previous_run(client: MongoClient[dict[str, Any]], database: str) -> bool:
    """True when ``database`` already holds the lease record of the demo's session (a second run there
    would start at other fencing tokens than the scenario tells)."""
    return client[database][n.MONGO_LOCKS].find_one({n.F_ID: t.SESSION_ID}, {n.F_ID: 1}) is not None


def holds_demo(client: MongoClient[dict[str, Any]], database: str) -> bool:
    """True when ``database`` holds what a demo run stores: the lease record of its session (the session
    stores' database) or its transcript snapshot in the default GridFS bucket (the files' database)."""
    if previous_run(client, database):
        return True
    files = client[database][f"{n.DEFAULT_GRIDFS_BUCKET}.{n.GRIDFS_FILES_SUFFIX}"]
    snapshot = f"{DEFAULT_SNAPSHOT_BASE_DIR}/{t.TASK_ID}.json"
    return files.find_one({n.GRIDFS_FILENAME: snapshot}, {n.F_ID: 1}) is not None


def drop_demo(client: MongoClient[dict[str, Any]], databases: list[str]) -> None:
    """Drop the databases of a demo run; refuses (:class:`DemoError`, nothing dropped) when one of them
    holds no demo run, so a mistyped name never drops an application's data."""
    strangers = [name for name in databases if not holds_demo(client, name)]
    if strangers:
        raise DemoError(
            f"database {strangers[0]!r} holds no demo run (no lease of {t.SESSION_ID}, no "
            f"{DEFAULT_SNAPSHOT_BASE_DIR}/{t.TASK_ID}.json): nothing was dropped"
        )
    for name in databases:
        client.drop_database(name)


def _steps(
    node_a: MongoSessionBackends, node_b: MongoSessionBackends, fs: GridFSFileSystem, say: Narrator
) -> dict[str, Any]:
    summary: dict[str, Any] = {"session_id": t.SESSION_ID}
    received: list[SessionSignal] = []
    arrived = threading.Event()

    def on_signal(signal: SessionSignal) -> None:
        if signal.kind is SignalKind.TURN_RESULT:
            received.append(signal)
            arrived.set()

    subscription = node_a.signals.subscribe(t.SESSION_ID, on_signal)

    say.step(f"{NODE_A} delivers two messages to conversation {t.SESSION_ID}")
    delivered = []
    for user_input, priority, turn in (
        (t.text_input(), Priority.NEXT, "turn-text"),
        (t.multimodal_input(), Priority.NOW, "turn-chart"),
    ):
        entry_id = node_a.inbox.deliver(_message(user_input, priority, turn))
        delivered.append({"id": entry_id, "kind": _kind(user_input), "priority": priority.name})
        say.detail(f"{_kind(user_input):<10} priority {priority.name:<5} {user_input.as_text()}  (entry {entry_id})")
    summary["delivered"] = delivered

    say.step(f"{NODE_B} acquires the lease on {t.SESSION_ID}")
    lease_b = node_b.leases.try_acquire(t.SESSION_ID, NODE_B, LEASE_TTL)
    if lease_b is None:
        raise DemoError(f"{NODE_B} could not acquire the fresh lease of {t.SESSION_ID}")
    summary["lease_b"] = _lease_json(lease_b)
    say.detail(
        f"fencing token {lease_b.fencing_token}, expires in {LEASE_TTL.total_seconds():.1f} s (server time)",
        "bold green",
    )
    blocked = node_a.leases.try_acquire(t.SESSION_ID, NODE_A, LEASE_TTL)
    summary["lease_a_refused_while_held"] = blocked is None
    say.detail(f"{NODE_A} tries too: {'refused, the lease is held' if blocked is None else 'acquired (unexpected)'}")

    say.step(f"{NODE_B} collects the inbox in priority order")
    batch = node_b.inbox.collect(t.SESSION_ID)
    collected = [
        {"id": m.id, "kind": _kind(m.user_input), "priority": m.priority.name, "turn_id": m.turn_id}
        for m in batch.messages
    ]
    summary["collected"] = collected
    for item in collected:
        say.detail(f"{item['priority']:<5} {item['kind']:<10} entry {item['id']}")
    if [c["priority"] for c in collected] != ["NOW", "NEXT"] or batch.unreadable:
        raise DemoError(f"collect returned {collected} (expected NOW, then NEXT)")

    say.step(f"{NODE_B}'s agent writes its files into the filesystem ({fs.working_directory})")
    files = []
    for path, data in t.agent_files().items():
        info = fs.write(path, data)
        files.append({"path": info.path, "size": info.size, "etag": info.etag})
        say.detail(f"{info.path}  {info.size} bytes  {info.etag}")
    summary["files"] = files

    say.step(f"{NODE_B} records the transcript with a fenced write (token {lease_b.fencing_token})")
    snapshot = t.turn_transcript()
    encoded = JsonSessionSnapshotCodec().encode(snapshot)
    node_b.records.provision(t.SESSION_ID, t.SUBAGENT, lease_b.fencing_token)
    node_b.records.merge_transcript(t.SESSION_ID, encoded, lease_b.fencing_token)
    say.detail("accepted", "green")

    say.step(f"{NODE_B} saves a transcript snapshot tagged with its context id")
    store = VfsSessionSnapshotStore(fs)
    store.save(t.TASK_ID, t.SUBAGENT, t.CONTEXT_ID, snapshot)
    entries = [e for e in store.list_snapshots() if e.task_id == t.TASK_ID]
    if not entries or entries[0].context_id != t.CONTEXT_ID:
        raise DemoError(f"the snapshot of task {t.TASK_ID} was not stored")
    summary["snapshot"] = {
        "task_id": t.TASK_ID,
        "context_id": t.CONTEXT_ID,
        "path": store.path_of(t.TASK_ID),
        "message_count": entries[0].message_count,
        "size": entries[0].size,
    }
    say.detail(f"task {t.TASK_ID} -> {store.path_of(t.TASK_ID)}  context {t.CONTEXT_ID}")
    now = system_clock()
    node_b.tasks.put(
        BackgroundTask(
            task_id=t.TASK_ID,
            subagent_name=t.SUBAGENT,
            state=TaskState.RUNNING,
            start_time=now,
            description="summarise the chart",
            owner=Principal.user("alice", "Alice"),
            agent_runtime_id=t.CONTEXT_ID,
            last_heartbeat=now,
        )
    )
    node_b.tasks.transition(t.TASK_ID, TaskState.COMPLETED)

    say.step(f"{NODE_B} publishes TURN_RESULT; {NODE_A} receives it")
    payload: dict[str, Any] = {"taskId": t.TASK_ID, "status": "COMPLETED", "files": len(files)}
    node_b.signals.publish(
        SessionSignal(session_id=t.SESSION_ID, kind=SignalKind.TURN_RESULT, origin_node_id=NODE_B, payload=payload)
    )
    if not arrived.wait(WAIT):
        raise DemoError(f"{NODE_A} did not receive the TURN_RESULT signal within {WAIT:.0f} s")
    signal = received[0]
    summary["signal"] = {
        "kind": signal.kind.value,
        "received_by": NODE_A,
        "origin_node_id": signal.origin_node_id,
        "payload": signal.payload,
    }
    say.detail(f"{NODE_A} got {signal.kind.value} from {signal.origin_node_id}: {json.dumps(signal.payload)}", "green")
    subscription.unsubscribe()

    say.step(f"{NODE_B}'s lease expires (it stopped renewing); {NODE_A} takes over")
    lease_a = _acquire_when_free(node_a, NODE_A, timedelta(seconds=30))
    summary["lease_a"] = _lease_json(lease_a)
    summary["token_increased"] = lease_a.fencing_token > lease_b.fencing_token
    say.detail(
        f"{NODE_A} holds {t.SESSION_ID} with fencing token {lease_a.fencing_token} (was {lease_b.fencing_token})",
        "bold green",
    )
    node_a.records.merge_transcript(t.SESSION_ID, encoded, lease_a.fencing_token)
    say.detail(f"{NODE_A}'s fenced write with token {lease_a.fencing_token}: accepted", "green")

    say.step(f"{NODE_B} wakes up late and writes with its old token {lease_b.fencing_token}")
    try:
        node_b.records.merge_transcript(t.SESSION_ID, encoded + " ", lease_b.fencing_token)
    except StaleFencingTokenError as exc:
        summary["stale_write"] = {
            "holder_id": NODE_B,
            "fencing_token": lease_b.fencing_token,
            "refused": True,
            "error": type(exc).__name__,
            "message": str(exc),
        }
        say.detail(f"refused: {type(exc).__name__}: {exc}", "bold red")
    else:
        raise DemoError(f"{NODE_B}'s stale write with token {lease_b.fencing_token} was accepted")
    record = node_a.records.load(t.SESSION_ID)
    summary["record_transcript_intact"] = record is not None and record.transcript == encoded
    node_a.leases.release(lease_a)

    say.step(f"the filesystem after the turn ({fs.working_directory})")
    summary["tree"] = [info.path for info in fs.walk(".")]
    say.tree(fs, ".")

    say.step(f"the saved snapshot of task {t.TASK_ID}")
    loaded = store.load(t.TASK_ID)
    if loaded is None:
        raise DemoError(f"the snapshot of task {t.TASK_ID} could not be loaded")
    lines = [{"kind": line.kind.value, "text": line.text} for line in render_lines(loaded.snapshot)]
    summary["transcript"] = lines
    say.transcript(t.TASK_ID, loaded.subagent_name, loaded.agent_runtime_id, loaded.snapshot)
    return summary
