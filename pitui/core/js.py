"""pi's JavaScript semantics, in one place (tested against node: ``tests/core/test_js_node.py``).

pi is written in TypeScript, so "trim", "white space", "length", "lower case", ``String(x)``,
truthiness and ``new Date(s)`` mean what JavaScript says, not what Python's ``str``, ``bool`` or
``datetime`` do (spec: session-format §8.2, ui-behaviour §2.5). JSON values arrive as Python
values: ``None`` is ``null``; a key that is absent is :data:`UNDEFINED`.

No pydantic, no Rich: the listing and the session reader import this module on their hot path.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta
from typing import Any, Final

__all__ = [
    "JS_WHITESPACE",
    "JS_WHITESPACE_RUN",
    "MAX_DATE_MS",
    "UNDEFINED",
    "iso_from_ms",
    "js_date_ms",
    "js_is_space",
    "js_join",
    "js_lower",
    "js_number_string",
    "js_string",
    "js_to_number",
    "js_trim",
    "js_truthy",
    "js_upper_char",
    "json_number",
    "label_text",
    "normalize_session_name",
    "parse_iso_ms",
    "utf16_len",
    "utf16_slice",
    "utf16_units",
]


class _Undefined:
    """JavaScript's ``undefined``: what reading an absent key gives."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Final = _Undefined()

# ------------------------------------------------------------------------------------------------
# White space and trim

# JavaScript's `\s` (and the set String.prototype.trim removes): WhiteSpace + LineTerminator.
JS_WHITESPACE: Final = (
    "\t\n\x0b\x0c\r \u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_WHITESPACE_RUN: Final = re.compile("[" + re.escape(JS_WHITESPACE) + "]+")
_LINE_BREAK_RUN: Final = re.compile(r"[\r\n]+")


def js_trim(text: str) -> str:
    """``String.prototype.trim``: strips exactly JavaScript's white space, U+FEFF included."""
    return text.strip(JS_WHITESPACE)


def js_is_space(char: str) -> bool:
    return char in JS_WHITESPACE


def normalize_session_name(name: str) -> str:
    """Name as pi 1.x writes it: runs of CR/LF become one space, then trimmed (format §8.2)."""
    return js_trim(_LINE_BREAK_RUN.sub(" ", name))


# ------------------------------------------------------------------------------------------------
# UTF-16: JavaScript strings are sequences of 16-bit code units

_ASTRAL: Final = re.compile("[\U00010000-\U0010ffff]")


def utf16_len(text: str) -> int:
    """``text.length``: UTF-16 code units (a non-BMP character counts 2, a lone surrogate 1)."""
    if text.isascii():
        return len(text)
    # Encoding is a fast C loop; a regex scan for non-BMP characters is ten times slower.
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _has_astral(text: str) -> bool:
    return not text.isascii() and utf16_len(text) != len(text)


def _split_astral(match: re.Match[str]) -> str:
    cp = ord(match.group()) - 0x10000
    return chr(0xD800 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF))


def utf16_units(text: str) -> str:
    """``text`` with every non-BMP character replaced by its UTF-16 surrogate pair.

    In the result ``len``, indices, ``str.find`` and ``re`` count UTF-16 code units, as JavaScript
    does. Strings without such characters are returned unchanged (the common case, checked fast).
    """
    if not _has_astral(text):
        return text
    return _ASTRAL.sub(_split_astral, text)


def utf16_slice(text: str, units: int) -> str:
    """``text.slice(0, units)`` in UTF-16 code units; a pair cut in half is dropped (pitui
    never shows half a character where pi would show a lone surrogate)."""
    head = text[:units]
    if head.isascii() or not head or max(head) <= "\uffff":
        return head
    used = 0
    for index, char in enumerate(text):
        used += 2 if ord(char) > 0xFFFF else 1
        if used > units:
            return text[:index]
    return text


# ------------------------------------------------------------------------------------------------
# Case


# Case mappings that JavaScript (Node 20.20, ICU 78, Unicode 17) has and Python 3.11's Unicode 14
# database lacks (new letters of Unicode 16/17; a Node with an older ICU lacks them too, so pi
# itself differs between Node builds here). A full comparison of every code point's
# toLowerCase/toUpperCase against str.lower/str.upper found exactly these 55 pairs and no other
# difference; final-sigma handling (Σ → ς at the end of a word) agrees too. The tables give
# JavaScript's result directly, so they stay right on newer Pythons that know these letters.
# Not covered: final sigma next to one of these new letters (Python does not know they are cased,
# so 'Σ' beside a Garay letter may lower to 'ς' where JavaScript gives 'σ', or the reverse).
def _new_case_pairs() -> list[tuple[int, int]]:
    pairs = [
        (0x1C89, 0x1C8A),
        (0xA7CB, 0x0264),
        (0xA7CC, 0xA7CD),
        (0xA7CE, 0xA7CF),
        (0xA7D2, 0xA7D3),
        (0xA7D4, 0xA7D5),
        (0xA7DA, 0xA7DB),
        (0xA7DC, 0x019B),
    ]
    pairs += [(cp, cp + 0x20) for cp in range(0x10D50, 0x10D66)]  # Garay
    pairs += [(cp, cp + 0x1B) for cp in range(0x16EA0, 0x16EB9)]  # Beria Erfe
    return pairs


