"""Issue 14 ("the first hour") in the library: schema check, from_uri, the text constructor, error wording,
init.js as package data, the schema gate outside a checkout, the stand-in's own command, the pytest plugin
and what mongomock can and cannot do with the library."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pymongo import AsyncMongoClient, MongoClient, monitoring
from pymongo.errors import InvalidOperation
from pymongo.synchronous.database import Database

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model import InboundMessage, Principal, PrincipalType, Priority, SessionSignal, SignalKind
from aimon_mongo.mongo import AsyncMongoSessionBackends, MongoSessionBackends
from aimon_mongo.mongo.schema_check import VERIFIED
from aimon_mongo.standin import free_port

ROOT = Path(__file__).resolve().parents[2]


class _Commands(monitoring.CommandListener):
    def __init__(self) -> None:
        self.names: list[str] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        self.names.append(event.command_name)

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def _signal() -> SessionSignal:
    return SessionSignal(session_id="c-1", kind=SignalKind.STATUS, origin_node_id="node-1")


# --- 5: the schema is checked once, before the first write ------------------------------------------


def test_missing_schema_is_reported_once_with_the_fix_and_signals_stay_capped(
    mongo_db: Database[dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    node = MongoSessionBackends(mongo_db, "node-1")
    with caplog.at_level(logging.WARNING, logger="aimon_mongo"):
        node.signals.publish(_signal())  # the first write: without the check it would create it uncapped
        node.inbox.deliver(InboundMessage.text("c-1", "hi", agent_ref="a"))
        node.leases.try_acquire("c-1", "node-1", timedelta(seconds=5))
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    lacking = [w for w in warnings if "lacks part of the session schema" in w]
    assert len(lacking) == 1, warnings
    assert "collection conversation_inbox" in lacking[0] and "ensure_schema" in lacking[0] and "init-db" in lacking[0]
    assert "hi" not in " ".join(warnings)  # never a payload
    options = {c["name"]: c.get("options", {}) for c in mongo_db.list_collections()}
    assert options["conversation_signals"].get("capped") is True
    node.close()


def test_ensure_schema_true_creates_it_before_the_first_write(
    mongo_db: Database[dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    from aimon_mongo.mongo.schema import session_schema

    node = MongoSessionBackends(mongo_db, "node-1", ensure_schema=True)
    assert mongo_db.list_collection_names() == []  # nothing at construction
    with caplog.at_level(logging.WARNING, logger="aimon_mongo"):
        node.signals.publish(_signal())
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    for spec in session_schema():
        assert {i.name for i in spec.indexes} <= {i["name"] for i in mongo_db[spec.name].list_indexes()}, spec.name
    node.close()


def test_a_complete_schema_is_checked_once_per_client_and_database(mongo_uri: str, mongo_db_name: str) -> None:
    listener = _Commands()
    client: MongoClient[dict[str, Any]] = MongoClient(mongo_uri, event_listeners=[listener], tz_aware=True)
    try:
        MongoSessionBackends(client[mongo_db_name], "setup", ensure_schema=True).signals.publish(_signal())
        listener.names.clear()
        for node_id in ("node-a", "node-b"):
            node = MongoSessionBackends(client[mongo_db_name], node_id)
            node.signals.publish(_signal())
            node.signals.publish(_signal())
            node.close()
        assert listener.names.count("insert") == 4
        assert "listCollections" not in listener.names and "listIndexes" not in listener.names
    finally:
        VERIFIED.forget(client)
        client.close()


async def test_the_async_bundle_checks_too(async_mongo_db: Any, caplog: pytest.LogCaptureFixture) -> None:
    node = AsyncMongoSessionBackends(async_mongo_db, "node-1")
    with caplog.at_level(logging.WARNING, logger="aimon_mongo"):
        await node.signals.publish(_signal())
    assert any("lacks part of the session schema" in r.getMessage() for r in caplog.records)
    listed = await (await async_mongo_db.list_collections()).to_list(None)
    assert {c["name"]: c.get("options", {}) for c in listed}["conversation_signals"].get("capped") is True
    await node.close()


# --- 11: from_uri, the text constructor --------------------------------------------------------------


def test_from_uri_resolves_the_environment_owns_and_closes_its_client(
    monkeypatch: pytest.MonkeyPatch, mongo_uri: str, mongo_client: MongoClient[Any]
) -> None:
    monkeypatch.setenv("AIMON_MONGODB_URI", mongo_uri)
    monkeypatch.setenv("MONGODB_URI", f"mongodb://127.0.0.1:{free_port()}")  # loses to AIMON_MONGODB_URI
    node = MongoSessionBackends.from_uri(node_id="node-1", database="t_from_uri_sync", ensure_schema=True)
    try:
        assert node.database.name == "t_from_uri_sync"
        assert node.leases.try_acquire("c-1", "node-1", timedelta(seconds=5)) is not None
        client = node.database.client
    finally:
        node.close()
        mongo_client.drop_database("t_from_uri_sync")
    with pytest.raises(InvalidOperation):
        client.admin.command("ping")  # closed with the bundle
    assert MongoSessionBackends.from_uri(node_id="n").database.name == "aimon_session"  # the default, no I/O
    with pytest.raises(InvalidArgumentError, match="node_id"):
        MongoSessionBackends.from_uri(mongo_uri, node_id="")


async def test_async_from_uri(mongo_uri: str) -> None:
    node = AsyncMongoSessionBackends.from_uri(mongo_uri, node_id="node-1", database="t_from_uri_async")
    client: AsyncMongoClient[Any] = node.database.client
    try:
        await node.inbox.deliver(InboundMessage.text("c-1", "hello", agent_ref="a"))
        batch = await node.inbox.collect("c-1")
        assert [m.user_input.as_text() for m in batch.messages] == ["hello"]
        await client.drop_database("t_from_uri_async")
    finally:
        await node.close()
    with pytest.raises(InvalidOperation):
        await client.admin.command("ping")


def test_from_uri_waits_a_bounded_time_and_says_so_in_one_short_line() -> None:
    node = MongoSessionBackends.from_uri(
        f"mongodb://127.0.0.1:{free_port()}", node_id="n", client_options={"serverSelectionTimeoutMS": 300}
    )
    try:
        with pytest.raises(Exception, match="MongoDB unreachable during") as caught:
            node.leases.try_acquire("c-1", "n", timedelta(seconds=5))
        text = str(caught.value)
        assert "no server answered within 0.3s" in text and "Topology" not in text and len(text) < 300
    finally:
        node.close()
    from aimon_mongo._sync.mongo.connect import DEFAULT_SERVER_SELECTION_TIMEOUT_MS, client_for

    assert client_for("mongodb://h")._options.server_selection_timeout == DEFAULT_SERVER_SELECTION_TIMEOUT_MS / 1000
    assert client_for("mongodb://h/?serverSelectionTimeoutMS=1234")._options.server_selection_timeout == 1.234


def test_text_message_defaults() -> None:
    before = datetime.now(UTC)
    message = InboundMessage.text("c-1", "hi", agent_ref="assistant")
    assert message.user_input.as_text() == "hi" and message.priority is Priority.NEXT
    assert message.initiator.type is PrincipalType.SYSTEM
    assert before <= message.delivered_at <= datetime.now(UTC)
    custom = InboundMessage.text(
        "c-1", "x", agent_ref="a", initiator=Principal.user("alice"), priority=Priority.NOW, metadata={"k": "v"}
    )
    assert custom.initiator.id == "alice" and custom.priority is Priority.NOW and custom.metadata == {"k": "v"}


# --- 10: errors name the type (with its article) and the value ---------------------------------------


def test_argument_errors_read_as_english_and_name_the_value(mongo_db: Database[dict[str, Any]]) -> None:
    node = MongoSessionBackends(mongo_db, "node-1")
    with pytest.raises(InvalidArgumentError) as caught:
        node.inbox.deliver("hello")  # type: ignore[arg-type]
    assert "must be an InboundMessage, got str: 'hello'" in str(caught.value)
    with pytest.raises(InvalidArgumentError, match=r"must be a timedelta, got int: 30"):
        node.leases.try_acquire("c-1", "node-1", 30)  # type: ignore[arg-type]
    node.close()


def test_mongomock_is_refused_in_one_line_naming_both_types() -> None:
    import mongomock

    fake = mongomock.MongoClient(tz_aware=True)
    with pytest.raises(InvalidArgumentError) as caught:
        MongoSessionBackends(fake["db"], "node-1")  # type: ignore[arg-type]
    assert "must be a pymongo.synchronous.database.Database, got mongomock.database.Database" in str(caught.value)
    from aimon_mongo.mongo import ensure_schema

    with pytest.raises(InvalidArgumentError, match=r"mongomock\.database\.Database"):
        ensure_schema(fake["db"])  # type: ignore[arg-type]


# --- 8: init.js as package data, the schema gate outside a checkout ----------------------------------


def test_packaged_init_js_is_the_repository_script() -> None:
    from aimon_mongo.cli.initdb import init_js_path

    assert init_js_path().read_bytes() == (ROOT / "db" / "mongodb" / "init.js").read_bytes(), (
        "the packaged copy is stale: cp db/mongodb/init.js aimon_mongo/mongo/init.js"
    )
    assert init_js_path().is_relative_to(ROOT / "aimon_mongo")


@pytest.mark.parametrize("command", ["generate", "check", "finalize"])
def test_schema_gate_outside_a_checkout_refuses_and_writes_nothing(command: str, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'someone-else'\n")  # a project, not ours
    done = subprocess.run(
        [sys.executable, "-m", "aimon_mongo", "schema", command], cwd=tmp_path, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 1
    assert f"schema {command}: no project here" in done.stderr and "--root" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pyproject.toml"]


# --- 6: the stand-in's own command -------------------------------------------------------------------


def test_standin_serve_prints_the_uri_keeps_data_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    def serve() -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "aimon_mongo.standin", "serve", "--port", "0", "--data", str(tmp_path / "d")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    first = serve()
    uri = first.stdout.readline().strip() if first.stdout else ""
    assert uri.startswith("mongodb://127.0.0.1:")
    with MongoClient(uri) as client:
        client["kept"]["c"].insert_one({"_id": 1})
    first.send_signal(signal.SIGINT)
    _, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    assert "export AIMON_MONGODB_URI=" in err and "stand-in stopped" in err and "Traceback" not in err
    second = serve()
    uri = second.stdout.readline().strip() if second.stdout else ""
    try:
        with MongoClient(uri) as client:
            assert client["kept"]["c"].find_one({"_id": 1}) == {"_id": 1}
    finally:
        second.send_signal(signal.SIGINT)
        second.communicate(timeout=60)
    assert second.returncode == 0


def test_standin_serve_on_a_busy_port_is_one_line() -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "aimon_mongo", "standin", "serve", "--port", str(port)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"aimon-mongo standin: error: cannot listen on 127.0.0.1:{port} (Address already in use; is a MongoDB "
        "already running there? --port picks another, --port 0 any free one)"
    ]


# --- the pytest plugin -------------------------------------------------------------------------------

PLUGIN_TEST = """
from datetime import timedelta


