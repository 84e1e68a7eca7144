"""pitui.core.units: each kind of number, written the one way."""

from __future__ import annotations

from datetime import datetime

import pytest

from pitui.core.units import (
    format_age,
    format_bytes,
    format_cost,
    format_count,
    format_duration,
    format_label_time,
    format_local_time,
    format_tokens,
    kilo_tokens,
    plural,
)


def test_format_bytes() -> None:
    assert format_bytes(None) == "? bytes"
    assert format_bytes(0) == "0 B"
    assert format_bytes(1023) == "1023 B"
    assert format_bytes(1024) == "1.0 KiB"
    assert format_bytes(1536) == "1.5 KiB"
    assert format_bytes(5 * 2**20) == "5.0 MiB"
    assert format_bytes(3 * 2**30) == "3.0 GiB"
    assert format_bytes(5 * 2**40) == "5120.0 GiB"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (15880, "15,880"),
        (687350623, "687,350,623"),
        (-1234, "-1,234"),
        (12.0, "12"),
        (12345.67, "12,345.7"),
        (float("inf"), "Infinity"),
        (float("nan"), "?"),
        (None, "?"),
        (True, "?"),
        ("12", "?"),
    ],
)
def test_format_count(value: object, text: str) -> None:
    assert format_count(value) == text


def test_plural() -> None:
    assert plural(1, "line") == "1 line"
    assert plural(2345, "line") == "2,345 lines"
    assert plural(0, "line") == "0 lines"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (999, "999"),
        (999.6, "1.0k"),
        (1000, "1.0k"),
        (12345, "12.3k"),
        (99949, "99.9k"),
        (99960, "100k"),
        (456_000, "456k"),
        (999_499, "999k"),
        (999_600, "1.0M"),
        (7_800_000, "7.8M"),
        (123_000_000, "123M"),
        (1_200_000_000, "1.2G"),
        (456_000_000_000, "456G"),
        (3.4e12, "3.4T"),
        (999.6e12, "1.0e+15"),
        (1e308, "1.0e+308"),
        (-2e20, "-2.0e+20"),
        (-12345, "-12.3k"),
        (None, "?"),
    ],
)
def test_format_tokens(value: object, text: str) -> None:
    assert format_tokens(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "$0.0000"),
        (0.013, "$0.0130"),
        (0.00004, "$0.0000"),
        (0.99994, "$0.9999"),
        (0.99996, "$1.00"),
        (1, "$1.00"),
        (182.73, "$182.73"),
        (1234.5678, "$1,234.57"),
        (-0.5, "-$0.5000"),
        (float("nan"), "?"),
        (None, "?"),
        ("1", "?"),
    ],
)
def test_format_cost(value: object, text: str) -> None:
    assert format_cost(value) == text


def test_format_age() -> None:
    now = 1_767_225_600_000
    minute, day = 60_000, 86_400_000
    assert [
        format_age(now - ago, now)
        for ago in (0, 59_999, minute, 59 * minute, 60 * minute, day, 7 * day, 30 * day, 365 * day)
    ] == ["now", "now", "1m", "59m", "1h", "1d", "1w", "1mo", "1y"]


def test_format_duration() -> None:
    assert [format_duration(s) for s in (5, 119, 120, 7199, 7200, 172800)] == [
        "5 s", "119 s", "2 min", "120 min", "2 h", "2 days",
    ]  # fmt: skip


@pytest.mark.usefixtures("utc")
def test_local_times() -> None:
    ms = 1742054072595  # 2025-03-15T15:54:32.595Z
    assert format_local_time(ms) == "2025-03-15 15:54"
    assert format_local_time(ms, seconds=True) == "2025-03-15 15:54:32"
    assert format_local_time(None) is None
    assert format_local_time(1e300) is None
    now = datetime(2025, 3, 15, 20, 0).astimezone()
    assert format_label_time(ms, now) == "15:54"
    assert format_label_time(ms, datetime(2025, 6, 1).astimezone()) == "3/15 15:54"
    assert format_label_time(ms, datetime(2026, 1, 1).astimezone()) == "25/3/15 15:54"
    assert format_label_time(None, now) is None


def test_kilo_tokens_rounds_as_javascript() -> None:
    # Math.round(x / 1000): half rounds up, towards +Infinity for negatives too
    assert kilo_tokens(12500) == "13"
    assert kilo_tokens(12499) == "12"
    assert kilo_tokens(-1500) == "-1"
    assert kilo_tokens(-1700) == "-2"
    assert kilo_tokens(1e21) == "1000000000000000000"
    assert kilo_tokens(None) == "0"  # Number(null)
    assert kilo_tokens("12000") == "12"  # Number("12000")
    assert kilo_tokens("x") == "NaN"
    assert kilo_tokens(float("-inf")) == "-Infinity"
