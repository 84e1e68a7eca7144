"""ISO timestamps read exactly as JavaScript's ``new Date(s).getTime()`` (no pydantic, no Rich)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

_ISO_RE = re.compile(
    r"([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2}))?)?"
    r"(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|[+-]\d{2}:?\d{2})?)?"
)
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MS_PER_DAY = 86_400_000


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar (any year, like JavaScript)."""
    year -= month <= 2
    era = (year if year >= 0 else year - 399) // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def parse_iso_ms(value: Any) -> int | None:
    """Epoch milliseconds of an ISO timestamp as ``new Date(s).getTime()``; None if unparseable.

    pi writes ``YYYY-MM-DDTHH:MM:SS.mmmZ``. Also accepted, as JavaScript does: date-only forms
    (UTC), times without seconds, any number of fraction digits (truncated to ms), offsets
    ``±HH:MM`` / ``±HHMM``, ``24:00``, expanded years. A date-time without offset is local time.
    Engine-specific fallbacks (``"Jan 1 2025"``, day overflow) are not imitated: they give None.
    """
    if not isinstance(value, str):
        return None
    match = _ISO_RE.fullmatch(value)
    if match is None:
        return None
    year_s, month_s, day_s, hour_s, minute_s, second_s, frac_s, offset_s = match.groups()
    if year_s == "-000000":
        return None  # ECMAScript forbids a negative zero year
    year = int(year_s)
    month = int(month_s) if month_s else 1
    day = int(day_s) if day_s else 1
    hour = int(hour_s) if hour_s else 0
    minute = int(minute_s) if minute_s else 0
    second = int(second_s) if second_s else 0
    millis = int((frac_s + "00")[:3]) if frac_s else 0
    if not 1 <= month <= 12:
        return None
    days_in_month = 29 if month == 2 and _is_leap(year) else _DAYS_IN_MONTH[month - 1]
    if not 1 <= day <= days_in_month or minute > 59 or second > 59:
        return None
    if hour > 24 or (hour == 24 and (minute or second or millis)):
        return None
    wall_ms = (
        _days_from_civil(year, month, day) * _MS_PER_DAY
        + ((hour * 60 + minute) * 60 + second) * 1000
        + millis
    )
    if offset_s is None:
        if hour_s is None:
            return wall_ms  # date-only forms are UTC
        return wall_ms - _local_offset_ms(wall_ms)
    if offset_s in ("Z", "z"):
        return wall_ms
    digits = offset_s[1:].replace(":", "")
    off_h, off_m = int(digits[:2]), int(digits[2:])
    if off_h > 23 or off_m > 59:
        return None
    offset_ms = (off_h * 60 + off_m) * 60_000
    return wall_ms - offset_ms if offset_s[0] == "+" else wall_ms + offset_ms


def _local_offset_ms(wall_ms: int) -> int:
    """UTC offset (ms) of the local zone at a local wall-clock time given as ms since 1970."""
    try:
        naive = datetime(1970, 1, 1) + timedelta(milliseconds=wall_ms)
        offset = naive.astimezone().utcoffset()  # a naive datetime is taken as local time
    except (OverflowError, OSError, ValueError):
        return 0  # outside what the platform can convert: treat as UTC
    return 0 if offset is None else offset // timedelta(milliseconds=1)
