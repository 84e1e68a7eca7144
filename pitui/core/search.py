"""pi 0.73.1's session-picker search and sort, reproduced exactly (ui-behaviour §2.4-§2.6).

pi is JavaScript, and its ranking depends on JavaScript details, so this module works the way a
JavaScript string does:

* indices and lengths are UTF-16 code units: a character outside the BMP counts as two and its two
  surrogates are matched independently. Internally every text is turned into its *unit form*
  (:func:`pitui.core.js.utf16_units`): the same str with each non-BMP character replaced by its
  two surrogates, so that ``len``, indexing, ``str.find`` and ``re`` all count code units;
* "whitespace" is JavaScript's ``\\s`` (:data:`pitui.core.js.JS_WHITESPACE`), "trim" is
  ``String.prototype.trim`` and "lower case" is ``String.prototype.toLowerCase``
  (:func:`pitui.core.js.js_lower`);
* ``re:`` patterns are JavaScript regular expressions (``new RegExp(p, "i")``, no ``u`` flag),
  translated by :mod:`pitui.core.jsregex` and run by :mod:`pitui.core.regex_search` (time-limited);
* scores are IEEE doubles computed with the same operations in the same order as pi, so ties and
  near-ties order the same way.

Everything here is pure computation. The only exception is the default ``normalize_path`` of
:func:`filter_and_sort`, which resolves symbolic links like pi does (``realpath``).

Speed: the picker re-filters every session on each key press. The lowered unit form of each
searched text is cached (:mod:`pitui.core.search_texts`: keyed by the text itself, bounded;
:func:`prepare_search_texts` fills it ahead, :func:`prepare_phrase_texts` makes the phrase forms
ahead, :func:`clear_search_cache` empties it). A fuzzy token is matched with one ``str.find``
per query unit, which lands exactly where pi's unit-by-unit walk takes its matches, and only
those positions are scored in Python. :func:`filter_and_sort` remembers, for the tokens of the
last few queries, each text's score and walk state: re-sorting, toggling a filter or deleting a
character rescores nothing, typing another word scores only that word, and typing one more
letter of a token only continues each text's walk by one ``find``.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from pitui.core import search_texts
from pitui.core.js import JS_WHITESPACE, JS_WHITESPACE_RUN, js_lower, js_trim, utf16_units
from pitui.core.jsregex import compile_js_regex
from pitui.core.order import Row, S, flat_row, threaded_rows
from pitui.core.paths import default_normalize_path
from pitui.core.regex_search import js_regex_find, regex_budget
from pitui.core.search_texts import (
    Prepared,
    normalize_phrase,
    prepare_phrase_texts,
    prepare_search_texts,
    prepared,
)
from pitui.core.session_info import SearchableSession, searchable_text

if TYPE_CHECKING:
    from regex import Pattern

__all__ = [
    "HEADER_PROBLEMS",
    "Query",
    "Row",
    "SearchableSession",
    "SortMode",
    "Token",
    "clear_search_cache",
    "default_normalize_path",
    "display_title",
    "filter_and_sort",
    "fuzzy_score",
    "has_name",
    "marked_title",
    "named_filter",
    "parse_query",
    "prepare_phrase_texts",
    "prepare_search_texts",
    "score",
    "search_cache_texts",
    "searchable_text",
]

SortMode = Literal["threaded", "recent", "relevance"]

# ---------------------------------------------------------------------------------------------
# Searched texts
# ---------------------------------------------------------------------------------------------


def _retain(texts: frozenset[str]) -> None:
    """Forget the cached forms and the scores of texts that are not in this listing."""
    if not search_texts.retain(texts):
        return  # the same listing again: nothing went stale
    with _memo_lock:
        tables: list[dict[str, Any]] = [*_memo.values(), *_walk_memo.values()]
        for table in tables:
            for stale in [text for text in table if text not in texts]:
                del table[stale]


def search_cache_texts() -> int:
    """How many distinct texts the search remembers anything of (cached forms or scores)."""
    with _memo_lock:
        tables: list[Iterable[str]] = [*_memo.values(), *_walk_memo.values()]
        return len({*search_texts.cached_texts()} | {text for table in tables for text in table})


def clear_search_cache() -> None:
    """Forget cached forms of searched texts and remembered token scores."""
    search_texts.clear()
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

    def score(self, prep: Prepared) -> float | None:
        raise NotImplementedError

    def scorer(self) -> Callable[[str], float | None]:
        """A function scoring a searched text, for one filter pass."""
        return lambda text: self.score(prepared(text))


class _FuzzyPart(_Part):
    __slots__ = ("matcher",)

    def __init__(self, value: str) -> None:
        super().__init__(("fuzzy", value))
        self.matcher = _FuzzyMatcher(value)

    def score(self, prep: Prepared) -> float | None:
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
        cached = search_texts.cached

        def score_text(text: str) -> float | None:
            prep = cached(text) or prepared(text)
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

    def score(self, prep: Prepared) -> float | None:
        idx = prep.normalized.find(self.phrase)
        return None if idx < 0 else idx * 0.1


class _RegexPart(_Part):
    __slots__ = ("regex",)

    def __init__(self, pattern: str, regex: Pattern[str]) -> None:
        super().__init__(("regex", pattern))
        self.regex = regex

    def score(self, prep: Prepared) -> float | None:
        # (RegexTooSlow goes up to the caller: the search stops and says why)
        index = js_regex_find(self.regex, prep.canonical)
        return None if index < 0 else index * 0.1


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
    regex: Pattern[str] | None = None
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
                phrase = normalize_phrase(token.value)
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


def _score_prepared(query: Query, prep: Prepared) -> float | None:
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
    return _score_prepared(parsed, prepared(searchable))


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


def has_name(name: str | None) -> bool:
    """A name counts when it is non-empty after JavaScript's trim."""
    return name is not None and js_trim(name) != ""


