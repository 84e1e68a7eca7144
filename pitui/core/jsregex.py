"""JavaScript regular expressions (``new RegExp(pattern, "i")``, no ``u`` flag) translated for
Python.

pi's picker search takes ``re:PATTERN`` queries (ui-behaviour §2.4); :func:`compile_js_regex`
translates such a pattern and compiles it with the ``regex`` package (in its ``re``-compatible
VERSION0), to be run on :func:`js_regex_subject` of a text by
:mod:`pitui.core.regex_search`, which bounds the time a match may take.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pitui.core.js import JS_WHITESPACE, js_upper_char, utf16_units

if TYPE_CHECKING:
    import regex

__all__ = ["compile_js_regex", "js_regex_subject"]

# ---------------------------------------------------------------------------------------------
# JavaScript regular expressions (new RegExp(pattern, "i"), no "u" flag) → Python re
# ---------------------------------------------------------------------------------------------
#
# The pattern is parsed as V8 parses it in non-Unicode mode (ECMAScript Annex B), one UTF-16 code
# unit at a time, and re-emitted as a Python pattern meant to run on the *canonical form* of the
# text: its unit form (utf16_units) with every unit replaced by JavaScript's Canonicalize of it
# (upper-case the one unit; keep it if the result is not one unit or would turn a non-ASCII unit
# into an ASCII one). Two units match under /i exactly when their canonical units are equal, so on
# that form literals, classes (as their canonical image) and backreferences need no IGNORECASE,
# whose equivalences differ (Python matches 'ſ' with 's', 'K' (Kelvin) with 'k', 'ı' and 'İ'
# with 'i'; JavaScript does not). The form has the text's length, so positions are unchanged, and
# case-free patterns get Python's fast literal search.
#
# Rare differences left out (pi would match, pitui does not, or the other way round):
# * captures inside a repeated group are not reset on each repetition in Python, so a
#   backreference to such a group after the loop may see an older capture;
# * lookbehind: Python needs a fixed width for each top-level alternative of a lookbehind
#   (JavaScript accepts any width, so such patterns give no results here), and JavaScript
#   matches lookbehinds right to left, which changes what backreferences inside one refer to;
# * group names are checked with Python's identifier rules (XID_Start/XID_Continue, plus '$')
#   where JavaScript uses ID_Start/ID_Continue: a handful of characters differ;
# * nesting deeper than Python's recursion allows, repetition counts of 2**31 and more, and
#   patterns Python's compiler rejects for its own limits count as invalid;
# * like pi, a catastrophically backtracking pattern takes very long.

_MAX_UNIT: Final = 0xFFFF
_REPEAT_INFINITY: Final = 2**31 - 1  # V8 clamps counts to kMaxInt and treats that as "no limit"

Intervals = list[tuple[int, int]]

_DIGIT_SET: Final[Intervals] = [(0x30, 0x39)]
_WORD_SET: Final[Intervals] = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]


def _normalize(intervals: Iterable[tuple[int, int]]) -> Intervals:
    out: Intervals = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def _complement(intervals: Intervals) -> Intervals:
    out: Intervals = []
    start = 0
    for lo, hi in _normalize(intervals):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _MAX_UNIT:
        out.append((start, _MAX_UNIT))
    return out


_SPACE_SET: Final[Intervals] = _normalize((ord(c), ord(c)) for c in JS_WHITESPACE)
_LINE_TERMINATORS: Final[Intervals] = [(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]
_CLASS_ESCAPES: Final[dict[str, Intervals]] = {
    "d": _DIGIT_SET,
    "D": _complement(_DIGIT_SET),
    "s": _SPACE_SET,
    "S": _complement(_SPACE_SET),
    "w": _WORD_SET,
    "W": _complement(_WORD_SET),
}


@dataclass(frozen=True, slots=True)
class _Canon:
    """JavaScript's Canonicalize (non-Unicode /i) for every UTF-16 code unit.

    Canonicalize(u): upper-case the single unit; keep u if the result is not one unit, or if it
    would turn a non-ASCII unit into an ASCII one. Two units match under /i exactly when their
    canonical units are equal.
    """

    changed: tuple[int, ...]  # sorted units whose canonical unit is another unit
    table: dict[int, int]  # unit -> canonical unit, for the changed units
    # Units for which str.upper() does not give the canonical unit (expands, ſ/ı-like guards,
    # letters newer than Python's Unicode): texts holding one need the slower translate().
    upper_differs: re.Pattern[str]
    # Changed units that are also some unit's canonical unit (Canonicalize not idempotent there).
    # None with the Unicode data of today's Python and Node; handled so a future table is safe.
    reachable_changed: frozenset[int]


@functools.cache
def _canon() -> _Canon:
    table: dict[int, int] = {}
    differs: list[int] = []
    for unit in range(_MAX_UNIT + 1):
        char = chr(unit)
        upper = js_upper_char(char)
        canon = unit
        if len(upper) == 1 and not (unit >= 128 and ord(upper) < 128):
            canon = ord(upper)
        if canon != unit:
            table[unit] = canon
        python_upper = char.upper()
        if len(python_upper) != 1 or ord(python_upper) != canon:
            differs.append(unit)
    pattern = re.compile(_emit_set(_normalize((u, u) for u in differs), negate=False))
    reachable = frozenset(c for c in table.values() if c in table)
    return _Canon(tuple(sorted(table)), table, pattern, reachable)


def _canonical_units(units: str) -> str:
    """A text in unit form with every unit replaced by its canonical unit (same length)."""
    if units.isascii():
        return units.upper()
    canon = _canon()
    if canon.upper_differs.search(units) is None:
        return units.upper()
    return units.translate(canon.table)


def _canon_image(intervals: Intervals) -> Intervals:
    """A class matching, in a canonical text, exactly the canonical units of ``intervals``."""
    canon = _canon()
    image: Intervals = []
    for lo, hi in intervals:
        first = bisect.bisect_left(canon.changed, lo)
        stop = bisect.bisect_right(canon.changed, hi)
        image.extend((canon.table[u], canon.table[u]) for u in canon.changed[first:stop])
    # A changed unit never occurs in a canonical text, so the intervals can stay whole (fewer,
    # wider ranges) — except for changed units that are also canonical units of others.
    result = _normalize([*intervals, *image])
    if canon.reachable_changed:
        images = {lo for lo, _ in image}
        drop = [
            u
            for u in canon.reachable_changed
            if u not in images and any(lo <= u <= hi for lo, hi in intervals)
        ]
        for unit in drop:
            result = [
                piece
                for lo, hi in result
                for piece in ((lo, min(hi, unit - 1)), (max(lo, unit + 1), hi))
                if piece[0] <= piece[1]
            ]
    return result


def _esc(unit: int) -> str:
    char = chr(unit)
    if char.isascii() and char.isalnum():
        return char
    return f"\\u{unit:04x}"


def _emit_set(intervals: Intervals, negate: bool) -> str:
    if not intervals:
        return r"[\u0000-\uffff]" if negate else "(?!)"
    if not negate and len(intervals) == 1 and intervals[0][0] == intervals[0][1]:
        return _esc(intervals[0][0])
    body = "".join(_esc(lo) if lo == hi else f"{_esc(lo)}-{_esc(hi)}" for lo, hi in intervals)
    return ("[^" if negate else "[") + body + "]"


class _JsSyntaxError(Exception):
    """The pattern is not a valid JavaScript regular expression (V8, non-Unicode mode)."""


_HEX: Final = frozenset("0123456789abcdefABCDEF")
_QUANT_CHARS: Final = frozenset("*+?")


def _count(digits: str) -> int:
    """A decimal count, clamped like V8 (and without Python's limit on huge digit strings)."""
    return _REPEAT_INFINITY if len(digits) > 10 else min(int(digits), _REPEAT_INFINITY)


def _scan_captures(p: str) -> tuple[int, bool]:
    """V8's ScanForCaptures: (number of capturing groups, whether any is named)."""
    count = 0
    named = False
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i += 1
            while i < n:
                d = p[i]
                i += 1
                if d == "\\":
                    i += 1
                elif d == "]":
                    break
            continue
        if c == "(":
            if p[i + 1 : i + 2] == "?":
                if p[i + 2 : i + 3] == "<" and p[i + 3 : i + 4] not in ("=", "!"):
                    count += 1
                    named = True
            else:
                count += 1
        i += 1
    return count, named


class _Translator:
    """Recursive-descent parser of a JavaScript pattern that emits a Python pattern."""

    def __init__(self, units: str) -> None:
        self.p = units
        self.i = 0
        self.n = len(units)
        self.total_groups, self.has_named = _scan_captures(units)
        self.opened = 0  # capturing groups opened so far (their number = order of opening)
        self.closed: set[int] = set()
        self.names: dict[str, int] = {}
        self.named_refs: list[str] = []  # names used by \k<…>, checked once all are known

    # -- helpers -------------------------------------------------------------------------------

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.p[j] if j < self.n else ""

    def translate(self) -> str:
        out = self.disjunction()
        if self.i < self.n:  # only a ')' stops the top level early
            raise _JsSyntaxError("Unmatched ')'")
        # Named references may point forwards, so they are resolved once every name is known;
        # here only unknown names remain to be rejected (emission already handled known ones).
        for name in self.named_refs:
            if name not in self.names:
                raise _JsSyntaxError("Invalid named capture referenced")
        return out

    def disjunction(self) -> str:
        alternatives = [self.alternative()]
        while self.peek() == "|":
            self.i += 1
            alternatives.append(self.alternative())
        return "|".join(alternatives)

    def alternative(self) -> str:
        parts: list[str] = []
        while self.i < self.n and self.p[self.i] not in "|)":
            parts.append(self.term())
        return "".join(parts)

    # -- terms ---------------------------------------------------------------------------------

    def term(self) -> str:
        c = self.p[self.i]
        if c == "^":
            self.i += 1
            return r"\A"  # no "m" flag: only the very start
        if c == "$":
            self.i += 1
            return r"\Z"  # only the very end (Python's \Z, unlike $, never before a final \n)
        if c == "\\" and self.peek(1) in ("b", "B"):
            boundary = self.p[self.i + 1]
            self.i += 2
            # Word characters are ASCII [0-9A-Za-z_]. Python's \B never matches in an empty
            # string, JavaScript's does, hence the explicit lookarounds.
            if boundary == "b":
                return r"(?a:\b)"
            return r"(?:(?<=[0-9A-Za-z_])(?=[0-9A-Za-z_])|(?<![0-9A-Za-z_])(?![0-9A-Za-z_]))"
        if c == "(" and self.p.startswith(("(?<=", "(?<!"), self.i):
            kind = self.p[self.i : self.i + 4]
            self.i += 4
            alternatives = [self.alternative()]
            while self.peek() == "|":
                self.i += 1
                alternatives.append(self.alternative())
            self.expect_close()
            # Not quantifiable (a quantifier after it is an error). Python wants one fixed width
            # per lookbehind, so each alternative gets its own: (?<=a|bc) is (?:(?<=a)|(?<=bc))
            # and (?<!a|bc) is (?<!a)(?<!bc).
            if len(alternatives) == 1:
                return f"{kind}{alternatives[0]})"
            each = [f"{kind}{alt})" for alt in alternatives]
            return "(?:" + "|".join(each) + ")" if kind == "(?<=" else "".join(each)
        if c in _QUANT_CHARS:
            raise _JsSyntaxError("Nothing to repeat")
        if c == "{" and self.braced_quantifier(self.i) is not None:
            raise _JsSyntaxError("Nothing to repeat")
        atom = self.atom()
        quantifier = self.quantifier()
        if quantifier:
            return f"(?:{atom}){quantifier}"
        return atom

    def braced_quantifier(self, start: int) -> tuple[int, int | None, int] | None:
        """Parse ``{n}``, ``{n,}`` or ``{n,m}`` at ``start``: (min, max or None, end) or None."""
        p, n = self.p, self.n
        j = start + 1
        k = j
        while k < n and "0" <= p[k] <= "9":
            k += 1
        if k == j:
            return None
        low = _count(p[j:k])
        if k < n and p[k] == "}":
            return low, low, k + 1
        if k >= n or p[k] != ",":
            return None
        k += 1
        if k < n and p[k] == "}":
            return low, None, k + 1
        j = k
        while k < n and "0" <= p[k] <= "9":
            k += 1
        if k == j or k >= n or p[k] != "}":
            return None
        high = _count(p[j:k])
        return low, high, k + 1

    def quantifier(self) -> str:
        c = self.peek()
        if c in _QUANT_CHARS and c:
            self.i += 1
            text = c
        elif c == "{":
            parsed = self.braced_quantifier(self.i)
            if parsed is None:
                return ""  # a literal '{' follows; it is parsed as the next atom
            low, high, end = parsed
            if high is not None and high < low:
                raise _JsSyntaxError("numbers out of order in {} quantifier")
            self.i = end
            if high is None or high >= _REPEAT_INFINITY:
                text = f"{{{low},}}"
            else:
                text = f"{{{low},{high}}}"
        else:
            return ""
        if self.peek() == "?":
            self.i += 1
            text += "?"
        return text

    def expect_close(self) -> None:
        if self.peek() != ")":
            raise _JsSyntaxError("Unterminated group")
        self.i += 1

    def atom(self) -> str:
        c = self.p[self.i]
        if c == ".":
            self.i += 1
            return _emit_set(_LINE_TERMINATORS, negate=True)
        if c == "(":
            return self.group()
        if c == "[":
            return self.char_class()
        if c == "\\":
            return self.atom_escape()
        # ']', '{' and '}' that do not start a quantifier are literals (Annex B).
        self.i += 1
        return self.literal(ord(c))

    def literal(self, unit: int) -> str:
        return _esc(_canon().table.get(unit, unit))

    def group(self) -> str:
        p = self.p
        if self.peek(1) != "?":
            self.i += 1
            return self.capture()
        if p.startswith("(?:", self.i):
            self.i += 3
            body = self.disjunction()
            self.expect_close()
            return f"(?:{body})"
        if p.startswith(("(?=", "(?!"), self.i):
            kind = p[self.i : self.i + 3]
            self.i += 3
            body = self.disjunction()
            self.expect_close()
            # Annex B lets a lookahead be quantified; the extra group lets Python accept that.
            return f"(?:{kind}{body}))"
        if p.startswith("(?<", self.i):
            self.i += 3
            name = self.group_name()
            if name in self.names:
                raise _JsSyntaxError("Duplicate capture group name")
            self.names[name] = self.opened + 1
            return self.capture()
        raise _JsSyntaxError("Invalid group")

    def capture(self) -> str:
        self.opened += 1
        number = self.opened
        body = self.disjunction()
        self.expect_close()
        self.closed.add(number)
        return f"({body})"

    def group_name(self) -> str:
        """Read ``name>`` (after ``(?<`` or ``\\k<``) and return the decoded name."""
        chars: list[int] = []
        p = self.p
        while True:
            if self.i >= self.n:
                raise _JsSyntaxError("Invalid capture group name")
            c = p[self.i]
            if c == ">":
                self.i += 1
                break
            if c == "\\":
                chars.append(self.name_escape())
                continue
            chars.append(ord(c))
            self.i += 1
        name = _combine_surrogates(chars)
        if not _valid_group_name(name):
            raise _JsSyntaxError("Invalid capture group name")
        return name

    def name_escape(self) -> int:
        p = self.p
        if self.peek(1) != "u":
            raise _JsSyntaxError("Invalid capture group name")
        j = self.i + 2
        if p[j : j + 1] == "{":
            end = p.find("}", j)
            digits = p[j + 1 : end] if end > 0 else ""
            if not digits or any(d not in _HEX for d in digits) or int(digits, 16) > 0x10FFFF:
                raise _JsSyntaxError("Invalid Unicode escape")
            self.i = end + 1
            return int(digits, 16)
        digits = p[j : j + 4]
        if len(digits) != 4 or any(d not in _HEX for d in digits):
            raise _JsSyntaxError("Invalid Unicode escape")
        self.i = j + 4
        return int(digits, 16)

    # -- escapes -------------------------------------------------------------------------------

    def atom_escape(self) -> str:
        p = self.p
        if self.i + 1 >= self.n:
            raise _JsSyntaxError("\\ at end of pattern")
        c = p[self.i + 1]
        if c in _CLASS_ESCAPES:
            self.i += 2
            return _emit_set(_canon_image(_CLASS_ESCAPES[c]), negate=False)
        if "1" <= c <= "9":
            j = self.i + 1
            k = j
            while k < self.n and "0" <= p[k] <= "9":
                k += 1
            number = _count(p[j:k])
            if number <= self.total_groups:
                self.i = k
                return self.backreference(number)
            if c in "89":
                self.i += 2
                return self.literal(ord(c))
            self.i += 1
            return self.literal(self.octal())
        if c == "k" and self.has_named:
            if self.peek(2) != "<":
                raise _JsSyntaxError("Invalid named reference")
            self.i += 3
            try:
                name = self.group_name()
            except _JsSyntaxError:
                raise _JsSyntaxError("Invalid named reference") from None
            self.named_refs.append(name)
            group = self.names.get(name)
            if group is None:
                # A forward reference (or an unknown name, rejected in translate()): the group
                # cannot have matched yet, so the reference matches the empty string.
                return "(?:)"
            return self.backreference(group)
        self.i += 1
        return self.literal(self.character_escape(in_class=False))

    def backreference(self, number: int) -> str:
        if number not in self.closed:
            # A group that is still open or comes later has not matched at this point (JavaScript
            # also clears captures of a repeated group on each repetition): matches empty.
            return "(?:)"
        # An unmatched group matches empty in JavaScript; in Python it would fail. On a
        # canonical text, plain equality is JavaScript's case-insensitive comparison.
        return f"(?({number})\\{number})"

    def octal(self) -> int:
        """Legacy octal escape at self.i (first digit 0-7): up to three digits, at most 0o377."""
        p = self.p
        value = ord(p[self.i]) - 0x30
        self.i += 1
        if self.i < self.n and "0" <= p[self.i] <= "7":
            value = value * 8 + ord(p[self.i]) - 0x30
            self.i += 1
            if value < 32 and self.i < self.n and "0" <= p[self.i] <= "7":
                value = value * 8 + ord(p[self.i]) - 0x30
                self.i += 1
        return value

    def character_escape(self, in_class: bool) -> int:
        """A CharacterEscape at self.i (just after the backslash); returns its code unit."""
        p = self.p
        c = p[self.i]
        simple = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
        if c in simple:
            self.i += 1
            return simple[c]
        if c == "c":
            nxt = self.peek(1)
            if nxt and (("a" <= nxt <= "z") or ("A" <= nxt <= "Z")):
                self.i += 2
                return ord(nxt) & 0x1F
            if in_class and nxt and (("0" <= nxt <= "9") or nxt == "_"):
                self.i += 2
                return ord(nxt) & 0x1F
            return 0x5C  # Annex B: the backslash is a literal and 'c' is read next
        if c == "0" and not ("0" <= self.peek(1) <= "9" and self.peek(1)):
            self.i += 1
            return 0
        if "0" <= c <= "7":
            return self.octal()
        if c == "x":
            digits = p[self.i + 1 : self.i + 3]
            if len(digits) == 2 and all(d in _HEX for d in digits):
                self.i += 3
                return int(digits, 16)
            self.i += 1
            return ord("x")
        if c == "u":
            digits = p[self.i + 1 : self.i + 5]
            if len(digits) == 4 and all(d in _HEX for d in digits):
                self.i += 5
                return int(digits, 16)
            self.i += 1
            return ord("u")  # no "u" flag: \u{41} is 'u' repeated 41 times
        if c == "k" and in_class and self.has_named:
            raise _JsSyntaxError("Invalid escape")
        self.i += 1
        return ord(c)  # identity escape: \e is 'e', \Z is 'Z', \A is 'A', \/ is '/', ...

    # -- classes -------------------------------------------------------------------------------

    def class_atom(self) -> tuple[int | None, Intervals | None]:
        """One class atom: (unit, None) for a character or (None, set) for \\d, \\w, ..."""
        p = self.p
        c = p[self.i]
        if c != "\\":
            self.i += 1
            return ord(c), None
        if self.i + 1 >= self.n:
            raise _JsSyntaxError("\\ at end of pattern")
        e = p[self.i + 1]
        if e in _CLASS_ESCAPES:
            self.i += 2
            return None, _CLASS_ESCAPES[e]
        if e == "b":
            self.i += 2
            return 0x08, None
        self.i += 1
        return self.character_escape(in_class=True), None

    def char_class(self) -> str:
        self.i += 1
        negate = False
        if self.peek() == "^":
            negate = True
            self.i += 1
        items: Intervals = []
        while True:
            if self.i >= self.n:
                raise _JsSyntaxError("Unterminated character class")
            if self.p[self.i] == "]":
                self.i += 1
                break
            first, first_set = self.class_atom()
            if self.peek() != "-":
                items.extend(_atom_intervals(first, first_set))
                continue
            self.i += 1
            if self.i >= self.n:
                raise _JsSyntaxError("Unterminated character class")
            if self.p[self.i] == "]":
                items.extend(_atom_intervals(first, first_set))
                items.append((0x2D, 0x2D))
                continue
            second, second_set = self.class_atom()
            if first is None or second is None:
                # Annex B: a class escape at either end makes the '-' a literal.
                items.extend(_atom_intervals(first, first_set))
                items.append((0x2D, 0x2D))
                items.extend(_atom_intervals(second, second_set))
                continue
            if first > second:
                raise _JsSyntaxError("Range out of order in character class")
            items.append((first, second))
        return _emit_set(_canon_image(_normalize(items)), negate)


def _atom_intervals(unit: int | None, intervals: Intervals | None) -> Intervals:
    if unit is not None:
        return [(unit, unit)]
    return intervals or []


def _combine_surrogates(units: list[int]) -> str:
    out: list[str] = []
    k = 0
    while k < len(units):
        u = units[k]
        if 0xD800 <= u <= 0xDBFF and k + 1 < len(units) and 0xDC00 <= units[k + 1] <= 0xDFFF:
            out.append(chr(0x10000 + ((u - 0xD800) << 10) + (units[k + 1] - 0xDC00)))
            k += 2
            continue
        out.append(chr(u))
        k += 1
    return "".join(out)


def _valid_group_name(name: str) -> bool:
    if not name:
        return False
    # '$' is allowed anywhere, ZWNJ/ZWJ after the first character; the rest is an identifier.
    first = name[0]
    if not (first in "$_" or first.isidentifier()):
        return False
    return all(ch in "$\u200c\u200d" or ("a" + ch).isidentifier() for ch in name[1:])


@functools.lru_cache(maxsize=256)
def compile_js_regex(pattern: str) -> regex.Pattern[str] | None:
    """``new RegExp(pattern, "i")`` as a Python pattern, or None when JavaScript rejects it.

    The result must be run on :func:`js_regex_subject` of a text (not on the text itself);
    positions there are JavaScript indices (:func:`pitui.core.regex_search.js_regex_search` does
    both). The comment above
    ``_MAX_UNIT`` lists the rare differences from JavaScript that are left out.
    """
    import regex  # (only for a re: query: its import is a tenth of pitui list's start)

    units = utf16_units(pattern)
    try:
        python_pattern = _Translator(units).translate()
        return regex.compile(python_pattern, regex.VERSION0)
    except (_JsSyntaxError, regex.error, RecursionError, OverflowError, ValueError):
        return None


def js_regex_subject(text: str) -> str:
    """The form of ``text`` that :func:`compile_js_regex` patterns run on (same UTF-16 length)."""
    return _canonical_units(utf16_units(text))
