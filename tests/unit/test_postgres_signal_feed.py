"""The signal listener's position and gap tracking (pure: ids and a fake monotonic clock)."""

from __future__ import annotations

import logging

import pytest

from aimon_mongo.postgres.signal_feed import SignalFeed, next_backoff


def test_contiguous_ids_advance_without_gaps() -> None:
    feed = SignalFeed(10)
    feed.observe([11, 12, 13], now=0.0)
    assert feed.last_seen == 13
    assert feed.gaps(0.0) == []


def test_holes_are_tracked_until_they_appear() -> None:
    feed = SignalFeed(10)
    feed.observe([12, 15], now=0.0)  # 11, 13 and 14 not committed yet
    assert feed.last_seen == 15
    assert feed.gaps(1.0) == [11, 13, 14]
    feed.observe([13, 16], now=2.0)  # a late commit arrives with a new row
    assert feed.last_seen == 16
    assert feed.gaps(2.0) == [11, 14]


def test_holes_expire_after_the_grace() -> None:
    feed = SignalFeed(0, grace=60.0)
    feed.observe([2], now=100.0)
    assert feed.gaps(159.9) == [1]
    assert feed.gaps(160.0) == []


def test_ids_at_or_below_the_position_never_move_it_back() -> None:
    feed = SignalFeed(50)
    feed.observe([40, 45], now=0.0)
    assert feed.last_seen == 50
    assert feed.gaps(0.0) == []


def test_one_hole_keeps_only_its_highest_ids(caplog: pytest.LogCaptureFixture) -> None:
    feed = SignalFeed(0, max_hole_span=4)
    with caplog.at_level(logging.WARNING):
        feed.observe([10], now=0.0)
    assert feed.gaps(0.0) == [6, 7, 8, 9]
    assert "5 uncommitted signal ids will not be waited for" in caplog.text


def test_total_tracking_drops_the_oldest_ids_and_warns_at_most_every_ten_seconds(
    caplog: pytest.LogCaptureFixture,
) -> None:
    feed = SignalFeed(0, max_hole_span=100, max_tracked=5)
    with caplog.at_level(logging.WARNING):
        feed.observe([4], now=0.0)  # holes 1..3
        feed.observe([8], now=1.0)  # holes 5..7: six tracked, the oldest one goes (warned)
        feed.observe([10], now=2.0)  # hole 9: again one too many (not warned: within 10 s)
    assert feed.gaps(2.0) == [3, 5, 6, 7, 9]
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


def test_reconnect_backoff_doubles_up_to_five_seconds() -> None:
    waits = [0.5]
    for _ in range(6):
        waits.append(next_backoff(waits[-1]))
    assert waits == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0, 5.0]
