"""Instants: Java ``Instant.toString()`` rendering (0/3/6/9 digits) and strict ISO-8601 parsing that keeps
the nanoseconds a Java node writes."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aimon_mongo.codec.instant import format_instant, parse_instant
from aimon_mongo.errors import CodecError
from aimon_mongo.model.instant import Instant
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
        # Java writes 9 digits when nanoseconds are set: the digits below the microsecond are kept.
        ("2024-05-01T12:34:56.123456789Z", Instant(2024, 5, 1, 12, 34, 56, 123456, UTC, sub_micros=789)),
        ("2024-05-01T12:34:56.000000001Z", Instant(2024, 5, 1, 12, 34, 56, 0, UTC, sub_micros=1)),
        ("2024-05-01T12:34:56.123456000Z", datetime(2024, 5, 1, 12, 34, 56, 123456, tzinfo=UTC)),
        ("2024-05-01T12:34:56.1Z", datetime(2024, 5, 1, 12, 34, 56, 100000, tzinfo=UTC)),
        ("2024-05-01T12:34Z", datetime(2024, 5, 1, 12, 34, tzinfo=UTC)),
        ("2024-05-01T14:34:56+02:00", datetime(2024, 5, 1, 12, 34, 56, tzinfo=UTC)),
        ("2024-05-01T10:34:56-0200", datetime(2024, 5, 1, 12, 34, 56, tzinfo=UTC)),
    ],
)
def test_parse(text: str, value: datetime) -> None:
    parsed = parse_instant(text, "deliveredAt")
    assert parsed == value
    assert type(parsed) is type(value)
    assert parsed.tzinfo is UTC


@pytest.mark.parametrize(
    "text",
    [
        "2026-07-07T10:15:30.123456789Z",
        "2026-07-07T10:15:30.000000001Z",
        "2026-07-07T10:15:30.100000001Z",
        "1970-01-01T00:00:00.999999999Z",
        "0999-01-02T03:04:05.000000700Z",
    ],
)
def test_nine_digits_written_by_java_come_back_unchanged(text: str) -> None:
    assert format_instant(parse_instant(text, "x")) == text


def test_an_offset_with_nanoseconds_is_normalised_to_utc_keeping_them() -> None:
    assert format_instant(parse_instant("2026-07-07T12:15:30.123456789+02:00", "x")) == "2026-07-07T10:15:30.123456789Z"


@given(utc_datetimes(), st.integers(1, 999))
def test_nanosecond_round_trip(value: datetime, sub_micros: int) -> None:
    instant = Instant.of(value, sub_micros)
    text = format_instant(instant)
    assert text.endswith(f"{value.microsecond:06d}{sub_micros:03d}Z")
    parsed = parse_instant(text, "x")
    assert parsed == instant
    assert format_instant(parsed) == text


def test_an_instant_is_a_datetime_that_keeps_its_nanoseconds() -> None:
    import copy
    import pickle

    instant = Instant(2026, 7, 7, 10, 15, 30, 123456, UTC, sub_micros=789)
    plain = datetime(2026, 7, 7, 10, 15, 30, 123456, tzinfo=UTC)
    assert isinstance(instant, datetime)
    assert instant.nanosecond == 123456789
    assert instant != plain
    assert instant > plain
    assert plain < instant
    assert instant - plain == timedelta(0)
    later = instant + timedelta(seconds=1)
    assert isinstance(later, Instant)
    assert format_instant(later) == "2026-07-07T10:15:31.123456789Z"
    assert format_instant(instant - timedelta(days=1)) == "2026-07-06T10:15:30.123456789Z"
    assert format_instant(instant.astimezone(timezone(timedelta(hours=2)))) == "2026-07-07T10:15:30.123456789Z"
    for copied in (pickle.loads(pickle.dumps(instant)), copy.copy(instant), copy.deepcopy(instant)):
        assert copied == instant
        assert copied.sub_micros == 789
    assert len({instant, Instant.of(plain, 789), plain}) == 2


@pytest.mark.parametrize("sub_micros", [-1, 1000, 1.5, "7"])
def test_an_instant_refuses_an_out_of_range_remainder(sub_micros: object) -> None:
    with pytest.raises(ValueError, match="sub_micros"):
        Instant(2026, 1, 1, tzinfo=UTC, sub_micros=sub_micros)  # type: ignore[arg-type]


def test_a_refused_instant_is_named_clipped_and_escaped() -> None:
    with pytest.raises(CodecError) as caught:
        parse_instant("not-a-timestamp", "deliveredAt")
    assert str(caught.value) == "field 'deliveredAt' is not an ISO-8601 instant: 'not-a-timestamp'"
    with pytest.raises(CodecError) as caught:
        parse_instant("x\n\x1b[31m" + "y" * 200, "deliveredAt")
    message = str(caught.value)
    assert "\n" not in message and "\x1b" not in message
    assert "'x\\n\\x1b[31m" in message
    assert len(message) < 120


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
