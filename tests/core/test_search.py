"""pi 0.73.1's picker search and sort (ui-behaviour §2.4-§2.6, scenarios U1-U10, U21)."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.core.js import JS_WHITESPACE, js_lower, js_trim, utf16_len, utf16_units
from pitui.core.jsregex import compile_js_regex
from pitui.core.regex_search import RegexTooSlow, js_regex_search
from pitui.core.search import (
    Row,
    SortMode,
    Token,
    clear_search_cache,
    display_title,
    filter_and_sort,
    fuzzy_score,
    has_name,
    named_filter,
    parse_query,
    score,
    searchable_text,
)

MIN = 60_000
HOUR = 60 * MIN
DAY = 24 * HOUR
NOW = 1_767_225_600_000  # 2026-01-01, epoch ms


@dataclass(frozen=True)
class Sess:
    """A listed session as the picker sees it (satisfies SearchableSession)."""

    path: str
    id: str
    name: str | None
    parent_session_path: str | None
    modified: float
    search_text: str


def sess(
    sid: str,
    *,
    text: str = "",
    name: str | None = None,
    modified: float = NOW,
    parent: str | None = None,
    cwd: str = "/home/u/proj",
    folder: str = "/home/u/s",
) -> Sess:
    return Sess(
        path=f"{folder}/{sid}.jsonl",
        id=sid,
        name=name,
        parent_session_path=parent,
        modified=modified,
        search_text=searchable_text(sid, name, text, cwd),
    )


def newest_first(items: Sequence[Sess]) -> list[Sess]:
    return sorted(items, key=lambda s: -s.modified)


def ids(rows: Sequence[Row[Sess]]) -> list[str]:
    return [row.item.id for row in rows]


def identity(path: str) -> str:
    return path


# --------------------------------------------------------------------------------------------
# JavaScript strings
# --------------------------------------------------------------------------------------------


def test_js_whitespace_is_exactly_javascripts_s() -> None:
    expected = {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F}
    expected |= {0x205F, 0x3000, 0xFEFF, *range(0x2000, 0x200B)}
    assert {ord(c) for c in JS_WHITESPACE} == expected
    assert len(JS_WHITESPACE) == len(expected)


def test_js_trim_differs_from_str_strip() -> None:
    assert js_trim("\ufeff a \u3000") == "a"
    assert js_trim("\x1c a \x85") == "\x1c a \x85"  # str.strip() would remove both
    assert "\x1ca\x85".strip() == "a"


def test_js_lower_matches_javascript_on_special_cases() -> None:
    assert js_lower("İ") == "i\u0307"  # two code points, as toLowerCase gives
    assert js_lower("ΟΔΟΣ Σ") == "οδος σ"  # final sigma only at the end of a word
    assert js_lower("\u212a") == "k"  # Kelvin sign
    # Unicode 16 letters JavaScript (ICU 78) lowers and Python 3.11 does not know.
    assert js_lower("\ua7cb") == "\u0264"
    assert js_lower("\U00010d50x") == "\U00010d70x"


def test_utf16_units_and_length() -> None:
    assert utf16_len("a😀") == 3
    assert utf16_len("\ud83d") == 1  # a lone surrogate is one unit
    assert utf16_units("a😀b") == "a\ud83d\ude00b"
    assert utf16_units("plain é") == "plain é"


# --------------------------------------------------------------------------------------------
# Query parsing
# --------------------------------------------------------------------------------------------


def test_parse_tokens_and_phrases() -> None:
    q = parse_query('  foo "node  cve" bar"baz"  ')
    assert q.mode == "tokens"
    assert q.tokens == (
        Token("fuzzy", "foo"),
        Token("phrase", "node  cve"),
        Token("fuzzy", "bar"),
        Token("phrase", "baz"),
    )


def test_parse_empty_phrase_adds_nothing() -> None:
    q = parse_query('"" a')
    assert q.tokens == (Token("fuzzy", "a"),)
    assert parse_query('""').is_empty


def test_parse_unclosed_phrase_falls_back_to_whitespace_split() -> None:
    q = parse_query('"unclosed  brave')
    assert q.tokens == (Token("fuzzy", '"unclosed'), Token("fuzzy", "brave"))
    q = parse_query('a "b c" "d')
    assert q.tokens == (
        Token("fuzzy", "a"),
        Token("fuzzy", '"b'),
        Token("fuzzy", 'c"'),
        Token("fuzzy", '"d'),
    )


def test_parse_whitespace_is_javascripts() -> None:
    # U+FEFF separates tokens (JavaScript \s); U+0085 and U+001C do not.
    assert parse_query("a\ufeffb").tokens == (Token("fuzzy", "a"), Token("fuzzy", "b"))
    assert parse_query("a\x85b\x1cc").tokens == (Token("fuzzy", "a\x85b\x1cc"),)


def test_parse_regex_mode() -> None:
    q = parse_query("  re:  br.ve  ")
    assert q.mode == "regex"
    assert q.error is None and q.regex is not None
    assert parse_query("re:").error is not None
    assert parse_query("re:   ").error is not None
    assert parse_query("re:(").error is not None
    # The prefix is case-sensitive: RE: is a fuzzy token.
    assert parse_query("RE:x").tokens == (Token("fuzzy", "RE:x"),)


def test_empty_query_scores_zero() -> None:
    assert score("", "anything") == 0.0
    assert score("   ", "anything") == 0.0
    assert score('""', "anything") == 0.0


# --------------------------------------------------------------------------------------------
# Fuzzy scoring exactness
# --------------------------------------------------------------------------------------------


def reference_fuzzy(token: str, text: str) -> float | None:
    """A literal transcription of §2.5's walk, one UTF-16 unit at a time (slow, obviously right)."""

    def units(s: str) -> list[int]:
        data = s.encode("utf-16-le", "surrogatepass")
        return [int.from_bytes(data[k : k + 2], "little") for k in range(0, len(data), 2)]

    boundary = {ord(c) for c in JS_WHITESPACE + "-_./:"}

    def walk(q: list[int], t: list[int]) -> float | None:
        if not q:
            return 0.0
        if len(q) > len(t):
            return None
        qi, result, last, run = 0, 0.0, -1, 0
        for i in range(len(t)):
            if qi == len(q):
                break
            if t[i] != q[qi]:
                continue
            if last == i - 1:
                run += 1
                result -= run * 5
            else:
                run = 0
                if last >= 0:
                    result += (i - last - 1) * 2
            if i == 0 or t[i - 1] in boundary:
                result -= 10
            result += i * 0.1
            last = i
            qi += 1
        if qi < len(q):
            return None
        if q == t:
            result -= 100
        return result

    q_lower = js_lower(token)
    t_units = units(js_lower(text))
    primary = walk(units(q_lower), t_units)
    if primary is not None:
        return primary
    letters = q_lower.rstrip("0123456789")
    digits = q_lower[len(letters) :]
    swapped = None
    if letters and digits and letters.isascii() and letters.isalpha() and letters.islower():
        swapped = digits + letters
    else:
        digits = q_lower.rstrip("abcdefghijklmnopqrstuvwxyz")
        letters = q_lower[len(digits) :]
        if digits and letters and digits.isascii() and digits.isdigit():
            swapped = letters + digits
    if swapped is None:
        return None
    second = walk(units(swapped), t_units)
    return None if second is None else second + 5


