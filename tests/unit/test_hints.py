"""``aimon_mongo.vfs.records.Hints``: the bounded hint map shared by the VFS (known revisions) and ADK artifacts."""

from __future__ import annotations

import pytest

from aimon_mongo.vfs.records import Hints


def test_keeps_the_last_value_put_under_each_key_and_forgets_on_request() -> None:
    hints: Hints[str, int] = Hints(3)
    hints.put("a", 1)
    hints.put("a", 2)
    hints.put("b", 7)
    assert (hints.get("a"), hints.get("b"), hints.get("c")) == (2, 7, None)
    hints.forget("a")
    hints.forget("never put")
    assert hints.get("a") is None and len(hints) == 1


def test_a_new_key_past_the_limit_starts_over_but_a_kept_key_is_updated_in_place() -> None:
    hints: Hints[str, int] = Hints(2)
    hints.put("a", 1)
    hints.put("b", 2)
    hints.put("b", 3)  # a kept key: nothing is dropped
    assert (hints.get("a"), hints.get("b"), len(hints)) == (1, 3, 2)
    hints.put("c", 4)  # full: the map starts over with the new key
    assert (hints.get("a"), hints.get("b"), hints.get("c"), len(hints)) == (None, None, 4, 1)


@pytest.mark.parametrize("limit", [0, -1, True, 2.0, "3"])
def test_a_bad_limit_is_refused_by_name(limit: object) -> None:
    with pytest.raises(ValueError, match=f"limit must be an int >= 1, got {limit!r}"):
        Hints(limit)  # type: ignore[arg-type]
