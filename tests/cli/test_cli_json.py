"""Every ``--json`` of the read commands writes its times in one form: ISO 8601 in UTC with a ``Z``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pymongo import MongoClient

from aimon_mongo.demo import transcript as demo
from tests.cli.conftest import Cli
from tests.console.conftest import seed

INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?")


def _instants(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _instants(item)
    elif isinstance(value, list):
        for item in value:
            yield from _instants(item)
    elif isinstance(value, str) and INSTANT.fullmatch(value):
        yield value


def test_every_json_time_is_utc_with_a_z(cli: Cli, mongo_client: MongoClient[Any], mongo_db_name: str) -> None:
    seeded = seed(mongo_client, mongo_db_name)  # waiting entries, a quarantined one, a lease, files, snapshots, tasks
    commands = [
        ["inbox", "stats"],
        ["inbox", "peek", demo.SESSION_ID],
        ["quarantine", "list"],
        ["quarantine", "show", seeded.quarantine_id],
        ["leases", "show", demo.SESSION_ID],
        ["leases", "list"],
        ["tasks", "list"],
        ["snapshots", "list"],
        ["vfs", "ls", "-l", f"workspace/{demo.SESSION_ID}"],
        ["vfs", "tree"],
    ]
    for command in commands:
        found = list(_instants(cli(*command, "--json").json()))
        assert found, f"{command}: no time to check"  # each of these shows at least one
        odd = [value for value in found if not value.endswith("Z")]
        assert not odd, f"{' '.join(command)} --json: {odd}"
