"""How pitui writes numbers for people: the one place for sizes, counts, tokens, costs, ages and
times. Every screen, command and export calls these, so that one number always reads the same.

- bytes: ``90 B``, ``1.5 KiB``, ``3.2 MiB`` (binary units, one decimal past bytes);
- counts: ``687,350,623`` (thousands separators, always);
- tokens, where room is short: ``999``, ``12.3k``, ``456k``, ``7.8M`` (three significant digits);
- cost: ``$0.0130`` under a dollar, ``$182.73`` and ``$1,234.56`` from a dollar up;
- ages (the picker's column): ``now``, ``5m``, ``3h``, ``2d``, ``4w``, ``1mo``, ``1y``;
- durations: ``45 s``, ``12 min``, ``5 h``, ``3 days``;
- local times: ``2025-03-15 16:54`` (``seconds=True``: ``2025-03-15 16:54:32``), and the tree's
  label times (``HH:MM`` today, ``M/D HH:MM`` this year, else ``YY/M/D HH:MM``).

A value that is not a number (a damaged file's ``"input": "x"``) is written ``?``, never ``None``.
"""

from __future__ import annotations

import math
import time
from datetime import datetime
from typing import Any, Final

from pitui.core.js import js_number_string, js_to_number

__all__ = [
    "UNKNOWN_TIME",
    "format_age",
    "format_bytes",
    "format_cost",
    "format_count",
    "format_duration",
    "format_label_time",
    "format_local_time",
    "format_tokens",
    "kilo_tokens",
    "plural",
]

UNKNOWN_TIME: Final = "unknown time"


def _is_number(value: object) -> bool:
    return type(value) in (int, float) and value == value  # not bool, not NaN


def format_bytes(size: float | None) -> str:
    """``size`` bytes in binary units, one decimal past bytes; ``None`` (unknown): ``? bytes``."""
    if size is None:
        return "? bytes"
    if size < 1024:
        return f"{size:.0f} B"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if value < 1024 or unit == "GiB":
            break
    return f"{value:.1f} {unit}"


def format_count(value: object) -> str:
    """A count with thousands separators: ``15,880``; a fraction keeps one decimal
    (``12,345.6``); ±Infinity as JavaScript writes it; a non-number ``?``."""
    if not _is_number(value):
        return "?"
    number = float(value)  # type: ignore[arg-type]
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if type(value) is int or number.is_integer():
        return f"{int(number):,}"
    return f"{number:,.1f}"


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 line``, ``2,345 lines``; ``words`` when the plural is not ``word`` + s."""
    return f"{format_count(count)} {word if count == 1 else words or word + 's'}"


_TOKEN_UNITS: Final = ((1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T"))


def kilo_tokens(value: Any) -> str:
    """Thousands of tokens as pi writes a compaction's ``tokensBefore``: JavaScript's
    ``Math.round(value / 1000)`` (half rounds up: 12500 → 13, -1500 → -1) of ``Number(value)``,
    written as JavaScript writes numbers (``NaN`` for what is not one)."""
    number = js_to_number(value)
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    return js_number_string(math.floor(number / 1000 + 0.5))


def format_tokens(value: object) -> str:
    """A token count in little room: ``999``, ``12.3k``, ``456k``, ``7.8M``, ``1.2G``, ``3.4T``;
    beyond that (only a damaged or hostile usage says so) ``1.0e+308``, not 300 digits."""
    if not _is_number(value) or math.isinf(float(value)):  # type: ignore[arg-type]
        return format_count(value)
    number = float(value)  # type: ignore[arg-type]
    sign, number = ("-" if number < 0 else ""), abs(number)
    if round(number) < 1000:
        return f"{sign}{round(number)}"
    for scale, suffix in _TOKEN_UNITS:
        scaled = number / scale
        if round(scaled, 1) < 100:
            return f"{sign}{scaled:.1f}{suffix}"
        if round(scaled) < 1000:
            return f"{sign}{scaled:.0f}{suffix}"  # (999.6k is the next unit's 1.0M)
    return f"{sign}{number:.1e}"


def format_cost(value: object) -> str:
    """Dollars: four decimals under a dollar (``$0.0130``: small costs stay readable), two from
    a dollar up (``$182.73``, ``$1,234.56``); a non-number ``?``."""
    if not _is_number(value) or math.isinf(float(value)):  # type: ignore[arg-type]
        return "?"
    number = float(value)  # type: ignore[arg-type]
    sign, number = ("-" if number < 0 else ""), abs(number)
    if round(number, 4) < 1:
        return f"{sign}${number:.4f}"
    return f"{sign}${number:,.2f}"


def format_age(modified_ms: float, now_ms: float | None = None) -> str:
    """The picker's age column (ui §2.2): now, 5m, 3h, 2d, 4w, 1mo, 1y (whole-unit floors)."""
    now = time.time() * 1000 if now_ms is None else now_ms
    seconds = (now - modified_ms) / 1000
    if seconds < 60:
        return "now"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 24:
        return f"{hours}h"
    days = hours // 24
    if days < 7:
        return f"{days}d"
    if days < 30:
        return f"{days // 7}w"
    if days < 365:
        return f"{days // 30}mo"
    return f"{days // 365}y"


def format_duration(seconds: float) -> str:
    """How long something has lasted: ``45 s``, ``12 min``, ``5 h``, ``3 days``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


def _local(ms: float | None) -> datetime | None:
    if ms is None or not _is_number(ms):
        return None
    try:
        return datetime.fromtimestamp(ms / 1000).astimezone()
    except (OverflowError, OSError, ValueError):
        return None  # outside what the platform can convert


def format_local_time(ms: float | None, *, seconds: bool = False) -> str | None:
    """Epoch milliseconds as local time, ``2025-03-15 16:54`` (``:32`` with ``seconds``);
    ``None`` when there is no time or the platform cannot convert it (callers say how that
    reads: :data:`UNKNOWN_TIME`, or nothing)."""
    when = _local(ms)
    if when is None:
        return None
    return when.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def format_label_time(ms: float | None, now: datetime | None = None) -> str | None:
    """The tree's label time (ui §3.5), local: ``HH:MM`` today, ``M/D HH:MM`` this year, else
    ``YY/M/D HH:MM``; ``None`` without a time."""
    when = _local(ms)
    if when is None:
        return None
    today = (now or datetime.now()).astimezone()
    clock = f"{when.hour:02d}:{when.minute:02d}"
    if (when.year, when.month, when.day) == (today.year, today.month, today.day):
        return clock
    if when.year == today.year:
        return f"{when.month}/{when.day} {clock}"
    return f"{str(when.year)[-2:]}/{when.month}/{when.day} {clock}"
