"""Facts about a MongoDB deployment (no I/O; the async/sync ``server`` modules fetch them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ServerDescription:
    """The facts about a deployment that aimon-mongo decides on.

    ``supports_change_streams`` is true for replica sets and sharded clusters (change streams need an
    oplog); a standalone server gets the polling fallback.
    """

    version: str
    replica_set: str | None
    is_sharded: bool
    max_wire_version: int

    @property
    def supports_change_streams(self) -> bool:
        return self.replica_set is not None or self.is_sharded

    @classmethod
    def from_replies(cls, hello: dict[str, Any], build_info: dict[str, Any]) -> ServerDescription:
        return cls(
            version=str(build_info.get("version", "unknown")),
            replica_set=hello.get("setName"),
            is_sharded=hello.get("msg") == "isdbgrid",
            max_wire_version=int(hello.get("maxWireVersion", 0)),
        )


def client_hosts(client: Any) -> str:
    """``host:port`` list of a (sync or async) client, for error messages."""
    nodes = client.topology_description.server_descriptions().keys()
    return ", ".join(f"{host}:{port}" for host, port in nodes) or "<no hosts>"
