"""Whether the MongoDB deployment behind a client answers, and what it is."""

from __future__ import annotations

from typing import Any

from pymongo import AsyncMongoClient
from pymongo.errors import OperationFailure, PyMongoError

from aimon_mongo.errors import BackendUnavailable
from aimon_mongo.mongo.topology import ServerDescription, client_hosts


async def ping(client: AsyncMongoClient[Any]) -> None:
    """Raise :class:`BackendUnavailable` naming the hosts unless the deployment answers ``ping``."""
    try:
        await client.admin.command("ping")
    except OperationFailure:
        return  # the server answered (e.g. authentication is required for ping): reachable
    except PyMongoError as exc:
        raise BackendUnavailable(f"MongoDB at {client_hosts(client)} is not reachable: {exc}") from exc


async def describe(client: AsyncMongoClient[Any]) -> ServerDescription:
    """Ask the deployment what it is (``hello`` and ``buildInfo``)."""
    try:
        hello = await client.admin.command("hello")
        build_info = await client.admin.command("buildInfo")
    except PyMongoError as exc:
        raise BackendUnavailable(f"MongoDB at {client_hosts(client)} is not reachable: {exc}") from exc
    return ServerDescription.from_replies(hello, build_info)
