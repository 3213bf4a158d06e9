"""Freeze tests: the Redis key, channel and pattern literals of the default layout (reference §4.1).

Every expectation is a hard-coded literal, never a constant from ``names.py``: a rename of the constant
would move the key builder and a constant-based expectation together, and no round trip could see it.
"""

from __future__ import annotations

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model import Priority
from aimon_mongo.redis import RedisKeyPrefixes, RedisKeys
from aimon_mongo.redis.keys import glob_escape

KEYS = RedisKeys()


def test_default_prefixes() -> None:
    prefixes = RedisKeyPrefixes()
    assert prefixes.inbox == "aimon:inbox"
    assert prefixes.lock == "aimon:conv"
    assert prefixes.signals == "aimon:conv"
    assert prefixes.idempotency == "aimon:conv:idem"
    assert prefixes.records == "aimon:session:record"
    assert prefixes.segments == "aimon:session:segment"
    assert prefixes.tasks == "aimon:subagent:task"
    assert prefixes.fences == "aimon:session:fence"


def test_inbox_streams_and_quarantine() -> None:
    assert KEYS.inbox_stream("s-1", Priority.NOW) == "aimon:inbox:s-1:NOW"
    assert KEYS.inbox_stream("s-1", Priority.NEXT) == "aimon:inbox:s-1:NEXT"
    assert KEYS.inbox_stream("s-1", Priority.LATER) == "aimon:inbox:s-1:LATER"
    assert KEYS.inbox_streams("s-1") == ["aimon:inbox:s-1:NOW", "aimon:inbox:s-1:NEXT", "aimon:inbox:s-1:LATER"]
    assert KEYS.inbox_streams("s-1", Priority.NEXT) == ["aimon:inbox:s-1:NOW", "aimon:inbox:s-1:NEXT"]
    assert KEYS.quarantine("s-1") == "aimon:inbox:s-1:quarantine"
    assert KEYS.quarantine_pattern() == "aimon:inbox:*:quarantine"


def test_lock_and_fence_keys() -> None:
    assert KEYS.lock("s-1") == "aimon:conv:lock:s-1"
    assert KEYS.lock_fence("s-1") == "aimon:conv:lock:fence:s-1"


def test_signal_channels() -> None:
    assert KEYS.control_channel("s-1") == "aimon:conv:control:s-1"
    assert KEYS.events_channel("s-1") == "aimon:conv:events:s-1"
    assert KEYS.session_of_channel("aimon:conv:control:s:1") == "s:1"
    assert KEYS.session_of_channel("aimon:conv:events:s-1") == "s-1"
    assert KEYS.session_of_channel("aimon:subagent:task-stop") is None


def test_idempotency_key_and_scan_pattern() -> None:
    assert KEYS.idempotency("k-1") == "aimon:conv:idem:k-1"
    assert KEYS.idempotency_pattern() == "aimon:conv:idem:*"


def test_records_segments_tasks_and_write_fence() -> None:
    assert KEYS.record("s-1") == "aimon:session:record:s-1"
    assert KEYS.record_pattern() == "aimon:session:record:*"
    assert KEYS.segment_data("s-1") == "aimon:session:segment:{s:s-1}:data"
    assert KEYS.segment_created("s-1") == "aimon:session:segment:{s:s-1}:created"
    assert KEYS.segment_created_pattern() == "aimon:session:segment:{s:*}:created"
    assert KEYS.session_of_segment_created("aimon:session:segment:{s:s-1}:created") == "s-1"
    assert KEYS.task("t-1") == "aimon:subagent:task:t-1"
    assert KEYS.task_index() == "aimon:subagent:task:index"
    assert KEYS.write_fence("s-1") == "aimon:session:fence:{s:s-1}"


def test_prefixes_move_under_a_root() -> None:
    moved = RedisKeys(RedisKeyPrefixes().under("t1"))
    assert moved.inbox_stream("s", Priority.NOW) == "t1:aimon:inbox:s:NOW"
    assert moved.lock_fence("s") == "t1:aimon:conv:lock:fence:s"
    assert moved.idempotency("k") == "t1:aimon:conv:idem:k"


def test_prefixes_from_a_partial_mapping_are_checked() -> None:
    prefixes = RedisKeyPrefixes.of({"inbox": "run-7:aimon:inbox"})
    assert (prefixes.inbox, prefixes.lock, prefixes.fences) == (
        "run-7:aimon:inbox",
        "aimon:conv",
        "aimon:session:fence",
    )
    assert RedisKeyPrefixes.of(prefixes) is prefixes
    assert RedisKeyPrefixes.of(None) == RedisKeyPrefixes()
    with pytest.raises(InvalidArgumentError, match=r"unknown roles \['mailbox'\] in key_prefixes"):
        RedisKeyPrefixes.of({"mailbox": "x"})
    with pytest.raises(InvalidArgumentError, match="key_prefixes must be a RedisKeyPrefixes or a mapping, got list"):
        RedisKeyPrefixes.of(["inbox"])  # type: ignore[arg-type]
    for bad in ("", "a\x00b", 7):
        with pytest.raises(InvalidArgumentError, match=r"key prefix for 'inbox' is not usable"):
            RedisKeyPrefixes.of({"inbox": bad})  # type: ignore[dict-item]


def test_glob_characters_are_escaped_in_patterns() -> None:
    assert glob_escape("a*b?c[d]e\\f") == "a\\*b\\?c\\[d\\]e\\\\f"
    odd = RedisKeys(RedisKeyPrefixes().under("r*[x]?"))
    assert odd.record_pattern() == "r\\*\\[x\\]\\?:aimon:session:record:*"
    assert odd.idempotency_pattern() == "r\\*\\[x\\]\\?:aimon:conv:idem:*"
    assert odd.quarantine_pattern() == "r\\*\\[x\\]\\?:aimon:inbox:*:quarantine"


def test_hash_tagged_prefixes_refuse_braces_and_task_index_is_reserved() -> None:
    with pytest.raises(InvalidArgumentError, match="segments"):
        RedisKeyPrefixes(segments="x{y")
    with pytest.raises(InvalidArgumentError, match="fences"):
        RedisKeyPrefixes(fences="x}y")
    with pytest.raises(InvalidArgumentError, match="task_id"):
        KEYS.task("index")
    with pytest.raises(InvalidArgumentError, match="session_id"):
        KEYS.lock({"$ne": None})  # type: ignore[arg-type]
