"""pi 0.73.1's session-picker search and sort, reproduced exactly (ui-behaviour §2.4-§2.6).

pi is JavaScript, and its ranking depends on JavaScript details, so this module works the way a
JavaScript string does:

* indices and lengths are UTF-16 code units: a character outside the BMP counts as two and its two
  surrogates are matched independently. Internally every text is turned into its *unit form*
  (:func:`utf16_units`): the same str with each non-BMP character replaced by its two surrogates,
  so that ``len``, indexing, ``str.find`` and ``re`` all count code units;
* "whitespace" is JavaScript's ``\\s`` (:data:`JS_WHITESPACE`), "trim" is ``String.prototype.trim``
  and "lower case" is ``String.prototype.toLowerCase`` (:func:`js_lower`);
* ``re:`` patterns are JavaScript regular expressions (``new RegExp(p, "i")``, no ``u`` flag),
  translated to Python's ``re`` by :func:`compile_js_regex`;
* scores are IEEE doubles computed with the same operations in the same order as pi, so ties and
  near-ties order the same way.

Everything here is pure computation. The only exception is the default ``normalize_path`` of
:func:`filter_and_sort`, which resolves symbolic links like pi does (``realpath``).

Speed: the picker re-filters every session on each key press. The lowered unit form of each
searched text is cached (keyed by the text itself, bounded; :func:`prepare_search_texts` fills
it ahead, :func:`clear_search_cache` empties it). A fuzzy token is matched with one ``str.find``
per query unit, which lands exactly where pi's unit-by-unit walk takes its matches, and only
those positions are scored in Python. :func:`filter_and_sort` remembers, for the tokens of the
last few queries, each text's score and walk state: re-sorting, toggling a filter or deleting a
character rescores nothing, typing another word scores only that word, and typing one more
letter of a token only continues each text's walk by one ``find``.
"""

from __future__ import annotations

import bisect
import functools
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Generic, Literal, NamedTuple, Protocol, TypeVar

from pitui.core.jstext import JS_WHITESPACE, JS_WHITESPACE_RUN, js_trim
from pitui.core.paths import default_normalize_path

__all__ = [
    "JS_WHITESPACE",
    "Query",
    "Row",
    "SearchableSession",
    "SortMode",
    "Token",
    "clear_search_cache",
    "compile_js_regex",
    "default_normalize_path",
    "display_title",
    "filter_and_sort",
    "fuzzy_score",
    "has_name",
    "js_lower",
    "js_regex_search",
    "js_regex_subject",
    "js_trim",
    "named_filter",
    "parse_query",
    "prepare_search_texts",
    "score",
    "searchable_text",
    "utf16_len",
    "utf16_units",
]

SortMode = Literal["threaded", "recent", "relevance"]

# ---------------------------------------------------------------------------------------------
# JavaScript strings
# ---------------------------------------------------------------------------------------------

_ASTRAL: Final = re.compile("[\U00010000-\U0010ffff]")


def _split_astral(match: re.Match[str]) -> str:
    cp = ord(match.group()) - 0x10000
    return chr(0xD800 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF))


def utf16_len(text: str) -> int:
    """JavaScript's ``text.length``: the number of UTF-16 code units."""
    if text.isascii():
        return len(text)
    # Encoding is a fast C loop; a regex scan for non-BMP characters is ten times slower.
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _has_astral(text: str) -> bool:
    return not text.isascii() and utf16_len(text) != len(text)


def utf16_units(text: str) -> str:
    """``text`` with every non-BMP character replaced by its UTF-16 surrogate pair.

    In the result ``len``, indices, ``str.find`` and ``re`` count UTF-16 code units, as JavaScript
    does. Strings without such characters are returned unchanged (the common case, checked fast).
    """
    if not _has_astral(text):
        return text
    return _ASTRAL.sub(_split_astral, text)


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
    """JavaScript's ``String.prototype.toLowerCase``.

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


def _js_upper_char(char: str) -> str:
    extra = _JS_EXTRA_UPPER.get(ord(char))
    return chr(extra) if extra is not None else char.upper()


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
        upper = _js_upper_char(char)
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
def compile_js_regex(pattern: str) -> re.Pattern[str] | None:
    """``new RegExp(pattern, "i")`` as a Python pattern, or None when JavaScript rejects it.

    The result must be run on :func:`js_regex_subject` of a text (not on the text itself);
    positions there are JavaScript indices. :func:`js_regex_search` does both. The comment above
    ``_MAX_UNIT`` lists the rare differences from JavaScript that are left out.
    """
    units = utf16_units(pattern)
    try:
        python_pattern = _Translator(units).translate()
        return re.compile(python_pattern)
    except (_JsSyntaxError, re.error, RecursionError, OverflowError, ValueError):
        return None


def js_regex_subject(text: str) -> str:
    """The form of ``text`` that :func:`compile_js_regex` patterns run on (same UTF-16 length)."""
    return _canonical_units(utf16_units(text))


def js_regex_search(regex: re.Pattern[str], text: str) -> int:
    """JavaScript's ``text.search(regex)`` for a :func:`compile_js_regex` result: index or -1."""
    match = regex.search(js_regex_subject(text))
    return -1 if match is None else match.start()