def test_first_match_at_zero_counts_as_consecutive() -> None:
    # "019b" at the start of the id: -59.4, not -39.4 (spec exactness note).
    text = searchable_text("019b7956-aaaa-4bbb", None, "hello", "/p")
    assert score("019b", text) == -59.4


def test_fuzzy_gap_boundary_and_position_terms() -> None:
    # a@0: -5 (run) -10 (start); c@2: +2 gap, +0.2; e@4: +2 gap, +0.4.
    assert fuzzy_score("ace", "abcde") == ((((-15.0 + 2) + 0.2) + 2) + 0.4)
    # Word boundaries: '-', '_', '.', '/', ':' and JavaScript white space.
    for sep in "-_./: \u3000\ufeff":
        assert fuzzy_score("b", f"a{sep}b") == -10 + 0.2
    assert fuzzy_score("b", "a\x85b") == 0.2  # U+0085 is not JavaScript white space


def test_fuzzy_counts_utf16_units() -> None:
    assert fuzzy_score("x", "😀x") == 0.2  # the emoji is two units
    # The query emoji's high surrogate matches the earlier, different emoji's high surrogate:
    # units D83D(0) DE01(1) 'a'(2) D83D(3) DE00(4) → matches at 0 and 4.
    assert fuzzy_score("😀", "😁a😀") == ((-15.0 + 6) + 0.4)


