"""pitui.core.search against pi 0.73.1's own picker search, run by node.

pi's ``parseSearchQuery``/``matchSession``/``filterAndSortSessions`` and pi-tui's ``fuzzyMatch``
(and JavaScript's own ``RegExp``/``toLowerCase``) answer the same cases as pitui; every answer
must agree exactly (scores as IEEE doubles). The package is installed once per machine by
``tests.interop.pi_oracle`` (into the XDG cache); without node/npm, or when the install fails,
these tests are skipped with the reason (PITUI_REQUIRE_PI_ORACLE=1 turns the skip into a failure).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pitui.core.js import js_lower
from pitui.core.jsregex import compile_js_regex
from pitui.core.regex_search import js_regex_search
from pitui.core.search import (
    SortMode,
    filter_and_sort,
    fuzzy_score,
    parse_query,
    score,
    searchable_text,
)
from tests.interop.pi_oracle import ensure_pi

ORACLE_SCRIPT = Path(__file__).with_name("pi_search_oracle.mjs")

Case = dict[str, Any]
RunOracle = Callable[[list[Case]], list[Any]]


@pytest.fixture(scope="module")
def pi_search() -> Iterator[RunOracle]:
    oracle, reason = ensure_pi()
    if oracle is None:
        if os.environ.get("PITUI_REQUIRE_PI_ORACLE") == "1":
            pytest.fail(f"pi oracle required but unavailable: {reason}", pytrace=False)
        pytest.skip(f"pi 0.73.1 oracle unavailable: {reason}")

    def run(cases: list[Case]) -> list[Any]:
        env = dict(os.environ, PI_ORACLE_PACKAGE_DIR=str(oracle.package_dir))
        proc = subprocess.run(
            [oracle.node, str(ORACLE_SCRIPT)],
            input=json.dumps(cases).encode("utf-8"),
            env=env,
            capture_output=True,
            timeout=120,
            check=False,
        )
        if proc.returncode != 0:
            pytest.fail(f"search oracle failed: {proc.stderr.decode('utf-8', 'replace')[-2000:]}")
        results: list[Any] = json.loads(proc.stdout.decode("utf-8"))
        assert len(results) == len(cases)
        return results

    yield run


def assert_all_agree(mismatches: list[tuple[Any, ...]], total: int) -> None:
    shown = "\n".join(ascii(m) for m in mismatches[:15])
    assert not mismatches, f"{len(mismatches)} of {total} cases differ from pi:\n{shown}"


# --------------------------------------------------------------------------------------------
# Case generators (seeded: the same cases every run)
# --------------------------------------------------------------------------------------------

_COMMON = [*"abcdeABCDE012  -_./:\"'", "\u00a0", "\u2028", "\ufeff", "\u1680", "\x1c", "\x85"]
_COMMON += ["\t", "\n", "İ", "ı", "ſ", "\u212a", "σ", "ß", "é", "É", "e\u0301", "😀", "😁"]
_COMMON += ["𝒳", "中", "ﬀ", "ǅ", "\ud83d"]
# Final sigma next to letters newer than Python's Unicode data is a documented gap: 'Σ' and the
# Unicode 16 letters are never drawn into the same string.
_WITH_SIGMA = [*_COMMON, "Σ"]
_WITH_UNICODE_16 = [*_COMMON, "\U00010d50", "\U00010d70", "\ua7cb"]


def _rstr(rng: random.Random, alphabet: list[str], low: int, high: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


def _query_for(rng: random.Random, text: str, alphabet: list[str]) -> str:
    if text and rng.random() < 0.6:  # mostly pieces of the text, so that many cases match
        start = rng.randrange(len(text))
        query = text[start : start + rng.randint(1, 7)]
        if rng.random() < 0.5:
            query = "".join(c for c in query if rng.random() < 0.7)
    else:
        query = _rstr(rng, alphabet, 0, 6)
    roll = rng.random()
    if roll < 0.15:
        query = f'"{query}"'
    elif roll < 0.25:
        query = f'"{query}'
    if rng.random() < 0.25:
        query += " " + _rstr(rng, alphabet, 0, 4)
    return query


_RE_ATOMS = [
    *"abAsSkKiı",
    "é",
    "É",
    "ſ",
    "\u212a",
    "İ",
    "😀",
    "ß",
    "ẞ",
    "σ",
    "ς",
    "Σ",
    "µ",
    "μ",
    "Ω",
    "ω",
    "\u2126",
    "ǅ",
    "ǆ",
    "Ǆ",
    *[r"\d", r"\w", r"\s", r"\D", r"\W", r"\S", r"\b", r"\B", ".", "^", "$"],
    *["[abc]", "[^a]", "[a-z]", "[^]", "[]", r"[\d-z]", "[z-a]", r"[\b]", r"[^\W]", "[é-ſ]"],
    *[r"\cA", r"\c1", r"[\c1]", r"\x41", r"\x4", r"\u0041", r"\u{2}", r"\0", r"\01", r"\12"],
    *[r"\8", r"\1", r"\2", r"\k<n>", r"\k", "{", "}", "]", "{,2}", r"\e", r"\Z", r"\A"],
    *["(?P<x>a)", "(?i)", "(?#c)", "(?>a)", "\\", "(", "|", ")", "-", r"\-", r"\/", r"\p{L}"],
    *["\u2028", "\n", "(?=a)", "(?!b)", "(?<=a)", "(?<!é)", "(?<=a|bc)"],
]
_RE_QUANTIFIERS = ["", "", "", "*", "+", "?", "*?", "+?", "{2}", "{1,}", "{0,1}", "{2,1}", "*+"]
_RE_QUANTIFIERS += ["++", "?+", "{1}+", "{3,5}?"]
_RE_TEXT = [*"abcsSkKAB aé\u00e9ÉſıiİẞΣσςµμΩω\u2126ǅǆǄ\n\r\u2028 😀😁-_0123ß", "\u212a"]


def _rpattern(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 5)):
        roll = rng.random()
        if roll < 0.15 and depth < 3:
            inner = _rpattern(rng, depth + 1)
            if rng.random() < 0.4:
                inner += "|" + _rpattern(rng, depth + 1)
            opener = rng.choice(["(", "(?:", "(?=", "(?!", "(?<n>", "(?<m>"])
            atom = f"{opener}{inner})"
        elif roll < 0.22:
            atom = rng.choice([r"\1", r"\2", r"\3", r"\k<n>", r"\k<m>", r"\10"])
        else:
            atom = rng.choice(_RE_ATOMS)
        parts.append(atom + rng.choice(_RE_QUANTIFIERS))
    return "".join(parts)


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------

_HAND_QUERIES = [
    "019b",
    "brave",
    "BRAVE",
    "brave xxxx",
    '"node cve"',
    '"unclosed brave',
    'a "b c" d',
    '""',
    "re:\\bbrave\\b",
    "re:br.ve",
    "re:(",
    "re:",
    "RE:brave",
    "abc12",
    "12abc",
    "ABC12",
    "abc7",
    "7abc",
    "😀",
    "x😀",
    "İ",
    "ſ",
    "proj",
    "re:(?<w>b)r\\k<w>?ave",
    "re:[^]ave",
    "re:\\u{2}",
    "re:\\s{2,}",
    "re:^019b",
    "re:proj$",
]
_HAND_TEXTS = [
    "Brave is great",
    "bravery is not the same",
    "xxxx brave",
    "node\n\n   cve was discussed",
    'an "unclosed brave thing',
    "😁a😀x brave",
    "i̇stanbul İstanbul ıi ſs",
    "12abc abc12 a1b2c",
    "release 12abc only",  # "abc12" matches only after the letters/digits swap
    "only abc here, then 7",
    "",
]


def test_hand_made_queries_agree_with_pi(pi_search: RunOracle) -> None:
    cases: list[Case] = []
    expected: list[tuple[bool, float]] = []
    for query in _HAND_QUERIES:
        for text in _HAND_TEXTS:
            for name in (None, "Fork of brave"):
                session = {"id": "019b7956-aaaa", "name": name, "allMessagesText": text}
                session["cwd"] = "/home/u/proj"
                cases.append({"op": "match", "query": query, "session": session})
                mine = score(query, searchable_text("019b7956-aaaa", name, text, "/home/u/proj"))
                expected.append((mine is not None, mine if mine is not None else 0))
    results = pi_search(cases)
    mismatches = [
        (case["query"], case["session"], mine, (res["matches"], res["score"]))
        for case, mine, res in zip(cases, expected, results, strict=True)
        if mine != (res["matches"], res["score"])
    ]
    assert_all_agree(mismatches, len(cases))


def test_random_queries_agree_with_pi(pi_search: RunOracle) -> None:
    # pitui lowers like Node 20.20 (ICU 78); a Node whose ICU predates Unicode 16 does not know
    # the newest letters, so they are only drawn when this node lowers them too.
    alphabets = [_WITH_SIGMA]
    if pi_search([{"op": "lower", "text": "\ua7cb"}]) == ["\u0264"]:
        alphabets.append(_WITH_UNICODE_16)
    rng = random.Random(20240731)
    cases: list[Case] = []
    mine: list[Any] = []
    for _ in range(2500):
        alphabet = rng.choice(alphabets)
        text = _rstr(rng, alphabet, 0, 30)
        query = _query_for(rng, text, alphabet)
        sid = _rstr(rng, alphabet, 0, 5)
        name = rng.choice([None, "", _rstr(rng, alphabet, 0, 5)])
        cwd = _rstr(rng, alphabet, 0, 4)
        session = {"id": sid, "name": name, "allMessagesText": text, "cwd": cwd}
        cases.append({"op": "match", "query": query, "session": session})
        got = score(query, searchable_text(sid, name, text, cwd))
        error = parse_query(query).error is not None
        mine.append((got is not None, got if got is not None else 0, error))
        cases.append({"op": "fuzzy", "token": query, "text": text})
        fuzzy = fuzzy_score(query, text)
        mine.append((fuzzy is not None, fuzzy if fuzzy is not None else 0))
        cases.append({"op": "lower", "text": text})
        mine.append(js_lower(text))
    results = pi_search(cases)
    mismatches = []
    for case, ours, theirs in zip(cases, mine, results, strict=True):
        if case["op"] == "match":
            theirs = (theirs["matches"], theirs["score"], theirs["error"] is not None)
        elif case["op"] == "fuzzy":
            theirs = (theirs["matches"], theirs["score"])
        if ours != theirs:
            mismatches.append((case, ours, theirs))
    assert_all_agree(mismatches, len(cases))


def test_regexes_agree_with_javascript(pi_search: RunOracle) -> None:
    rng = random.Random(1234)
    cases: list[Case] = []
    for _ in range(3000):
        cases.append(
            {"op": "regex", "pattern": _rpattern(rng), "text": _rstr(rng, _RE_TEXT, 0, 12)}
        )
    mismatches = []
    for case, theirs in zip(cases, pi_search(cases), strict=True):
        regex = compile_js_regex(case["pattern"])
        ours = {"error": regex is None, "index": -1}
        if regex is not None:
            ours["index"] = js_regex_search(regex, case["text"])
        if ours != theirs:
            mismatches.append((case["pattern"], case["text"], ours, theirs))
    assert_all_agree(mismatches, len(cases))


@dataclass(frozen=True)
class _Item:
    path: str
    id: str
    name: str | None
    parent_session_path: str | None
    modified: float
    search_text: str


_SORTS: tuple[SortMode, ...] = ("recent", "relevance", "threaded")


def test_picker_order_agrees_with_pi(pi_search: RunOracle) -> None:
    rng = random.Random(99)
    words = ["brave", "bravo", "node", "cve", "fork", "of", "abc12", "12abc", "x", "Zeta"]
    words += ["ünï", "😀", "re:", '"q"', "a-b", "/tmp/x", "aa", "bb", "xbbxxaa", "bbxxxxaa"]
    queries = ["", " ", '""', "re:", "re:(", "re:br.ve", "re:\\bbrave\\b", "RE:x", '"brave']
    queries += ['"node cve"', "b", "a", '"aa" "bb"', "abc12", "bra ve", "fork of"]
    cases: list[Case] = []
    ours: list[list[str]] = []
    for _ in range(300):
        sessions: list[Case] = []
        for k in range(rng.randint(0, 12)):
            text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 6)))
            sessions.append(
                {
                    "id": f"s{k}-{_rstr(rng, list('ab01'), 0, 3)}",
                    "name": rng.choice([None, "", "  ", rng.choice(words)]),
                    "allMessagesText": text,
                    "cwd": "/home/u/p",
                    "modified": rng.choice([1000, 2000, 3000, rng.randint(0, 10**6)]),
                }
            )
        sessions.sort(key=lambda s: -s["modified"])
        query = rng.choice(queries)
        sort: SortMode = rng.choice(_SORTS)
        if sort == "threaded" and not query.strip():
            sort = "relevance"  # pi builds the forest outside filterAndSortSessions
        named = rng.random() < 0.3
        cases.append(
            {
                "op": "filter",
                "query": query,
                "sort": sort,
                "nameFilter": "named" if named else "all",
                "sessions": sessions,
            }
        )
        items = [
            _Item(
                f"/p/{s['id']}.jsonl",
                s["id"],
                s["name"],
                None,
                float(s["modified"]),
                searchable_text(s["id"], s["name"], s["allMessagesText"], s["cwd"]),
            )
            for s in sessions
        ]
        rows = filter_and_sort(items, query, sort, named)
        ours.append([row.item.id for row in rows])
    results = pi_search(cases)
    mismatches = [
        (case["query"], case["sort"], case["nameFilter"], mine, theirs)
        for case, mine, theirs in zip(cases, ours, results, strict=True)
        if mine != theirs
    ]
    assert_all_agree(mismatches, len(cases))
