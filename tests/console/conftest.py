"""Console fixtures: a store with real data on the MongoDB stand-in, the console app over it (in-process
through Starlette's test client, or served by uvicorn on a loopback port for the browser)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from bson import ObjectId
from pymongo import MongoClient
from starlette.testclient import TestClient

from aimon_mongo.codec.inbound import to_mongo_document
from aimon_mongo.console import ConsoleData, ConsoleSettings, create_app
from aimon_mongo.console import server as console_server
from aimon_mongo.demo import transcript as demo
from aimon_mongo.model import Priority, TaskState
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema
from aimon_mongo.snapshots import Message, Role, SessionSnapshot, VfsSessionSnapshotStore
from aimon_mongo.standin import free_port
from aimon_mongo.vfs import GridFSFileSystem
from tests.backend_seed import message, put_tasks

XSS = '<script>alert("pwned")</script><img src=x onerror=alert(1)>'
XSS_FILE = "workspace/c-1/<img src=x onerror=alert(1)>.md"
XSS_TASK = "c-9-turn-1"


@dataclass(frozen=True)
class Seeded:
    """What the seeded store holds (ids the tests look for)."""

    db_name: str
    quarantine_id: str
    lease_token: int


def seed(client: MongoClient[dict[str, Any]], db_name: str) -> Seeded:
    """Real data through the public stores: waiting entries at each priority, a held lease, one
    quarantined entry (an entry whose instant is text, collected), files, two snapshots, tasks."""
    db = client[db_name]
    ensure_schema(db)
    node_a = MongoSessionBackends(db, "node-a")
    node_b = MongoSessionBackends(db, "node-b")
    fs = GridFSFileSystem(client, db_name)
    fs.initialize()
    try:
        bad = to_mongo_document(message(demo.SESSION_ID, "needs a fix", Priority.NEXT), ObjectId())
        db["conversation_inbox"].insert_one({**bad, "payload": {**bad["payload"], "deliveredAt": "yesterday"}})
        batch = node_b.inbox.collect(demo.SESSION_ID)
        assert batch.messages == () and len(batch.unreadable) == 1
        for text, priority in (("first NOW", Priority.NOW), ("a NEXT", Priority.NEXT), ("a LATER", Priority.LATER)):
            node_a.inbox.deliver(message(demo.SESSION_ID, text, priority))
        node_a.inbox.deliver(message("c-2", "other session", Priority.LATER))
        lease = node_b.leases.try_acquire(demo.SESSION_ID, "node-b", timedelta(minutes=10))
        assert lease is not None
        for path, data in demo.agent_files().items():
            fs.write(path, data)
        fs.write(XSS_FILE, f"# {XSS}\n".encode())
        store = VfsSessionSnapshotStore(fs)
        store.save(demo.TASK_ID, demo.SUBAGENT, demo.CONTEXT_ID, demo.turn_transcript())
        hostile = SessionSnapshot.of_messages("c-9", [Message.text(Role.USER, XSS), Message.text(Role.ASSISTANT, "ok")])
        store.save(XSS_TASK, "analyst", "agent:analyst:c-9", hostile)
        put_tasks(node_b, demo.CONTEXT_ID, ((demo.TASK_ID, TaskState.COMPLETED), ("c-2-turn-1", TaskState.RUNNING)))
        quarantined = node_a.inbox.list_quarantined(demo.SESSION_ID)
        return Seeded(db_name, quarantined[0].id, lease.fencing_token)
    finally:
        node_a.close()
        node_b.close()
        fs.close()


@pytest.fixture
def seeded(mongo_client: MongoClient[dict[str, Any]], mongo_db_name: str) -> Seeded:
    return seed(mongo_client, mongo_db_name)


@pytest.fixture
def console_data(mongo_uri: str, seeded: Seeded) -> Iterator[ConsoleData]:
    data = ConsoleData(uri=mongo_uri, session_db=seeded.db_name, vfs_db=seeded.db_name)
    yield data
    data.close()


AppClient = Callable[..., TestClient]


@pytest.fixture
def app_client(console_data: ConsoleData) -> AppClient:
    """A test client of the console with these settings (base URL on loopback, like a local browser)."""

    def make(**settings: Any) -> TestClient:
        app = create_app(console_data, ConsoleSettings(**settings))
        return TestClient(app, base_url="http://127.0.0.1:8008", raise_server_exceptions=False)

    return make


class Running:
    """A console served by uvicorn on a thread (:func:`running`)."""

    def __init__(self, data: ConsoleData, settings: ConsoleSettings) -> None:
        self.server = console_server(data, settings)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def stop(self, within: float = 10.0) -> bool:
        """What Ctrl-C does; True when the server ended within ``within`` seconds."""
        self.server.should_exit = True
        self.thread.join(within)
        return not self.thread.is_alive()


@contextlib.contextmanager
def running(data: ConsoleData, settings: ConsoleSettings) -> Iterator[Running]:
    """The console started on its port (waits until it listens); stopped afterwards."""
    console = Running(data, settings)
    console.thread.start()
    deadline = time.monotonic() + 20
    while not console.server.started:
        assert time.monotonic() < deadline, "the console did not start"
        time.sleep(0.05)
    try:
        yield console
    finally:
        console.stop()


@pytest.fixture
def served(console_data: ConsoleData) -> Iterator[str]:
    """The console with writes allowed, served by uvicorn on a loopback port; yields its base URL."""
    settings = ConsoleSettings(bind_port=free_port(), allow_writes=True)
    with running(console_data, settings) as console:
        yield f"http://127.0.0.1:{settings.bind_port}"
        assert console.stop(), "the console did not stop within 10 s"