def fuzzy(token: str, text: str) -> float:
    result = fuzzy_score(token, text)
    assert result is not None, (token, text)
    return result


def test_fuzzy_letters_digits_swap() -> None:
    assert fuzzy("abc12", "12abc") == fuzzy("12abc", "12abc") + 5
    assert fuzzy("12abc", "abc12") == fuzzy("abc12", "abc12") + 5
    assert fuzzy_score("ab1c", "1abc") is None  # not letters-then-digits: no retry
    assert fuzzy_score("ABC12", "12abc") is not None  # the lowered token decides


def test_fuzzy_misc() -> None:
    assert fuzzy_score("", "abc") == 0.0
    assert fuzzy_score("abcd", "abc") is None
    assert fuzzy("abc", "abc") == fuzzy("abc", "abc ") - 100
    assert fuzzy_score("BRAVE", "brave") is not None
    assert fuzzy_score("ſ", "s") is None  # lowering does not fold ſ into s


@pytest.mark.parametrize(
    ("token", "text"),
    [
        ("brave", "Brave is great"),
        ("019b", "019b7956 x"),
        ("😀", "😁a😀"),
        ("İ", "i̇x"),
        ("a1", "1a 1 a"),
        ("σς", "ΟΔΟΣ Σ"),
        ("-.", "a-b.c"),
    ],
)
def test_fuzzy_matches_reference_walk(token: str, text: str) -> None:
    assert fuzzy_score(token, text) == reference_fuzzy(token, text)


def test_phrase_whitespace_normalisation() -> None:
    # U6: runs of white space (JavaScript's set) become one space on both sides.
    assert score('"node cve"', "node\n\n   cve was discussed") == 0.0
    assert score('"node cve"', "node something else") is None
    assert score('"node\tcve"', "x node\u3000cve") == 0.2
    assert score('"node cve"', "node\x85cve") is None  # U+0085 is not white space in JavaScript


def test_phrase_index_counts_utf16_units_in_normalised_text() -> None:
    # "😀  a" normalises to "😀 a": units D83D DE00 ' ' 'a' → "a" at 3.
    assert score('"a"', "😀  a") == 3 * 0.1


def test_scores_are_summed_in_pis_order() -> None:
    # "aa" at 5 and "bb" at 1: 0.5 + 0.1 = 0.6; "aa" at 6, "bb" at 0: 0.6000000000000001.
    assert score('"aa" "bb"', "xbbxxaa") == 0.6
    assert score('"aa" "bb"', "bbxxxxaa") == 0.6000000000000001


# --------------------------------------------------------------------------------------------
# JavaScript regular expressions (§2.5's list)
# --------------------------------------------------------------------------------------------


