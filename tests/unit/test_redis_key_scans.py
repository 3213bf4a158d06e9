"""The session the inspection reads back from each Redis key, in both key layouts: every inbox and lease key
of a session maps back to that session (ids with glob characters and colons included), and keys of other
families do not (the ``SCAN`` patterns run against the real server in
``tests/integration/test_redis_inspection.py``)."""

from __future__ import annotations

import pytest

from aimon_mongo.model import Priority
from aimon_mongo.redis import RedisKeyPrefixes, RedisKeys


@pytest.mark.parametrize("cluster", [False, True])
@pytest.mark.parametrize("session", ["c-1", "a*b", "x[y]", "with:colon"])
def test_inbox_and_lease_keys_map_back_to_their_session(cluster: bool, session: str) -> None:
    keys = RedisKeys(RedisKeyPrefixes().under("root"), cluster=cluster)
    for key in [*(keys.inbox_stream(session, p) for p in Priority), keys.quarantine(session)]:
        assert keys.session_of_inbox_key(key) == session
    for key in (keys.lock(session), keys.lock_fence(session)):
        assert keys.session_of_lock_key(key) == session
    assert keys.session_of_inbox_key(keys.lock(session)) is None
    assert keys.session_of_lock_key(keys.inbox_stream(session, Priority.NOW)) is None
    assert keys.session_of_inbox_key(f"root:aimon:inbox:{session}:OTHER") is None