_JS_EXTRA_LOWER: Final[dict[int, int]] = dict(_new_case_pairs())
_JS_EXTRA_UPPER: Final[dict[int, int]] = {low: up for up, low in _new_case_pairs()}
# Single-character `in` tests are memchr-fast; a regex character class scan is not.
_EXTRA_LOWER_BMP: Final = tuple(chr(cp) for cp in _JS_EXTRA_LOWER if cp <= 0xFFFF)
_EXTRA_LOWER_ASTRAL: Final = re.compile("[\U00010d50-\U00010d65\U00016ea0-\U00016eb8]")


def js_lower(text: str) -> str:
    """``String.prototype.toLowerCase``.

    Python's ``str.lower`` already agrees with it on full mappings (``'İ'`` → ``'i̇'``, two code
    points, in both) and on final sigma; the only differences are letters newer than Python's
    Unicode database, patched here (see ``_new_case_pairs``).
    """
    lowered = text.lower()
    if lowered.isascii():
        return lowered
    if any(ch in lowered for ch in _EXTRA_LOWER_BMP) or (
        _has_astral(lowered) and _EXTRA_LOWER_ASTRAL.search(lowered) is not None
    ):
        return lowered.translate(_JS_EXTRA_LOWER)
    return lowered


def js_upper_char(char: str) -> str:
    """``char.toUpperCase()`` of one character (may give several, like ``'ß'`` → ``'SS'``)."""
    extra = _JS_EXTRA_UPPER.get(ord(char))
    return chr(extra) if extra is not None else char.upper()


# ------------------------------------------------------------------------------------------------
# Values: String(), truthiness, Number()


def js_number_string(value: float) -> str:
    """``String(number)``: shortest round-trip digits in JavaScript's notation.

    Python's ``repr`` and JavaScript both print the shortest digit string that round-trips (the
    closest one on ties), so only the layout differs: JavaScript uses plain notation for
    1e-7 <= |x| < 1e21, no ``.0`` on integral values, and ``e+``/``e-`` exponents otherwise.
    """
    if value != value:
        return "NaN"
    if value in (math.inf, -math.inf):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"  # -0 too
    if type(value) is int:
        value = float(value)  # a big int prints as the double JavaScript would hold
    text = repr(float(value))
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    int_part, _, frac_part = mantissa.partition(".")
    if int_part == "0":
        stripped = frac_part.lstrip("0")
        point = exponent - (len(frac_part) - len(stripped))  # value = 0.<digits> * 10**point
        digits = stripped.rstrip("0")
    else:
        point = len(int_part) + exponent
        digits = (int_part + frac_part).rstrip("0")
    count = len(digits)
    if count <= point <= 21:
        body = digits + "0" * (point - count)
    elif 0 < point <= 21:
        body = digits[:point] + "." + digits[point:]
    elif -6 < point <= 0:
        body = "0." + "0" * -point + digits
    else:
        exp = point - 1
        body = digits[0] + ("." + digits[1:] if count > 1 else "") + ("e+" if exp >= 0 else "e-")
        body += str(abs(exp))
    return sign + body


def json_number(value: float) -> str:
    """``JSON.stringify(number)``: like ``String`` but NaN and ±Infinity are ``null``."""
    if value != value or value in (math.inf, -math.inf):
        return "null"
    return js_number_string(value)


def js_string(value: Any) -> str:
    """``String(value)`` (and template interpolation) for a JSON value."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int and abs(value) < 2**53:
        return str(value)
    if type(value) in (int, float):
        return js_number_string(value)
    if isinstance(value, list | tuple):
        return js_join(value, ",")
    return "[object Object]"


def js_join(parts: Any, separator: str = ",") -> str:
    """``array.join(separator)``: null and undefined items become empty strings."""
    return separator.join("" if p is None or p is UNDEFINED else js_string(p) for p in parts)


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value: "", 0, -0, NaN, false, null and undefined are false;
    objects and arrays, even empty ones, are true."""
    if value is None or value is False or value is UNDEFINED:
        return False
    if isinstance(value, str):
        return value != ""
    if type(value) in (int, float):
        return bool(value == value and value != 0)
    return True


def label_text(value: Any) -> str | None:
    """A label's value as pi keeps it: a falsy one clears the label (``None``); a truthy one is
    shown as ``String(value)``."""
    return js_string(value) if js_truthy(value) else None


_NUMERIC_LITERAL: Final = re.compile(
    r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+",
    re.ASCII,
)


def js_to_number(value: Any) -> float:
    """``Number(value)`` for a JSON value (NaN for what is not a number)."""
    if value is None or value is False:
        return 0.0
    if value is True:
        return 1.0
    if type(value) in (int, float):
        return float(value)
    if isinstance(value, str):
        text = js_trim(value)
        if not text:
            return 0.0
        if _NUMERIC_LITERAL.fullmatch(text) is None:
            return math.nan
        if text[:2].lower() in ("0x", "0o", "0b"):
            return float(int(text, 0))
        return float(text.replace("Infinity", "inf"))
    if isinstance(value, list):
        return js_to_number(js_string(value))  # ToPrimitive: the array's join
    return math.nan