def js_search(pattern: str, text: str) -> int | None:
    """text.search(new RegExp(pattern, "i")), or None when the pattern is invalid."""
    regex = compile_js_regex(pattern)
    return None if regex is None else js_regex_search(regex, text)


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        # '.' excludes the four line terminators.
        ("a.b", "axb", 0),
        ("a.b", "a\nb", -1),
        ("a.b", "a\rb", -1),
        ("a.b", "a\u2028b", -1),
        ("a.b", "a\u2029b", -1),
        ("a.b", "a\x85b", 0),
        # ^ and $ only at the very start and end (no "m" flag, never before a final \n).
        ("^b", "a\nb", -1),
        ("a$", "a\nb", -1),
        ("a$", "a\n", -1),
        ("b$", "a\nb", 2),
        # \d \w \b are ASCII.
        ("\\d", "\u0663", -1),
        ("\\w", "é", -1),
        ("é\\b", "éa", 0),
        ("\\bé", " é", -1),  # é is not a word character: no boundary before it
        ("\\bé", "xé", 1),
        ("\\B", "", 0),
        # \s is JavaScript's white space.
        ("\\s", "\ufeff", 0),
        ("\\s", "\x1c\x85", -1),
        ("\\S", "\x85", 0),
        # Case-insensitive as JavaScript: per UTF-16 unit, upper-case canonicalisation.
        ("É", "é", 0),
        ("s", "ſ", -1),
        ("k", "\u212a", -1),
        ("i", "İ", -1),
        ("i", "ı", -1),
        ("ß", "ẞ", -1),
        ("[a-z]", "\u017f\u212a", -1),
        ("[^a-z]", "A", -1),
        ("(a)\\1", "aA", 0),
        # JavaScript-only syntax that is valid.
        ("(?<n>a)\\k<n>", "xaA", 1),
        ("\\k<n>(?<n>a)", "a", 0),  # forward reference matches empty
        ("[^]", "\n", 0),
        ("a[]", "a", -1),
        ("a{,2}", "a{,2}", 0),
        ("a{", "a{", 0),
        ("}", "}", 0),
        ("]", "]", 0),
        ("\\e", "e", 0),
        ("\\Z", "z", 0),
        ("\\A", "a", 0),
        ("\\cJ", "\n", 0),
        ("\\c1", "\\c1", 0),
        ("\\u{2}", "uu", 0),
        ("\\x41", "a", 0),
        ("\\0", "\x00", 0),
        ("\\8", "8", 0),
        ("\\k", "k", 0),  # identity escape when there are no named groups
        ("(?=a)*b", "b", 0),
        # Unmatched groups: a backreference to them matches the empty string.
        ("(a)?b\\1", "b", 0),
        ("(a)\\2(b)", "ab", 0),
        # Lookbehind with alternatives of different widths.
        ("(?<=a|bc)x", "bcx", 2),
        ("(?<!a|bc)x", "bcx ax x", 7),
        # Indices are UTF-16 units.
        ("x", "😀x", 2),
        (".x", "😀x", 1),
        ("\ud83d", "a😀", 1),
    ],
)
def test_js_regex_semantics(pattern: str, text: str, expected: int) -> None:
    assert js_search(pattern, text) == expected


@pytest.mark.parametrize(
    "pattern",
    [
        "(?P<n>a)",
        "(?P=n)",
        "(?i)a",
        "(?i:a)",
        "(?#c)",
        "(?>a)",
        "a*+",
        "a++",
        "a?+",
        "a{2}+",
        "a**",
        "(",
        ")",
        "[",
        "[z-a]",
        "a{2,1}",
        "{2}",
        "*",
        "\\",
        "^*",
        "\\b+",
        "(?<=a)*",
        "(?<n>a)(?<n>b)",
        "(?<n>a)\\k<m>",
        "(?<n>a)\\k",
        "(?<n>a)[\\k]",
        "(?<1>a)",
    ],
)
def test_js_regex_errors(pattern: str) -> None:
    assert compile_js_regex(pattern) is None


def test_regex_score_is_tenth_of_utf16_index() -> None:
    assert score("re:x", "😀x") == 0.2
    assert score("re:\\bbrave\\b", "Brave is great") == 0.0  # U7
    assert score("re:\\bbrave\\b", "bravery is not the same") is None


# --------------------------------------------------------------------------------------------
# Picker scenarios
# --------------------------------------------------------------------------------------------


def u1_sessions() -> list[Sess]:
    home = "/home/u"

    def at(sid: str, age: float, parent: str | None = None, name: str | None = None) -> Sess:
        return sess(
            sid,
            text=f"first of {sid}",
            name=name,
            modified=NOW - age,
            parent=f"{home}/s/{parent}.jsonl" if parent else None,
        )

    return newest_first(
        [
            at("A", 5 * MIN),
            at("B", 2 * HOUR, parent="A", name="Fork of A"),
            at("C", 1 * MIN, parent="A"),
            at("D", 3 * DAY, parent="C"),
            at("E", 40 * DAY),
            at("F", 400 * DAY, parent="missing"),
        ]
    )