def test_memory(aimon_memory_backends, aimon_memory_vfs):
    assert aimon_memory_backends.leases.try_acquire("c-1", "test-node", timedelta(seconds=5)) is not None
    aimon_memory_vfs.write("a.txt", "x")
    assert aimon_memory_vfs.ls(".") == ["a.txt"]


def test_standin(aimon_mongo_backends, aimon_mongo_db, aimon_mongo_uri):
    assert aimon_mongo_uri.startswith("mongodb://")
    assert aimon_mongo_backends.leases.try_acquire("c-1", "test-node", timedelta(seconds=5)) is not None
    assert "conversation_locks" in aimon_mongo_db.list_collection_names()


def test_fresh_database(aimon_mongo_db):
    assert aimon_mongo_db.list_collection_names() == []


def test_unused():
    pass
"""


@pytest.mark.slow
def test_the_pytest_plugin_offers_fixtures_and_is_inert_otherwise(tmp_path: Path) -> None:
    (tmp_path / "test_plugin_use.py").write_text(PLUGIN_TEST)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_plugin_use.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "4 passed" in done.stdout
    probe = (
        "import sys, aimon_mongo.testing; print(sorted(m for m in sys.modules if m.startswith(('pymongo', 'aimon'))))"
    )
    imported = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert imported.stdout.strip() == "['aimon_mongo', 'aimon_mongo.testing']"
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--fixtures", "-p", "no:cacheprovider", "test_plugin_use.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    for name in ("aimon_memory_backends", "aimon_memory_vfs", "aimon_mongo_uri", "aimon_mongo_db"):
        assert name in listed.stdout
