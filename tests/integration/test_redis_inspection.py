"""The Redis inspection driver against the real server, in both key layouts: sessions whose ids hold glob
characters or colons are listed, counted and paged exactly (the ``SCAN`` patterns escape the prefixes and
never contain an id), and keys outside the bundle's prefixes are never read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from aimon_mongo import open_backends
from aimon_mongo.inspect import inspector_for
from aimon_mongo.model import InboundMessage, Principal, Priority, TextInput
from aimon_mongo.redis import RedisKeyPrefixes
from tests.fixtures.redis import delete_namespace, new_root

SESSIONS = ["a*b", "plain", "with:colon", "x[y]"]


@pytest.mark.parametrize("cluster", [False, True])
def test_sessions_with_glob_characters_are_listed_counted_and_paged(
    redis_url: str, redis_root: str, cluster: bool
) -> None:
    prefixes = RedisKeyPrefixes().under(redis_root)
    elsewhere = new_root()
    with (
        open_backends(redis_url, node_id="a", key_prefixes=prefixes, cluster_layout=cluster) as node,
        open_backends(redis_url, node_id="b", key_prefixes=RedisKeyPrefixes().under(elsewhere)) as other,
    ):
        for i, session in enumerate(SESSIONS):
            for _ in range(i + 1):
                node.inbox.deliver(
                    InboundMessage(
                        session_id=session,
                        agent_ref="analyst",
                        user_input=TextInput(text="hi"),
                        priority=Priority.LATER,
                        initiator=Principal.user("alice"),
                        delivered_at=datetime.now(UTC),
                    )
                )
        assert node.leases.try_acquire("only-leased", "a", timedelta(minutes=1)) is not None
        assert other.leases.try_acquire("elsewhere", "b", timedelta(minutes=1)) is not None  # another namespace
        inspector = inspector_for(node)
        stats = inspector.inbox_stats()
        assert [(row["session_id"], row["LATER"]) for row in stats] == [(s, i + 1) for i, s in enumerate(SESSIONS)]
        assert [row["session_id"] for row in inspector.inbox_stats(["x[y]"])] == ["x[y]"]
        first, cursor = inspector.session_page("", 3)
        rest, end = inspector.session_page(cursor or "", 3)
        assert [r["session_id"] for r in first + rest] == sorted([*SESSIONS, "only-leased"]) and end is None
        assert [(row["session_id"], row["state"]) for row in inspector.lease_states()] == [("only-leased", "held")]
        assert inspector.server_time() is not None
    delete_namespace(redis_url, elsewhere)