def test_u1_threaded_forest_and_prefixes() -> None:
    rows = filter_and_sort(u1_sessions(), "", "threaded")
    assert [(r.item.id, r.depth, r.prefix) for r in rows] == [
        ("A", 0, ""),
        ("C", 1, "   ├─ "),
        ("D", 2, "   │  └─ "),
        ("B", 1, "   └─ "),
        ("E", 0, ""),
        ("F", 0, ""),
    ]


def test_u2_recent_and_fuzzy_with_empty_query_keep_input_order() -> None:
    items = u1_sessions()
    for mode in ("recent", "relevance"):
        rows = filter_and_sort(items, "", mode)
        assert ids(rows) == ["C", "A", "B", "D", "E", "F"]
        assert all(r.prefix == "" and r.depth == 0 for r in rows)


def test_u3_threaded_query_is_flat_relevance() -> None:
    items = u1_sessions()
    rows = filter_and_sort(items, '"fork of"', "threaded")
    assert [(r.item.id, r.prefix) for r in rows] == [("B", "")]
    assert ids(filter_and_sort(items, "  ", "threaded")) == ["A", "C", "D", "B", "E", "F"]


def test_u4_recent_filters_in_input_order() -> None:
    items = [
        sess("nomatch", text="something else", modified=NOW),
        sess("newer", text="brave", modified=NOW - DAY),
        sess("older", text="brave", modified=NOW - 3 * DAY),
    ]
    assert ids(filter_and_sort(items, '"brave"', "recent")) == ["newer", "older"]
    assert ids(filter_and_sort(items, "brave", "recent")) == ["newer", "older"]


def test_u5_relevance_orders_by_score_then_newest() -> None:
    late = sess("late", text="xxxx brave", modified=NOW)
    early = sess("early", text="brave xxxx", modified=NOW - 2 * DAY)
    assert ids(filter_and_sort([late, early], '"brave"', "relevance")) == ["early", "late"]
    # Same text, same id length: same score, so the newer comes first.
    one = sess("s1", text="brave", modified=NOW - DAY)
    two = sess("s2", text="brave", modified=NOW)
    assert ids(filter_and_sort([two, one], "brave", "relevance")) == ["s2", "s1"]
    assert ids(filter_and_sort([one, two], "brave", "relevance")) == ["s2", "s1"]


def test_relevance_ties_are_exact_doubles() -> None:
    # 0.6 vs 0.6000000000000001: not a tie, so the older session with 0.6 comes first.
    newer = Sess("/s/y.jsonl", "y", None, None, NOW, "bbxxxxaa")
    older = Sess("/s/x.jsonl", "x", None, None, NOW - DAY, "xbbxxaa")
    assert ids(filter_and_sort([newer, older], '"aa" "bb"', "relevance")) == ["x", "y"]


def test_relevance_equal_scores_and_times_keep_input_order() -> None:
    a = Sess("/s/a.jsonl", "a", None, None, NOW, "brave")
    b = Sess("/s/b.jsonl", "b", None, None, NOW, "brave")
    assert ids(filter_and_sort([a, b], "brave", "relevance")) == ["a", "b"]
    assert ids(filter_and_sort([b, a], "brave", "relevance")) == ["b", "a"]


def test_u6_phrase_across_whitespace() -> None:
    items = [
        sess("a", text="node\n\n   cve was discussed"),
        sess("b", text="node something else"),
    ]
    assert ids(filter_and_sort(items, '"node cve"', "relevance")) == ["a"]


def test_u7_regex_word_boundary() -> None:
    items = [sess("a", text="Brave is great"), sess("b", text="bravery is not the same")]
    assert ids(filter_and_sort(items, "re:\\bbrave\\b", "relevance")) == ["a"]


@pytest.mark.parametrize("mode", ["threaded", "recent", "relevance"])
@pytest.mark.parametrize("query", ["re:(", "re:", "re:   ", "re:(?P<x>a)"])
def test_u8_bad_regex_gives_no_rows(mode: SortMode, query: str) -> None:
    assert filter_and_sort(u1_sessions(), query, mode) == []


