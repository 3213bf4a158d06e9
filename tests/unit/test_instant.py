"""Instants: Java ``Instant.toString()`` rendering (0/3/6 digits) and strict ISO-8601 parsing."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given

from aimon_mongo.codec.instant import format_instant, parse_instant
from aimon_mongo.errors import CodecError
from tests.strategies import utc_datetimes


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (datetime(2024, 5, 1, 12, 34, 56, tzinfo=UTC), "2024-05-01T12:34:56Z"),
        (datetime(2024, 5, 1, 12, 34, 56, 789000, tzinfo=UTC), "2024-05-01T12:34:56.789Z"),
        (datetime(2024, 5, 1, 12, 34, 56, 1000, tzinfo=UTC), "2024-05-01T12:34:56.001Z"),
        (datetime(2024, 5, 1, 12, 34, 56, 789123, tzinfo=UTC), "2024-05-01T12:34:56.789123Z"),
        (datetime(2024, 5, 1, 12, 34, 56, 100, tzinfo=UTC), "2024-05-01T12:34:56.000100Z"),
        (datetime(2024, 5, 1, 0, 0, tzinfo=UTC), "2024-05-01T00:00:00Z"),
        (datetime(999, 1, 2, 3, 4, 5, tzinfo=UTC), "0999-01-02T03:04:05Z"),
        (datetime(1, 1, 1, tzinfo=UTC), "0001-01-01T00:00:00Z"),
        (datetime(2024, 5, 1, 14, 34, 56, tzinfo=timezone(timedelta(hours=2))), "2024-05-01T12:34:56Z"),
    ],
)
def test_format_like_java(value: datetime, text: str) -> None:
    assert format_instant(value) == text


def test_format_refuses_naive() -> None:
    with pytest.raises(CodecError, match="naive"):
        format_instant(datetime(2024, 1, 1))


def test_format_refuses_an_instant_outside_the_utc_range() -> None:
    with pytest.raises(CodecError, match="range"):
        format_instant(datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2024-05-01T12:34:56Z", datetime(2024, 5, 1, 12, 34, 56, tzinfo=UTC)),
        ("2024-05-01T12:34:56.789Z", datetime(2024, 5, 1, 12, 34, 56, 789000, tzinfo=UTC)),
        ("2024-05-01T12:34:56.789123Z", datetime(2024, 5, 1, 12, 34, 56, 789123, tzinfo=UTC)),
        # Java writes 9 digits when nanoseconds are set; Python keeps microseconds.
        ("2024-05-01T12:34:56.123456789Z", datetime(2024, 5, 1, 12, 34, 56, 123456, tzinfo=UTC)),
        ("2024-05-01T12:34:56.1Z", datetime(2024, 5, 1, 12, 34, 56, 100000, tzinfo=UTC)),
        ("2024-05-01T12:34Z", datetime(2024, 5, 1, 12, 34, tzinfo=UTC)),
        ("2024-05-01T14:34:56+02:00", datetime(2024, 5, 1, 12, 34, 56, tzinfo=UTC)),
        ("2024-05-01T10:34:56-0200", datetime(2024, 5, 1, 12, 34, 56, tzinfo=UTC)),
    ],
)
def test_parse(text: str, value: datetime) -> None:
    parsed = parse_instant(text, "deliveredAt")
    assert parsed == value
    assert parsed.tzinfo is UTC


@pytest.mark.parametrize(
    "text",
    [
        "2024-05-01",
        "2024-05-01T12:34:56",  # no zone
        "2024-05-01 12:34:56Z",  # space
        "20240501T123456Z",  # basic format
        "2024-13-01T00:00:00Z",
        "2024-02-30T00:00:00Z",
        "2024-05-01T24:00:00Z",
        "2024-05-01T12:34:56.1234567890Z",  # 10 digits
        "2024-05-01T12:34:56+24:00",  # a day of offset
        "0001-01-01T00:00:00+01:00",  # before the first representable UTC instant
        "٢٠٢٤-05-01T12:34:56Z",  # non-ASCII digits
        "2024-05-01T12:34:56Z ",
        "",
    ],
)
def test_parse_refuses_with_codec_error_only(text: str) -> None:
    with pytest.raises(CodecError, match="deliveredAt"):
        parse_instant(text, "deliveredAt")


@pytest.mark.parametrize("value", [None, 1714566896789, 1.5, ["2024-05-01T12:34:56Z"]])
def test_parse_refuses_non_text(value: object) -> None:
    with pytest.raises(CodecError, match="deliveredAt"):
        parse_instant(value, "deliveredAt")


@given(utc_datetimes())
def test_round_trip(value: datetime) -> None:
    text = format_instant(value)
    digits = 0 if value.microsecond == 0 else 3 if value.microsecond % 1000 == 0 else 6
    fraction = f"[.][0-9]{{{digits}}}" if digits else ""
    assert re.fullmatch(f"[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}T[0-9]{{2}}:[0-9]{{2}}:[0-9]{{2}}{fraction}Z", text)
    assert parse_instant(text, "x") == value
