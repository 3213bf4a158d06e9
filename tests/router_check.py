"""The router check: every command the library sends to MongoDB during the conformance and reliability
suites is classified with MongoDB's routing rules (:mod:`aimon_mongo.mongo.routing`) against the declared
placement (:mod:`aimon_mongo.mongo.placement`), and a test fails when one is not targeted.

One :class:`CommandLog` is registered with PyMongo for every client of the test process
(``monitoring.register``, before any client exists); the autouse fixture :func:`router_check` (imported by
``tests/conformance/conftest.py`` and ``tests/reliability/conftest.py``) records each test and checks
what the library sent (commands without an ``aimon_mongo`` function on the stack are the tests' own and
are not checked). Allowed:

* targeted commands and commands not routed by a key (DDL, cursors, transactions);
* a scatter or multi-shard read only from a function of :data:`SCATTER_ALLOWED` (operator commands and
  sweeps), and only when the command is bounded (a ``find`` with a ``limit``): paginated.

Refused always: an upsert or ``findAndModify`` without its collection's whole shard key.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from pymongo import monitoring

from aimon_mongo.mongo.command_log import CommandLog, Recording, SeenCommand
from aimon_mongo.mongo.placement import collection_map
from aimon_mongo.mongo.routing import Route, route

LOG = CommandLog(origins=True)
monitoring.register(LOG)

PLACEMENTS = collection_map()

SCATTER_ALLOWED = frozenset(
    {
        "MongoRecordDriver.list_session_ids",  # operator listing, pages of SCAN_PAGE by _id
        "MongoRecordDriver.load_many",  # a batch of given ids ($in on the shard key), limit = their count
        "MongoTaskDriver.list",  # operator listing of tasks, pages of SCAN_PAGE by _id
        "MongoIdempotencyDriver.stale_candidates",  # recovery sweep (find_stale_in_flight), `limit` per call
        "MongoSegmentDriver.scan_sessions",  # GC sweep, `limit` per page
        "MongoInboxDriver.sessions_with_entries",  # adoption scan of a session host, pages of SESSION_SCAN_PAGE
    }
)
"""The library functions allowed to read every shard: operator commands and sweeps, each paginated."""


@dataclass(frozen=True)
class Violation:
    command: SeenCommand
    route: Route
    reason: str

    def __str__(self) -> str:
        where = " < ".join(self.command.origin[:3]) or "?"
        return (
            f"{self.command.name} on {self.command.collection} filter {list(self.command.filter_fields)}: "
            f"{self.route.value} ({self.reason}) from {where}"
        )


def violations(recording: Recording) -> list[Violation]:
    """The library's commands in ``recording`` a sharded cluster would not send to one shard."""
    found: list[Violation] = []
    for seen in recording.commands:
        if not seen.origin:
            continue  # the test's own command
        routing = route(seen, PLACEMENTS)
        if routing.route in (Route.TARGETED, Route.NOT_ROUTED):
            continue
        if routing.route is not Route.REFUSED and _allowed_scatter(seen):
            continue
        found.append(Violation(seen, routing.route, routing.reason))
    return found


def _allowed_scatter(seen: SeenCommand) -> bool:
    named = any(origin in SCATTER_ALLOWED for origin in seen.origin)
    bounded = seen.name == "find" and isinstance(seen.command.get("limit"), int) and seen.command["limit"] > 0
    return named and bounded


@pytest.fixture(autouse=True)
def router_check() -> Iterator[Recording]:
    """Fails the test when the library sent a command a sharded cluster would not target."""
    with LOG.recording() as seen:
        yield seen
    bad = violations(seen)
    assert not bad, "commands a sharded cluster would not target:\n" + "\n".join(f"  {v}" for v in bad[:20])