def test_u9_unclosed_quote_and_searched_fields() -> None:
    items = [
        sess("plain", text="unclosed brave"),
        sess("quoted", text='an "unclosed brave thing'),
    ]
    assert ids(filter_and_sort(items, '"unclosed brave', "relevance")) == ["quoted"]
    # Name and id are searched; path is not.
    named = sess("x1", text="nothing here", name="my abc session")
    by_id = sess("abc-id", text="nothing here")
    by_path = Sess(
        "/home/u/s/abc.jsonl", "zz", None, None, NOW, searchable_text("zz", None, "q", "/")
    )
    found = filter_and_sort([named, by_id, by_path], "abc", "recent")
    assert ids(found) == ["x1", "abc-id"]


def test_searched_text_layout() -> None:
    assert searchable_text("id1", None, "hello", "/cwd") == "id1  hello /cwd"
    assert searchable_text("id1", "nm", "", "") == "id1 nm  "
    # The cwd is searched too.
    assert score("proj", searchable_text("id", None, "", "/home/u/proj")) is not None


def test_u10_named_filter() -> None:
    items = [
        sess("n1", text="blueberry", name="Pie"),
        sess("n2", text="blueberry", name="   "),
        sess("n3", text="blueberry", name=""),
        sess("n4", text="blueberry", name="Jam"),
        sess("n5", text="blueberry"),
    ]
    assert ids(filter_and_sort(items, "blueberry", "recent", named_only=True)) == ["n1", "n4"]
    assert [s.id for s in named_filter(items)] == ["n1", "n4"]
    assert ids(filter_and_sort(items, "", "threaded", named_only=True)) == ["n1", "n4"]
    assert not has_name("\ufeff\u3000")
    assert has_name("\x1c")  # not JavaScript white space


def test_named_filter_applies_before_the_forest() -> None:
    # The parent is unnamed, so with Named on the fork becomes a root.
    parent = sess("p", modified=NOW - DAY)
    fork = sess("f", name="Fork", parent="/home/u/s/p.jsonl", modified=NOW)
    rows = filter_and_sort([fork, parent], "", "threaded", named_only=True)
    assert [(r.item.id, r.depth) for r in rows] == [("f", 0)]


def test_u21_display_title() -> None:
    assert display_title(None, "line1\nline2\ttab") == "line1 line2 tab"
    assert display_title("   ", "first message") == "first message"
    assert display_title("", "first message") == "first message"
    assert display_title(" Name\x7f", "first") == "Name"
    assert display_title(None, "  a  \x00  b ") == "a     b"  # inner runs kept


# --------------------------------------------------------------------------------------------
# Threaded forest details
# --------------------------------------------------------------------------------------------


def test_forest_orders_by_latest_activity_in_subtree() -> None:
    # Root r1 is older than r2, but its fork was used most recently: r1's tree comes first.
    r1 = sess("r1", modified=NOW - 3 * DAY)
    r2 = sess("r2", modified=NOW - 1 * DAY)
    fork = sess("k", parent="/home/u/s/r1.jsonl", modified=NOW)
    rows = filter_and_sort(newest_first([r1, r2, fork]), "", "threaded")
    assert [(r.item.id, r.prefix) for r in rows] == [("r1", ""), ("k", "   └─ "), ("r2", "")]


def test_forest_prefixes_deep_tree() -> None:
    # root ─┬─ a ─┬─ a1
    #       │     └─ a2 ── a2x
    #       └─ b ──── b1
    def child(sid: str, parent: str, age: float) -> Sess:
        return sess(sid, parent=f"/home/u/s/{parent}.jsonl", modified=NOW - age)

    items = newest_first(
        [
            sess("root", modified=NOW - 100 * DAY),
            child("a", "root", 10 * DAY),
            child("a1", "a", 2 * DAY),
            child("a2", "a", 3 * DAY),
            child("a2x", "a2", 9 * DAY),
            child("b", "root", 20 * DAY),
            child("b1", "b", 30 * DAY),
        ]
    )
    rows = filter_and_sort(items, "", "threaded")
    assert [(r.item.id, r.prefix) for r in rows] == [
        ("root", ""),
        ("a", "   ├─ "),
        ("a1", "   │  ├─ "),
        ("a2", "   │  └─ "),
        ("a2x", "   │     └─ "),
        ("b", "   └─ "),
        ("b1", "      └─ "),
    ]