def named_filter(items: Iterable[S]) -> list[S]:
    """The Named filter (§2.6): sessions whose name is non-empty after trimming."""
    return [item for item in items if has_name(item.name)]


_CONTROL_CHARS: Final = re.compile("[\x00-\x1f\x7f]")


# Files pi's /resume lists (or a fork writes) that pi cannot resume: listed, marked, never
# resumed (pi 0.73.1 writes a fresh header over them, pi 1.x refuses them; issue 20.5). The
# summary's header problem → the mark the listings show before the title.
HEADER_PROBLEMS = {
    "no-id": "[header without id]",  # pi lists it (it checks only the first object's type)
    "line-before-header": "[line before the header]",  # a fork's title line: pi does not list it
}


def marked_title(title: str, header_problem: str | None) -> str:
    """A listed title with its file's header problem in front (see :data:`HEADER_PROBLEMS`)."""
    return title if header_problem is None else f"{HEADER_PROBLEMS[header_problem]} {title}"


def display_title(name: str | None, first_message: str) -> str:
    """A row's title (§2.2): the name, else the first message; controls → spaces, trimmed.

    A whitespace-only name counts as no name ([new] pi; 0.73.1 showed an empty title).
    """
    text = name if name is not None and has_name(name) else first_message
    return js_trim(_CONTROL_CHARS.sub(" ", text))


def _matching(
    searched: Iterable[tuple[S, str]],
    pairs: Sequence[tuple[Callable[[str], float | None], dict[str, float | None]]],
) -> tuple[list[S], list[float]]:
    """The items every part matches and their total scores, each part's score of a text taken
    from its table (or computed and kept there)."""
    unscored = _UNSCORED
    matched: list[S] = []
    scores: list[float] = []
    for item, text in searched:
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
    return matched, scores


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
            return threaded_rows(base, normalize_path)
        return [flat_row(item) for item in base]
    parsed = parse_query(query)
    if parsed.error is not None:
        return []
    texts = [item.search_text for item in items]  # (a property: read once per item)
    _retain(frozenset(texts))
    if named_only:
        searched = [(item, item.search_text) for item in base]
    else:
        searched = list(zip(items, texts, strict=True))
    parts = parsed._parts
    tables = _score_tables(parts)
    pairs = [(part.scorer(), table) for part, table in zip(parts, tables, strict=True)]
    with regex_budget():  # (a re: query's matches share a time limit)
        matched, scores = _matching(searched, pairs)
    if mode != "recent":
        # pi's stable sort by (score, newest first), as two stable sorts on plain float keys
        # (much faster than comparing tuples); equal keys keep input order, as in pi.
        order = list(range(len(matched)))
        newest = [-item.modified for item in matched]
        order.sort(key=newest.__getitem__)
        order.sort(key=scores.__getitem__)
        matched = [matched[k] for k in order]
    return [flat_row(item) for item in matched]