# ------------------------------------------------------------------------------------------------
# Dates: new Date(s).getTime() and toISOString()

# The ECMAScript date-time string format (what `new Date(s)` parses without falling back to
# engine-specific heuristics), with V8's tolerance of a space or lower-case t/z.
_ISO_RE: Final = re.compile(
    r"([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2}))?)?"
    r"(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|[+-]\d{2}:?\d{2})?)?",
    re.ASCII,
)
# pi's own format, parsed without the general regex (the listing reads one per entry).
_ISO_PI: Final = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z", re.ASCII)
_MS_PER_DAY: Final = 86_400_000
# The Date range (TimeClip): beyond it `new Date(x)` is an Invalid Date.
MAX_DATE_MS: Final = 8.64e15


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar (any year, like JavaScript)."""
    year -= month <= 2
    era = year // 400  # Python's // floors: no adjustment for negative years is needed
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def parse_iso_ms(value: Any) -> int | None:
    """``Date.parse(s)`` for an ISO timestamp: epoch milliseconds, ``None`` if unparseable.

    pi writes ``YYYY-MM-DDTHH:MM:SS.mmmZ``. Also accepted, as JavaScript does: date-only forms
    (UTC), times without seconds, any number of fraction digits (truncated to ms), offsets
    ``±HH:MM`` / ``±HHMM``, ``24:00``, expanded years. A date-time without offset is local time.
    A day past the month's end rolls over as in V8 (``2025-02-30`` is March 2). Engine-specific
    fallbacks (``"Jan 1 2025"``) are not imitated: they give None.
    """
    if not isinstance(value, str):
        return None
    fast = _ISO_PI.fullmatch(value)
    if fast is not None:
        year, month, day, hour, minute, second, millis = map(int, fast.groups())
        if 1 <= month <= 12 and 1 <= day <= 31 and hour <= 23 and minute <= 59 and second <= 59:
            days = _days_from_civil(year, month, day)
            return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
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
    if not 1 <= day <= 31 or minute > 59 or second > 59:  # V8: 2025-02-30 is March 2
        return None
    if hour > 24 or (hour == 24 and (minute or second or millis)):
        return None
    wall_ms = (
        _days_from_civil(year, month, day) * _MS_PER_DAY
        + ((hour * 60 + minute) * 60 + second) * 1000
        + millis
    )
    if offset_s is None:
        result = wall_ms if hour_s is None else wall_ms - _local_offset_ms(wall_ms)
    elif offset_s in ("Z", "z"):
        result = wall_ms
    else:
        digits = offset_s[1:].replace(":", "")
        off_h, off_m = int(digits[:2]), int(digits[2:])
        if off_h > 23 or off_m > 59:
            return None
        offset_ms = (off_h * 60 + off_m) * 60_000
        result = wall_ms - offset_ms if offset_s[0] == "+" else wall_ms + offset_ms
    return result if abs(result) <= MAX_DATE_MS else None


def _local_offset_ms(wall_ms: int) -> int:
    """UTC offset (ms) of the local zone at a local wall-clock time given as ms since 1970."""
    try:
        naive = datetime(1970, 1, 1) + timedelta(milliseconds=wall_ms)
        offset = naive.astimezone().utcoffset()  # a naive datetime is taken as local time
    except (OverflowError, OSError, ValueError):
        return 0  # outside what the platform can convert: treat as UTC
    return 0 if offset is None else offset // timedelta(milliseconds=1)


def js_date_ms(value: Any) -> float | None:
    """``new Date(value).getTime()`` for a JSON value; ``None`` for an Invalid Date (NaN)."""
    ms: float | None
    if isinstance(value, str):
        parsed = parse_iso_ms(value)
        ms = None if parsed is None else float(parsed)
    elif value is None or value is False:
        ms = 0.0
    elif value is True:
        ms = 1.0
    elif type(value) in (int, float):
        ms = float(value)
    else:
        return None
    if ms is None or not math.isfinite(ms) or abs(ms) > MAX_DATE_MS:
        return None
    return float(math.trunc(ms)) + 0.0  # TimeClip: toward zero, and -0 becomes 0


def iso_from_ms(ms: float) -> str:
    """``new Date(ms).toISOString()``: ``2025-03-15T15:54:32.595Z``; ±YYYYYY years outside
    0…9999, as JavaScript writes them."""
    whole = int(ms)
    days, rem = divmod(whole, _MS_PER_DAY)
    # civil from days (Howard Hinnant's algorithm): any year, proleptic Gregorian
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (month <= 2)
    hours, rem = divmod(rem, 3_600_000)
    minutes, rem = divmod(rem, 60_000)
    seconds, millis = divmod(rem, 1000)
    sign = "" if 0 <= year <= 9999 else "-" if year < 0 else "+"
    year_text = f"{sign}{abs(year):06d}" if sign else f"{year:04d}"
    return (
        f"{year_text}-{month:02d}-{day:02d}T{hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}Z"
    )