def test_forest_links_by_normalized_real_path(tmp_path: Path) -> None:
    real = tmp_path / "sessions"
    real.mkdir()
    link = tmp_path / "link"
    os.symlink(real, link)
    parent = Sess(str(real / "p.jsonl"), "p", None, None, NOW - DAY, "p")
    # The fork names its parent through a symlink, a '..' and a doubled slash.
    via = f"{link}/../link//p.jsonl"
    fork = Sess(str(real / "f.jsonl"), "f", None, via, NOW, "f")
    rows = filter_and_sort([fork, parent], "", "threaded")
    assert [(r.item.id, r.depth) for r in rows] == [("p", 0), ("f", 1)]


def test_forest_shows_every_session_once_despite_cycles() -> None:
    a = Sess("/s/a.jsonl", "a", None, "/s/b.jsonl", NOW, "a")
    b = Sess("/s/b.jsonl", "b", None, "/s/a.jsonl", NOW - MIN, "b")
    selfie = Sess("/s/c.jsonl", "c", None, "/s/c.jsonl", NOW - HOUR, "c")
    rows = filter_and_sort([a, b, selfie], "", "threaded", normalize_path=identity)
    assert sorted(ids(rows)) == ["a", "b", "c"]
    assert [(r.item.id, r.depth) for r in rows] == [("a", 0), ("b", 1), ("c", 0)]


def test_forest_handles_a_long_chain_without_recursion() -> None:
    count = 5000
    items = [
        Sess(f"/s/{k}.jsonl", str(k), None, f"/s/{k - 1}.jsonl" if k else None, NOW - k, "")
        for k in range(count)
    ]
    rows = filter_and_sort(items, "", "threaded", normalize_path=identity)
    assert len(rows) == count
    assert rows[-1].depth == count - 1
    assert rows[-1].prefix == "   " * (count - 1) + "└─ "


def test_empty_parent_path_is_no_parent() -> None:
    root = Sess("", "weird", None, None, NOW - DAY, "")
    other = Sess("/s/o.jsonl", "o", None, "", NOW, "")
    rows = filter_and_sort([other, root], "", "threaded", normalize_path=identity)
    assert [(r.item.id, r.depth) for r in rows] == [("o", 0), ("weird", 0)]


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


_TEXT = st.text(
    alphabet=st.sampled_from([*'abcAB1 2-_./:"é😀😁İıſΣ\n\t\u3000\ufeff\x85\x1c', "\ud83d"]),
    max_size=24,
)


def _typed(query: str) -> list[str]:
    """Every state of the search box while typing ``query`` and then deleting it again."""
    states = [query[:k] for k in range(1, len(query) + 1)]
    return states + states[-2::-1]


@pytest.mark.parametrize(
    "query", ["brave new", "abc12 x", "ΟΔΟΣ a", "😀x 😁", '"node c', 're:br"ave', "B-R.a"]
)
def test_incremental_typing_gives_fresh_results(query: str) -> None:
    texts = [
        "brave new world",
        "Brave; a newer brave",
        "12abc release",
        "abc12",
        "οδος αβ οδοσ",
        "😁a😀x 😁",
        'node "cve" brave',
        "b-r.a B_R:A",
        "nothing",
    ]
    items = [sess(f"s{k}", text=t, modified=NOW - k) for k, t in enumerate(texts)]
    for mode in ("relevance", "recent"):
        for state in _typed(query):
            remembered = filter_and_sort(items, state, mode)
            clear_search_cache()
            fresh = filter_and_sort(items, state, mode)
            assert ids(remembered) == ids(fresh), state
            expected = [it for it in items if score(state, it.search_text) is not None]
            assert sorted(ids(fresh)) == sorted(it.id for it in expected)


@settings(max_examples=150, deadline=None)
@given(queries=st.lists(_TEXT, min_size=1, max_size=6), texts=st.lists(_TEXT, max_size=6))
def test_remembered_scores_never_change_results(queries: list[str], texts: list[str]) -> None:
    items = [Sess(f"/s/{k}.jsonl", str(k), None, None, NOW - k, t) for k, t in enumerate(texts)]
    for query in queries:
        for state in _typed(query):
            got = ids(filter_and_sort(items, state, "relevance"))
            keys = [(score(state, it.search_text), -it.modified, k) for k, it in enumerate(items)]
            ranked = sorted((key for key in keys if key[0] is not None), key=lambda k: k[:2])
            assert got == [items[k].id for _, _, k in ranked]


