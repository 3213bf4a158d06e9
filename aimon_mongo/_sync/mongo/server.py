# GENERATED from aimon_mongo/_async/mongo/server.py by scripts/gen_sync.py; do not edit.
"""Whether the MongoDB deployment behind a client answers, and what it is."""

from __future__ import annotations

from typing import Any

from pymongo import MongoClient
from pymongo.errors import OperationFailure, PyMongoError

from aimon_mongo.errors import BackendUnavailable
from aimon_mongo.mongo.topology import ServerDescription, client_hosts


def ping(client: MongoClient[Any]) -> None:
    """Raise :class:`BackendUnavailable` naming the hosts unless the deployment answers ``ping``."""
    try:
        client.admin.command("ping")
    except OperationFailure:
        return  # the server answered (e.g. authentication is required for ping): reachable
    except PyMongoError as exc:
        raise BackendUnavailable(f"MongoDB at {client_hosts(client)} is not reachable: {exc}") from exc


def describe(client: MongoClient[Any]) -> ServerDescription:
    """Ask the deployment what it is (``hello`` and ``buildInfo``)."""
    try:
        hello = client.admin.command("hello")
        build_info = client.admin.command("buildInfo")
    except PyMongoError as exc:
        raise BackendUnavailable(f"MongoDB at {client_hosts(client)} is not reachable: {exc}") from exc
    return ServerDescription.from_replies(hello, build_info)
