"""The lease-log checker of the contested-acquisition test finds what it is there to find."""

from __future__ import annotations

from typing import Any

from tests.reliability.lease_log import merge


def acquire(token: int, holder: str, start: int, ttl: int, *, read_after: int | None = None) -> dict[str, Any]:
    """An exact-start acquisition, or (``read_after`` given) one granted somewhere in [start, read_after]."""
    return {"event": "acquire", "token": token, "holder": holder, "ttl_ms": ttl // 1000, "start": start,
            "exact_start": read_after is None, "expires": start + ttl,
            "read_after": start if read_after is None else read_after}  # fmt: skip


def test_back_to_back_leases_pass_and_are_counted() -> None:
    report = merge(
        [
            acquire(1, "a", 0, 100),
            {"event": "write", "token": 1, "outcome": "ok"},
            {"event": "release", "token": 1, "not_before": 40},
            acquire(2, "b", 40, 100),  # acquired while a's release was in flight: counts as after it
            {"event": "lapse", "token": 2},
            acquire(3, "a", 140, 100),  # exactly at b's expiry
            {"event": "done", "refused_attempts": 7},
        ]
    )
    assert (report.overlaps, report.token_regressions, report.future_starts) == ([], [], [])
    assert (report.after_release, report.after_lapse, report.refused_attempts) == (1, 1, 7)
    assert report.leases[0].write == "ok"


def test_a_lease_taken_before_the_previous_one_lapsed_is_an_overlap() -> None:
    report = merge([acquire(1, "a", 0, 100), acquire(2, "b", 99, 100)])
    assert [(a.token, b.token) for a, b in report.overlaps] == [(1, 2)]


def test_a_renewal_moves_the_end_and_a_release_bounds_it() -> None:
    renewed = [acquire(1, "a", 0, 100), {"event": "renew", "token": 1, "expires": 150}, acquire(2, "b", 120, 100)]
    assert len(merge(renewed).overlaps) == 1
    unknown = [acquire(1, "a", 0, 100), {"event": "renew", "token": 1, "expires": None}, acquire(2, "b", 100, 100)]
    assert merge(unknown).overlaps == []
    early = [acquire(1, "a", 0, 100), {"event": "release", "token": 1, "not_before": 60}, acquire(2, "b", 50, 100)]
    assert len(merge(early).overlaps) == 1


def test_an_inexact_start_counts_from_the_read_after_the_call() -> None:
    # b's transaction began before a was granted; b's grant came after a's release (PostgreSQL can do this).
    straddled = [
        acquire(29, "a", 1000, 40_000, read_after=1800),
        {"event": "release", "token": 29, "not_before": 2600},
        acquire(30, "b", 1069, 80_000, read_after=7100),
    ]
    report = merge(straddled)
    assert (report.overlaps, report.token_regressions) == ([], [])
    assert [s.token for s in report.leases] == [29, 30]
    surely_early = [acquire(1, "a", 0, 100), acquire(2, "b", 20, 100, read_after=90)]
    assert len(merge(surely_early).overlaps) == 1
    # a lease that had already lapsed when its acquisition returned proves nothing either way
    lapsed_on_arrival = [acquire(1, "a", 0, 100), acquire(2, "b", 10, 50, read_after=70), acquire(3, "c", 100, 100)]
    assert merge(lapsed_on_arrival).overlaps == []


def test_token_order_duplicates_and_future_starts_are_reported() -> None:
    backwards = merge([acquire(5, "a", 0, 100), acquire(4, "b", 100, 100)])
    assert [(a.token, b.token) for a, b in backwards.token_regressions] == [(4, 5)]
    inexact_order = merge([acquire(4, "a", 10, 100, read_after=50), acquire(5, "b", 5, 100, read_after=60)])
    assert inexact_order.token_regressions == []  # the windows overlap: either could have been granted first
    surely_before = merge([acquire(4, "a", 70, 100, read_after=80), acquire(5, "b", 5, 100, read_after=60)])
    assert [(a.token, b.token) for a, b in surely_before.token_regressions] == [(4, 5)]
    twice = merge([acquire(3, "a", 0, 100), acquire(3, "b", 200, 100)])
    assert twice.token_regressions
    future = merge([acquire(1, "a", 10, 100, read_after=9)])
    assert [s.token for s in future.future_starts] == [1]
    assert merge([{"event": "error", "during": "acquire", "error": "BackendUnavailable"}]).errors == 1
