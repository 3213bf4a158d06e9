"""Helpers of the MongoDB inbox tests that count commands (fixtures: ``conftest.py``)."""

from __future__ import annotations

from typing import Any

from pymongo import MongoClient

from aimon_mongo.mongo import MongoSessionBackends
from aimon_mongo.mongo.command_log import Recording

_CRUD = {"find", "update", "delete", "findAndModify", "insert"}


def command_names(seen: Recording) -> list[str]:
    return [c.name for c in seen.commands]


def assert_targeted(seen: Recording) -> None:
    """Every CRUD command of the recording on the inbox filters on conversationId (a sharded router can
    target it); every upsert names it too."""
    for command in seen.commands:
        if command.name == "update":
            assert all("conversationId" in s["q"] for s in command.command["updates"])
        elif command.name in _CRUD and command.collection == "conversation_inbox":
            assert "conversationId" in command.filter_fields, command.name


def sync_inbox(client: MongoClient[dict[str, Any]], name: str) -> Any:
    """The sync inbox of a bundle on ``name``, past its one-time schema check (not what an operation costs)."""
    bundle = MongoSessionBackends(client[name], "node-a")
    bundle.schema_check.before_write()
    return bundle.inbox
