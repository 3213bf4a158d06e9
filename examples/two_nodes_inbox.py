#!/usr/bin/env python3
"""Two nodes, one conversation: deliver, wake the holder with a signal, take the lease, collect.

    pip install aimon-mongo                  # extras: none
    python examples/two_nodes_inbox.py

node-a receives requests for conversation c-1 but does not hold it; node-b does. node-a delivers three
messages (priorities LATER, NOW, NEXT) and publishes MESSAGE_ENQUEUED; node-b, subscribed to c-1, wakes
up, takes the lease (a fencing token) and collects: first only the NOW tier, then everything left, in
priority and arrival order. Runs against AIMON_MONGODB_URI, else MONGODB_URI, or starts the local MongoDB
stand-in for the run; uses a fresh database and drops it at the end.
"""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime, timedelta

from pymongo import MongoClient

from aimon_mongo.connection import uri_source
from aimon_mongo.model import InboundMessage, Principal, Priority, SessionSignal, SignalKind, TextInput
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema
from aimon_mongo.standin import mongodb_or_standin

SESSION = "c-1"


def message(text: str, priority: Priority) -> InboundMessage:
    return InboundMessage(
        session_id=SESSION,
        agent_ref="assistant",
        user_input=TextInput(text=text),
        priority=priority,
        initiator=Principal.user("bob"),
        delivered_at=datetime.now(UTC),  # the inbox orders by the server's clock, not this one
    )


def run(node_a: MongoSessionBackends, node_b: MongoSessionBackends) -> None:
    woken = threading.Event()
    node_b.signals.subscribe(SESSION, lambda signal: woken.set())  # never sees its own signals

    for text, priority in (
        ("tidy up later", Priority.LATER),
        ("stop, urgent!", Priority.NOW),
        ("next question", Priority.NEXT),
    ):
        entry = node_a.inbox.deliver(message(text, priority))
        print(f"node-a delivered {priority.name:<5} {text!r} as {entry}")
    node_a.signals.publish(SessionSignal(session_id=SESSION, kind=SignalKind.MESSAGE_ENQUEUED, origin_node_id="node-a"))
    if not woken.wait(20):
        raise SystemExit("node-b was not woken by MESSAGE_ENQUEUED")
    print("node-b woke up on MESSAGE_ENQUEUED")

    lease = node_b.leases.try_acquire(SESSION, "node-b", timedelta(seconds=30))
    assert lease is not None, "nobody else holds c-1"
    print(f"node-b holds {SESSION}: fencing token {lease.fencing_token}, expires {lease.expires_at:%H:%M:%S}")
    print("node-a can take it too?", node_a.leases.try_acquire(SESSION, "node-a", timedelta(seconds=30)))

    urgent = node_b.inbox.collect(SESSION, max_priority=Priority.NOW)
    print("collect(max NOW):", [m.user_input.as_text() for m in urgent.messages])
    rest = node_b.inbox.collect(SESSION)
    print("collect():       ", [f"{m.priority.name}: {m.user_input.as_text()}" for m in rest.messages])
    print("inbox empty now:", node_b.inbox.is_empty(SESSION))

    node_b.leases.release(lease)  # the token survives: the next holder gets a higher one
    after = node_a.leases.try_acquire(SESSION, "node-a", timedelta(seconds=30))
    assert after is not None and after.fencing_token > lease.fencing_token
    print(f"node-a took over with fencing token {after.fencing_token} (node-b had {lease.fencing_token})")


def main() -> None:
    database = f"aimon_example_{uuid.uuid4().hex[:8]}"
    with mongodb_or_standin() as (uri, server):
        print(f"MongoDB: {'local stand-in' if server else uri_source()}; database {database}")
        client: MongoClient[dict[str, object]] = MongoClient(uri, tz_aware=True)
        try:
            ensure_schema(client[database])  # once per deployment (or apply db/mongodb/init.js)
            node_a = MongoSessionBackends(client[database], "node-a")
            node_b = MongoSessionBackends(client[database], "node-b")
            try:
                run(node_a, node_b)
            finally:
                node_a.close()
                node_b.close()
        finally:
            client.drop_database(database)
            client.close()


if __name__ == "__main__":
    main()
