"""pitui.core.js on its own (the table compared with node is in ``test_js_node.py``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitui.core.js import (
    UNDEFINED,
    iso_from_ms,
    js_date_ms,
    js_join,
    js_string,
    js_to_number,
    js_truthy,
    json_number,
    label_text,
    normalize_session_name,
    parse_iso_ms,
)
from pitui.core.stringify import dump_json_line
from tests.conftest import local_zone

# ------------------------------------------------------------------------------------------------
# Timestamps (values from Node's `new Date(s).getTime()`)


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("2025-01-01T12:34:56.789Z", 1735734896789),
        ("2025-01-01T12:34:56.7891Z", 1735734896789),
        ("2025-01-01T12:34:56.7Z", 1735734896700),
        ("2025-01-01T12:34:56Z", 1735734896000),
        ("2025-01-01T12:34Z", 1735734840000),
        ("2025-01-01", 1735689600000),
        ("2025-01", 1735689600000),
        ("2025", 1735689600000),
        ("2025-01-01t12:34:56z", 1735734896000),
        ("2025-01-01 12:34:56Z", 1735734896000),
        ("2025-01-01T24:00:00Z", 1735776000000),
        ("2025-01-01T12:34:56+02:00", 1735727696000),
        ("2025-01-01T12:34:56+0200", 1735727696000),
        ("2025-01-01T12:34:56.789-05:30", 1735754696789),
        ("+002025-01-01T00:00:00Z", 1735689600000),
        ("0000-01-01T00:00:00Z", -62167219200000),
        ("2024-02-29T00:00:00Z", 1709164800000),
        ("20250101T123456Z", None),
        ("2025-13-01", None),
        ("2025-01-01T25:00:00Z", None),
        ("2025-01-01T24:00:01Z", None),
        ("2025-01-01T12:34:60Z", None),
        ("2025-02-29T00:00:00Z", 1740787200000),  # V8 rolls the day over: March 1
        ("-000000-01-01T00:00:00Z", None),
        ("2025-01-01T12:34:56+24:00", None),
        ("Jan 1 2025", None),  # V8's non-ISO fallback is not imitated
        ("x", None),
        ("", None),
        (None, None),
        (1735734896789, None),
    ],
)
def test_parse_iso_ms(text: Any, ms: int | None) -> None:
    assert parse_iso_ms(text) == ms


@pytest.mark.parametrize(("tz", "offset_hours"), [("UTC0", 0), ("JST-9", 9), ("EST5", -5)])
def test_parse_iso_ms_without_offset_is_local_time(tz: str, offset_hours: int) -> None:
    with local_zone(tz):  # POSIX zone strings: no tz database needed
        expected = 1735734896000 - offset_hours * 3_600_000
        assert parse_iso_ms("2025-01-01T12:34:56") == expected
        assert parse_iso_ms("2025-01-01") == 1735689600000  # date-only is UTC regardless


@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)))
def test_parse_iso_ms_matches_datetime_for_pi_timestamps(moment: datetime) -> None:
    moment = moment.replace(microsecond=moment.microsecond // 1000 * 1000, tzinfo=UTC)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    text = text.zfill(24)  # strftime does not pad years below 1000 everywhere
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    assert parse_iso_ms(text) == (moment - epoch) // timedelta(milliseconds=1)


# ------------------------------------------------------------------------------------------------
# new Date(value) and toISOString


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-03-15T15:54:32.595Z", 1742054072595.0),
        ("2025-03-15T15:54:32Z", 1742054072000.0),  # not pi's format: the general parser
        ("2025-03-15", 1741996800000.0),
        ("2025-02-30T00:00:00.000Z", 1740873600000.0),  # V8: March 2
        ("2025-02-32T00:00:00.000Z", None),
        ("garbage", None),
        (1.9, 1.0),
        (-1.9, -1.0),
        (8.64e15, 8.64e15),
        (8.64e15 + 1, None),
        (None, 0.0),
        (True, 1.0),
        ([], None),
    ],
)
def test_js_date_ms(value: Any, expected: float | None) -> None:
    assert js_date_ms(value) == expected


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "1970-01-01T00:00:00.000Z"),
        (1742054072595, "2025-03-15T15:54:32.595Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (253402300800000, "+010000-01-01T00:00:00.000Z"),
        (-62198755200000, "-000001-01-01T00:00:00.000Z"),
        (8.64e15, "+275760-09-13T00:00:00.000Z"),
    ],
)
def test_iso_from_ms(ms: float, text: str) -> None:
    assert iso_from_ms(ms) == text


@given(st.integers(min_value=-62135596800000, max_value=253402300799999))
def test_iso_round_trip(ms: int) -> None:
    assert js_date_ms(iso_from_ms(ms)) == ms


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (7.5e-6, "0.0000075"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1.0, "1"),
        (-0.0, "0"),
        (-2.5, "-2.5"),
        (2.0**53, "9007199254740992"),
        (1e16, "10000000000000000"),
        (123456789012345680000.0, "123456789012345680000"),
        (1e21, "1e+21"),
        (1.5e300, "1.5e+300"),
        (5e-324, "5e-324"),
        (float("nan"), "null"),
        (float("inf"), "null"),
    ],
)
def test_json_number(value: float, text: str) -> None:
    assert json_number(value) == text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_json_number_round_trips(value: float) -> None:
    text = json_number(value)
    assert float(text) == value
    assert dump_json_line(value) == text.encode() + b"\n"


# ------------------------------------------------------------------------------------------------
# Values


def test_string_of_null_and_undefined_differs_from_join() -> None:
    assert js_string(None) == "null" and js_string(UNDEFINED) == "undefined"
    assert js_join([None, UNDEFINED, 1], ",") == ",,1"  # join drops both
    assert js_string([None, [UNDEFINED, -0.0]]) == ",,0"
    assert js_string({"a": 1}) == "[object Object]"


def test_truthiness_and_labels() -> None:
    falsy: tuple[object, ...] = (0, -0.0, float("nan"), "", None, UNDEFINED, False)
    assert not any(js_truthy(v) for v in falsy)
    truthy: tuple[object, ...] = ([], {}, "0", " ", -1, float("inf"))
    assert all(js_truthy(v) for v in truthy)
    assert label_text(0) is None and label_text("") is None
    assert label_text(1.5e-7) == "1.5e-7" and label_text(True) == "true"


def test_number_of_strings() -> None:
    assert js_to_number(" 0x1f ") == 31 and js_to_number("") == 0
    assert js_to_number("-Infinity") == float("-inf")
    for text in ("inf", "1_000", "-0x1", "12px"):
        assert js_to_number(text) != js_to_number(text)  # NaN


def test_session_name_is_normalized_like_pi() -> None:
    assert normalize_session_name(" a\r\n\r\nb \ufeff") == "a b"