@settings(max_examples=300, deadline=None)
@given(query=st.text(max_size=30), text=st.text(max_size=60))
def test_score_never_raises(query: str, text: str) -> None:
    result = score(query, text)
    assert result is None or math.isfinite(result)
    result = score("re:" + query, text)
    assert result is None or math.isfinite(result)


@settings(max_examples=300, deadline=None)
@given(token=_TEXT, text=_TEXT)
def test_fuzzy_score_equals_the_unit_by_unit_walk(token: str, text: str) -> None:
    assert fuzzy_score(token, text) == reference_fuzzy(token, text)


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(_TEXT, max_size=8),
    query=st.sampled_from(["a", "ab 1", '"a b"', "re:a.", "re:(", '"x', "1a", ""]),
    mode=st.sampled_from(["threaded", "recent", "relevance"]),
    named=st.booleans(),
)
def test_filter_and_sort_is_a_filtered_permutation(
    texts: list[str], query: str, mode: SortMode, named: bool
) -> None:
    items = [
        Sess(f"/s/{k}.jsonl", str(k), t[:3] or None, "/s/0.jsonl" if k % 2 else None, NOW - k, t)
        for k, t in enumerate(texts)
    ]
    rows = filter_and_sort(items, query, mode, named, normalize_path=identity)
    got = [r.item for r in rows]
    pool = named_filter(items) if named else items
    assert len(set(map(id, got))) == len(got)
    expected = [it for it in pool if score(query, it.search_text) is not None]
    assert sorted(map(id, got)) == sorted(map(id, expected))
    if mode == "recent" or (mode == "relevance" and not js_trim(query)):
        assert got == expected  # input order
    elif js_trim(query):
        keys = [(score(query, it.search_text), -it.modified) for it in got]
        assert keys == sorted(keys)


@settings(max_examples=300, deadline=None)
@given(
    pattern=st.text(
        alphabet=st.sampled_from("()[]{}^$\\|?*+.-,:<>=!kcux0129aAbBdDsSwW"), max_size=14
    )
)
def test_regex_translation_never_raises(pattern: str) -> None:
    regex = compile_js_regex(pattern)
    if regex is not None:
        assert js_regex_search(regex, "aB\n😀 x-1") >= -1


def test_a_regex_that_backtracks_for_ever_is_stopped() -> None:
    # (a+)+$ on a long run of "a" that does not end the text: exponential in Python's re and in
    # V8 alike; the search is given up after MATCH_SECONDS instead of hanging whoever asked
    slow = "a" * 30_000 + "!"
    regex = compile_js_regex("(a+)+$")
    assert regex is not None
    with pytest.raises(RegexTooSlow):
        js_regex_search(regex, slow)
    with pytest.raises(RegexTooSlow):
        score("re:(a+)+$", slow)
    assert js_search("(a+)+$", "x" + "a" * 40) == 1  # the same pattern where it is quick
    assert score("re:(a+)+", slow) == 0.0


def test_a_whole_search_has_a_time_limit_too(monkeypatch: pytest.MonkeyPatch) -> None:
    # `.*a.*b.*c.*x` stays under the limit of one text on most texts of a store: 3,000 of them
    # took minutes; the matches of one search share SEARCH_SECONDS
    from pitui.core import regex_search

    regex = compile_js_regex("x")
    assert regex is not None
    with regex_search.regex_budget(0.0), pytest.raises(RegexTooSlow):
        js_regex_search(regex, "x")
    assert js_regex_search(regex, "ax") == 1  # (outside a search: the limit of one text only)
    items = [sess("a", text="x"), sess("b", text="y")]
    assert ids(filter_and_sort(items, "re:x", "recent")) == ["a"]
    monkeypatch.setattr(regex_search, "SEARCH_SECONDS", 0.0)
    with pytest.raises(RegexTooSlow):
        filter_and_sort(items, "re:y", "recent")
    assert ids(filter_and_sort(items, '"y"', "recent")) == ["b"]  # (no regex: no limit)