# ---------------------------------------------------------------------------------------------
# Searched texts
# ---------------------------------------------------------------------------------------------


def searchable_text(id: str, name: str | None, all_messages_text: str, cwd: str) -> str:
    """What the picker searches: id, name ("" when unnamed), all message text, cwd."""
    return f"{id} {name if name is not None else ''} {all_messages_text} {cwd}"


_WS_OTHER_THAN_SPACE: Final = tuple(JS_WHITESPACE.replace(" ", ""))


def _normalize_phrase(text: str) -> str:
    """``text.toLowerCase().replace(/\\s+/g, " ").trim()``, in unit form.

    Done with C-speed string operations (white space → " ", then halve runs of spaces until none
    is left): the same result, many times faster than a regex over every space of a long text.
    """
    lowered = js_lower(text)
    for ch in _WS_OTHER_THAN_SPACE:
        if ch in lowered:
            lowered = lowered.replace(ch, " ")
    while "  " in lowered:
        lowered = lowered.replace("  ", " ")
    return utf16_units(lowered.strip(" "))


class _Prepared:
    """Derived forms of one searched text, computed once and cached (all in unit form)."""

    __slots__ = ("_canonical", "_normalized", "lowered", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.lowered = utf16_units(js_lower(text))  # fuzzy tokens
        self._normalized: str | None = None  # phrase tokens
        self._canonical: str | None = None  # re: patterns

    @property
    def normalized(self) -> str:
        if self._normalized is None:
            self._normalized = _normalize_phrase(self.text)
        return self._normalized

    @property
    def canonical(self) -> str:
        if self._canonical is None:
            self._canonical = js_regex_subject(self.text)
        return self._canonical


# Bounded by characters: each entry is charged three times its text's length (the lowered form
# always, the phrase and regex forms once used); the oldest entries go first and are rebuilt on
# demand.
_CACHE_MAX_CHARS: Final = 3 * 128 * 1024 * 1024
_cache: dict[str, _Prepared] = {}
_cache_chars = 0
_cache_lock = threading.Lock()


def _prepared(text: str) -> _Prepared:
    prep = _cache.get(text)
    if prep is not None:
        return prep
    prep = _Prepared(text)
    global _cache_chars
    with _cache_lock:
        if text not in _cache:
            _cache[text] = prep
            _cache_chars += 3 * len(text)
            while _cache_chars > _CACHE_MAX_CHARS and len(_cache) > 1:
                oldest = next(iter(_cache))
                del _cache[oldest]
                _cache_chars -= 3 * len(oldest)
    return prep


def prepare_search_texts(texts: Iterable[str]) -> None:
    """Fill the cache ahead of the first key press (e.g. from a worker after listing)."""
    for text in texts:
        _prepared(text)


def clear_search_cache() -> None:
    """Forget cached forms of searched texts and remembered token scores."""
    global _cache_chars
    with _cache_lock:
        _cache.clear()
        _cache_chars = 0
    with _memo_lock:
        _memo.clear()
        _walk_memo.clear()


# ---------------------------------------------------------------------------------------------
# Fuzzy scoring
# ---------------------------------------------------------------------------------------------

_WORD_BOUNDARY: Final = frozenset(JS_WHITESPACE + "-_./:")
_LETTERS_DIGITS: Final = re.compile(r"([a-z]+)([0-9]+)")
_DIGITS_LETTERS: Final = re.compile(r"([0-9]+)([a-z]+)")


# pi's walk state after some query units: (score so far, index of the last match, run length).
_Walk = tuple[float, int, int]
_START: Final[_Walk] = (0.0, -1, 0)


def _walk(units: str, text: str, state: _Walk = _START) -> _Walk | None:
    """Continue pi-tui's ``matchQuery`` walk over ``text`` with more query units; None: no match.

    pi steps through every unit of the text; its next match is simply the next occurrence of the
    next query unit, so ``str.find`` lands on the same positions without the per-unit loop. The
    score uses the same operations in the same order as pi, so the doubles are identical.
    """
    score, last, run = state
    find = text.find
    boundary = _WORD_BOUNDARY
    for ch in units:
        i = find(ch, last + 1)
        if i < 0:
            return None
        if i == last + 1:  # also true for a first match at i = 0 (last starts at -1)
            run += 1
            score -= run * 5
        else:
            run = 0
            if last >= 0:
                score += (i - last - 1) * 2
        if i == 0 or text[i - 1] in boundary:
            score -= 10
        score += i * 0.1
        last = i
    return score, last, run


def _finish(q: str, text: str, walk: _Walk | None) -> float | None:
    """The end of ``matchQuery``: the score, with pi's bonus for a query equal to the text."""
    if walk is None:
        return None
    return walk[0] - 100 if q == text else walk[0]


def _subsequence_score(q: str, text: str) -> float | None:
    """pi-tui's ``matchQuery`` on a lowered query and a lowered text (both in unit form)."""
    if not q:
        return 0.0
    if len(q) > len(text):
        return None
    return _finish(q, text, _walk(q, text))


class _FuzzyMatcher:
    """pi-tui's ``fuzzyMatch`` for one token: the lowered query, and its letters/digits swap."""

    __slots__ = ("primary", "swapped")

    def __init__(self, token: str) -> None:
        lowered = js_lower(token)
        swapped: str | None = None
        m = _LETTERS_DIGITS.fullmatch(lowered) or _DIGITS_LETTERS.fullmatch(lowered)
        if m is not None:
            swapped = m.group(2) + m.group(1)  # "abc12" → "12abc", "12abc" → "abc12"
        self.primary = utf16_units(lowered)
        self.swapped = swapped

    def score(self, lowered_text: str) -> float | None:
        primary = _subsequence_score(self.primary, lowered_text)
        if primary is not None:
            return primary
        return self.swapped_score(lowered_text)

    def swapped_score(self, lowered_text: str) -> float | None:
        """The retry with letters and digits swapped, once the token itself did not match."""
        if self.swapped is None:
            return None
        swapped = _subsequence_score(self.swapped, lowered_text)
        return None if swapped is None else swapped + 5


def fuzzy_score(token: str, text: str) -> float | None:
    """pi-tui's ``fuzzyMatch(token, text)``: the score (lower is better) or None (no match)."""
    return _FuzzyMatcher(token).score(utf16_units(js_lower(text)))


# ---------------------------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------------------------


class _Part:
    """One scored part of a query: a token, or the whole ``re:`` pattern."""

    __slots__ = ("key",)

    def __init__(self, key: tuple[str, str]) -> None:
        self.key = key  # identifies the part for the remembered scores

    def score(self, prep: _Prepared) -> float | None:
        raise NotImplementedError

    def scorer(self) -> Callable[[str], float | None]:
        """A function scoring a searched text, for one filter pass."""
        return lambda text: self.score(_prepared(text))


class _FuzzyPart(_Part):
    __slots__ = ("matcher",)

    def __init__(self, value: str) -> None:
        super().__init__(("fuzzy", value))
        self.matcher = _FuzzyMatcher(value)

    def score(self, prep: _Prepared) -> float | None:
        return self.matcher.score(prep.lowered)

    def scorer(self) -> Callable[[str], float | None]:
        """Score texts, reusing remembered walks: typing one more letter of a token continues
        each text's walk for the shorter token (the greedy walk is the same up to there)."""
        q = self.matcher.primary
        if not q:
            return lambda text: 0.0
        walks, base, base_len = _walk_tables(q)
        matcher = self.matcher
        missing = _NO_WALK
        rest = q[base_len:]
        no_base: dict[str, _Walk | None] = {}
        base_get = (base if base is not None else no_base).get
        cached = _cache.get

        def score_text(text: str) -> float | None:
            prep = cached(text) or _prepared(text)
            lowered = prep.lowered
            previous = base_get(text, missing)
            if previous is missing:
                walk = _walk(q, lowered) if len(q) <= len(lowered) else None
            elif previous is None:
                walk = None  # the shorter token did not match, so this one cannot
            else:
                walk = _walk(rest, lowered, previous)
            walks[text] = walk
            if walk is not None:
                return walk[0] - 100 if q == lowered else walk[0]  # as _finish
            return matcher.swapped_score(lowered)

        return score_text


class _PhrasePart(_Part):
    __slots__ = ("phrase",)

    def __init__(self, value: str, phrase: str) -> None:
        super().__init__(("phrase", value))
        self.phrase = phrase

    def score(self, prep: _Prepared) -> float | None:
        idx = prep.normalized.find(self.phrase)
        return None if idx < 0 else idx * 0.1


class _RegexPart(_Part):
    __slots__ = ("regex",)

    def __init__(self, pattern: str, regex: re.Pattern[str]) -> None:
        super().__init__(("regex", pattern))
        self.regex = regex

    def score(self, prep: _Prepared) -> float | None:
        match = self.regex.search(prep.canonical)
        return None if match is None else match.start() * 0.1


@dataclass(frozen=True, slots=True)
class Token:
    """One query token: a fuzzy word or an exact (whitespace-normalized) phrase."""

    kind: Literal["fuzzy", "phrase"]
    value: str


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed picker query (pi's ``parseSearchQuery``).

    ``error`` is set for ``re:`` queries whose pattern is empty or invalid: such a query matches
    nothing. A ``tokens`` query without tokens matches everything with score 0.
    """

    mode: Literal["tokens", "regex"]
    tokens: tuple[Token, ...] = ()
    regex: re.Pattern[str] | None = None
    error: str | None = None
    pattern: str = ""  # the trimmed pattern of a regex query
    _parts: tuple[_Part, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts: list[_Part] = []
        if self.mode == "regex":
            if self.regex is not None:
                parts.append(_RegexPart(self.pattern, self.regex))
        else:
            for token in self.tokens:
                if token.kind == "fuzzy":
                    parts.append(_FuzzyPart(token.value))
                    continue
                phrase = _normalize_phrase(token.value)
                if phrase:  # pi skips a phrase that normalizes to nothing
                    parts.append(_PhrasePart(token.value, phrase))
        object.__setattr__(self, "_parts", tuple(parts))

    @property
    def is_empty(self) -> bool:
        """A token query without tokens: everything matches with score 0."""
        return self.mode == "tokens" and not self.tokens


@functools.lru_cache(maxsize=128)
def parse_query(query: str) -> Query:
    """Parse a picker query: ``re:<pattern>`` or fuzzy words and ``"quoted phrases"``."""
    trimmed = js_trim(query)
    if not trimmed:
        return Query("tokens")
    if trimmed.startswith("re:"):  # case-sensitive: "RE:x" is a fuzzy query
        pattern = js_trim(trimmed[3:])
        if not pattern:
            return Query("regex", error="Empty regex", pattern=pattern)
        regex = compile_js_regex(pattern)
        if regex is None:
            return Query("regex", error="Invalid regular expression", pattern=pattern)
        return Query("regex", regex=regex, pattern=pattern)

    tokens: list[Token] = []
    buf: list[str] = []
    in_quote = False

    def flush(kind: Literal["fuzzy", "phrase"]) -> None:
        value = js_trim("".join(buf))
        buf.clear()
        if value:
            tokens.append(Token(kind, value))

    for ch in trimmed:
        if ch == '"':
            if in_quote:
                flush("phrase")
                in_quote = False
            else:
                flush("fuzzy")
                in_quote = True
            continue
        if not in_quote and ch in JS_WHITESPACE:
            flush("fuzzy")
            continue
        buf.append(ch)
    if in_quote:
        # Unbalanced quotes: plain whitespace split, the '"' stays inside its word.
        words = [w for w in JS_WHITESPACE_RUN.split(trimmed) if w]
        return Query("tokens", tuple(Token("fuzzy", w) for w in words))
    flush("fuzzy")
    return Query("tokens", tuple(tokens))


def _score_prepared(query: Query, prep: _Prepared) -> float | None:
    total = 0.0
    for part in query._parts:
        part_score = part.score(prep)
        if part_score is None:
            return None
        total += part_score
    return total


def score(query: Query | str, searchable: str) -> float | None:
    """pi's ``matchSession`` score of a searched text (lower is better), None when no match.

    An empty query gives 0.0; an erroneous ``re:`` query gives None for every text.
    """
    parsed = parse_query(query) if isinstance(query, str) else query
    if parsed.error is not None:
        return None
    return _score_prepared(parsed, _prepared(searchable))


# Remembered per searched text, for the parts of the last few queries: final scores (so that
# re-sorting, toggling a filter or backspacing rescores nothing, and typing another word
# rescores only that word) and fuzzy walk states (so that typing one more letter of a token
# only continues each walk). A few tables of one entry per session each.
_MEMO_TABLES: Final = 8
_memo: dict[tuple[str, str], dict[str, float | None]] = {}
_walk_memo: dict[str, dict[str, _Walk | None]] = {}
_memo_lock = threading.Lock()
_UNSCORED: Final[float] = float("nan")  # sentinel for "not scored yet", compared by identity
_NO_WALK: Final[_Walk] = (_UNSCORED, -1, 0)  # sentinel for "no remembered walk"


def _recent(table: dict[Any, Any], key: Any, default: Any) -> Any:
    """Move ``key`` to the newest end of ``table`` (inserting ``default``), drop the oldest."""
    value = table.pop(key, None)
    if value is None:
        value = default
    table[key] = value
    while len(table) > _MEMO_TABLES:
        del table[next(iter(table))]
    return value


def _score_tables(parts: Sequence[_Part]) -> list[dict[str, float | None]]:
    with _memo_lock:
        return [_recent(_memo, part.key, {}) for part in parts]


def _walk_tables(
    q: str,
) -> tuple[dict[str, _Walk | None], dict[str, _Walk | None] | None, int]:
    """This token's walk table, and the table of its longest remembered proper prefix."""
    with _memo_lock:
        base_key = max(
            (k for k in _walk_memo if len(k) < len(q) and q.startswith(k)), key=len, default=None
        )
        base = _walk_memo[base_key] if base_key is not None else None
        own = _recent(_walk_memo, q, {})
    return own, base, len(base_key) if base_key is not None else 0


# ---------------------------------------------------------------------------------------------
# Picker rows: named filter, sort modes, threaded forest
# ---------------------------------------------------------------------------------------------


class SearchableSession(Protocol):
    """What the picker needs of a listed session.

    ``modified`` is epoch milliseconds (JavaScript's ``Date.getTime()``; whole milliseconds
    reproduce pi's tie-breaking exactly). ``search_text`` is :func:`searchable_text`'s result.
    """

    @property
    def path(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def parent_session_path(self) -> str | None: ...
    @property
    def modified(self) -> float: ...
    @property
    def search_text(self) -> str: ...


S = TypeVar("S", bound=SearchableSession)


class Row(NamedTuple, Generic[S]):
    """One picker row: the session, its depth in the threaded forest and its tree prefix."""

    item: S
    depth: int = 0
    prefix: str = ""


def _flat_row(item: S) -> Row[S]:
    # tuple.__new__ skips NamedTuple's Python-level __new__ with defaults: rows are made for
    # every matching session on every key press.
    return tuple.__new__(Row, (item, 0, ""))


def has_name(name: str | None) -> bool:
    """A name counts when it is non-empty after JavaScript's trim."""
    return name is not None and js_trim(name) != ""


def named_filter(items: Iterable[S]) -> list[S]:
    """The Named filter (§2.6): sessions whose name is non-empty after trimming."""
    return [item for item in items if has_name(item.name)]


_CONTROL_CHARS: Final = re.compile("[\x00-\x1f\x7f]")


def display_title(name: str | None, first_message: str) -> str:
    """A row's title (§2.2): the name, else the first message; controls → spaces, trimmed.

    A whitespace-only name counts as no name ([new] pi; 0.73.1 showed an empty title).
    """
    text = name if name is not None and has_name(name) else first_message
    return js_trim(_CONTROL_CHARS.sub(" ", text))


# Resolving symlinks costs system calls; the picker rebuilds the forest on many key presses.
def filter_and_sort(
    items: Sequence[S],
    query: str,
    mode: SortMode,
    named_only: bool = False,
    normalize_path: Callable[[str], str] = default_normalize_path,
) -> list[Row[S]]:
    """The picker's rows for ``items`` (already sorted by ``modified``, newest first).

    * ``named_only`` applies the Named filter first.
    * Empty (trimmed) query: ``threaded`` gives the forest, the other modes the input order.
    * Otherwise only matching sessions, flat: ``recent`` keeps input order; ``relevance`` and
      ``threaded`` sort by score ascending, ties by ``modified`` newest first, then input order.
      An empty or invalid ``re:`` pattern gives no rows.
    """
    base = named_filter(items) if named_only else list(items)
    if not js_trim(query):
        if mode == "threaded":
            return _threaded_rows(base, normalize_path)
        return [_flat_row(item) for item in base]
    parsed = parse_query(query)
    if parsed.error is not None:
        return []
    parts = parsed._parts
    tables = _score_tables(parts)
    pairs = [(part.scorer(), table) for part, table in zip(parts, tables, strict=True)]
    unscored = _UNSCORED
    matched: list[S] = []
    scores: list[float] = []
    for item in base:
        text = item.search_text
        total = 0.0
        for scorer, table in pairs:
            part_score = table.get(text, unscored)
            if part_score is unscored:
                part_score = scorer(text)
                table[text] = part_score
            if part_score is None:
                break
            total += part_score
        else:
            matched.append(item)
            scores.append(total)
    if mode != "recent":
        # pi's stable sort by (score, newest first), as two stable sorts on plain float keys
        # (much faster than comparing tuples); equal keys keep input order, as in pi.
        order = list(range(len(matched)))
        newest = [-item.modified for item in matched]
        order.sort(key=newest.__getitem__)
        order.sort(key=scores.__getitem__)
        matched = [matched[k] for k in order]
    return [_flat_row(item) for item in matched]


def _threaded_rows(items: list[S], normalize_path: Callable[[str], str]) -> list[Row[S]]:
    """The threaded forest (§2.4), walked depth first, with pi's tree prefixes.

    pitui deviations from pi (which loses such sessions): every session appears exactly once.
    Two sessions with the same normalized path are both shown (a parent link goes to the later
    one, like pi's map); a session that is its own parent, or a parent cycle, becomes a root
    where the cycle is detected.
    """
    count = len(items)
    by_key = {normalize_path(item.path): index for index, item in enumerate(items)}
    parent: list[int | None] = []
    for item in items:
        raw = item.parent_session_path
        parent.append(by_key.get(normalize_path(raw)) if raw else None)

    # Break self-parents and cycles: walk each chain once; a node met again on the current
    # chain closes a cycle and becomes a root.
    state = [0] * count  # 0 = unseen, 1 = on the current chain, 2 = done
    for start in range(count):
        chain: list[int] = []
        node: int | None = start
        while node is not None and state[node] == 0:
            state[node] = 1
            chain.append(node)
            node = parent[node]
        if node is not None and state[node] == 1:
            parent[node] = None
        for visited in chain:
            state[visited] = 2

    roots: list[int] = []
    children: list[list[int]] = [[] for _ in range(count)]
    for index in range(count):
        p = parent[index]
        if p is None:
            roots.append(index)
        else:
            children[p].append(index)

    # Latest activity in each subtree ([new] pi 1.6.0 ordering): children before parents.
    latest = [item.modified for item in items]
    order: list[int] = []
    stack = list(roots)
    while stack:
        node_index = stack.pop()
        order.append(node_index)
        stack.extend(children[node_index])
    for node_index in reversed(order):
        p = parent[node_index]
        if p is not None and latest[node_index] > latest[p]:
            latest[p] = latest[node_index]

    def newest_first(nodes: list[int]) -> None:
        nodes.sort(key=lambda k: -latest[k])  # stable: ties keep input order

    newest_first(roots)
    for kids in children:
        if len(kids) > 1:
            newest_first(kids)

    rows: list[Row[S]] = []
    # (node, depth, ancestor part of the prefix for this node, is last among its siblings)
    walk: list[tuple[int, int, str, bool]] = [(r, 0, "", False) for r in reversed(roots)]
    while walk:
        node_index, depth, ancestors, is_last = walk.pop()
        if depth == 0:
            rows.append(Row(items[node_index]))
            child_ancestors = "   "  # the root level never draws a line
        else:
            rows.append(Row(items[node_index], depth, ancestors + ("└─ " if is_last else "├─ ")))
            child_ancestors = ancestors + ("   " if is_last else "│  ")
        kids = children[node_index]
        last_kid = len(kids) - 1
        for position in range(last_kid, -1, -1):
            walk.append((kids[position], depth + 1, child_ancestors, position == last_kid))
    return rows
