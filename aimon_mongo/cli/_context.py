"""Shared state of one ``aimon-mongo`` invocation: connection settings, lazily opened clients, output."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from pymongo import MongoClient
from pymongo.errors import ConfigurationError, InvalidURI
from pymongo.uri_parser import parse_uri
from rich.console import Console

from aimon_mongo import names

DEFAULT_URI = "mongodb://localhost:27017"
URI_ENV = "AIMON_MONGODB_URI"


@dataclass
class CliContext:
    """Connection settings from the global options; clients open on first use and close at exit."""

    uri: str = DEFAULT_URI
    vfs_db: str = names.DEFAULT_VFS_DATABASE
    session_db: str = names.DEFAULT_SESSION_DATABASE
    bucket: str = names.DEFAULT_GRIDFS_BUCKET
    timeout_ms: int = 5000
    console: Console = field(default_factory=Console)
    err: Console = field(default_factory=lambda: Console(stderr=True))
    _client: MongoClient[dict[str, Any]] | None = None

    @property
    def client(self) -> MongoClient[dict[str, Any]]:
        if self._client is None:
            self._client = MongoClient(self.uri, serverSelectionTimeoutMS=self.timeout_ms, tz_aware=True)
        return self._client

    def hosts(self) -> str:
        """``host:port`` list of the configured URI (credentials never shown)."""
        try:
            nodes = parse_uri(self.uri)["nodelist"]
        except (InvalidURI, ValueError, ConfigurationError):
            return "<invalid URI>"
        return ", ".join(f"{host}:{port}" for host, port in nodes)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def emit_json(self, value: Any) -> None:
        """Machine output: one JSON document on stdout."""
        sys.stdout.write(json.dumps(value, indent=2, default=_json_default, ensure_ascii=False) + "\n")


current: CliContext | None = None
"""The context of the running invocation (set by the global options callback)."""


def uri_from_env() -> str:
    return os.environ.get(URI_ENV) or DEFAULT_URI


def _json_default(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return str(value)
