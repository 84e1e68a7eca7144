"""The forms of the picker's searched texts, made once and cached (see :mod:`pitui.core.search`).

A searched text is matched in three forms, all in unit form (:func:`pitui.core.js.utf16_units`):
lowered (fuzzy tokens), lowered with its white space collapsed (``"phrase"`` tokens) and
canonical (``re:`` patterns). :func:`prepared` makes a text's forms on first use and keeps them,
bounded by characters, for the texts of the last listing searched (:func:`retain`);
:func:`prepare_phrase_texts` makes the phrase forms ahead, in a worker.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from pitui.core.js import JS_WHITESPACE, js_lower, utf16_units
from pitui.core.jsregex import js_regex_subject

__all__ = [
    "Prepared",
    "cached",
    "cached_texts",
    "clear",
    "collapse_white",
    "normalize_phrase",
    "prepare_phrase_texts",
    "prepare_search_texts",
    "prepared",
    "retain",
]

_WS_OTHER_THAN_SPACE: Final = tuple(JS_WHITESPACE.replace(" ", ""))


def normalize_phrase(text: str) -> str:
    """``text.toLowerCase().replace(/\\s+/g, " ").trim()``, in unit form."""
    return collapse_white(utf16_units(js_lower(text)))


def collapse_white(lowered: str) -> str:
    """A lowered text (unit form) with every run of white space one space, trimmed: its phrase
    form. (White space is in the BMP and a surrogate is none, so this commutes with the unit
    form: the phrase form is made from the lowered one.)

    Done with C-speed string operations (white space → " ", then halve runs of spaces until none
    is left): the same result, many times faster than a regex over every space of a long text.
    """
    for ch in _WS_OTHER_THAN_SPACE:
        if ch in lowered:
            lowered = lowered.replace(ch, " ")
    while "  " in lowered:
        lowered = lowered.replace("  ", " ")
    return lowered.strip(" ")


class Prepared:
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
            self._normalized = collapse_white(self.lowered)
        return self._normalized

    @property
    def has_phrase_form(self) -> bool:
        return self._normalized is not None

    @property
    def canonical(self) -> str:
        if self._canonical is None:
            self._canonical = js_regex_subject(self.text)
        return self._canonical


# Bounded by characters: each entry is charged three times its text's length (the lowered form
# always, the phrase and regex forms once used). The bound holds the texts of 10,000 typical
# sessions (146 M characters in the benchmark store). Past it a text's forms are made for the
# pass that needs them and not kept: every key scans every listed text in the same order, so
# evicting the oldest would evict exactly the texts the next key needs first (each key would
# re-make every form); what is cached stays until the listing drops it (see retain).
_CACHE_MAX_CHARS: Final = 3 * 192 * 1024 * 1024
_cache: dict[str, Prepared] = {}
_cache_chars = 0
_cache_lock = threading.Lock()


def prepared(text: str) -> Prepared:
    """The forms of ``text`` (kept while the cache has room)."""
    prep = _cache.get(text)
    if prep is not None:
        return prep
    prep = Prepared(text)
    global _cache_chars
    with _cache_lock:
        if text not in _cache and (_cache_chars + 3 * len(text) <= _CACHE_MAX_CHARS or not _cache):
            _cache[text] = prep
            _cache_chars += 3 * len(text)
    return prep


# The texts of the last listing searched. A session that grew has a new text; the old one, its
# derived forms (about three times its size) and its remembered scores would otherwise stay until
# the bound above: 20 KB and more for every line pi appends, for good. Only the last listing: a
# reload makes new text objects even for the sessions that did not change, so keeping a second
# listing would keep a second copy of every text.
_listed: frozenset[str] = frozenset()


# The forms of a text if they are cached (nothing is made): the dict's own get, called for every
# listed text on every key (the dict is emptied, never replaced).
cached: Final[Callable[[str], Prepared | None]] = _cache.get


def retain(texts: frozenset[str]) -> bool:
    """Forget the forms of texts that are not in this listing; whether the listing is new."""
    global _cache_chars, _listed
    if texts == _listed:
        return False
    _listed = texts
    with _cache_lock:
        for stale in [text for text in _cache if text not in texts]:
            del _cache[stale]
            _cache_chars -= 3 * len(stale)
    return True


def cached_texts() -> list[str]:
    """The texts whose forms are cached."""
    with _cache_lock:
        return list(_cache)


def prepare_search_texts(texts: Iterable[str]) -> None:
    """Fill the cache ahead of the first key press (e.g. from a worker after listing)."""
    for text in texts:
        prepared(text)


def prepare_phrase_texts(
    texts: Sequence[str], cancelled: Callable[[], bool] = lambda: False, pause: float = 0.001
) -> int:
    """Make the phrase form of each cached text ahead of the first ``"phrase"`` query (from a
    worker, once a search has read and lowered the texts; a listing's first phrase query would
    otherwise make them all: seconds on 10,000 sessions). Returns how many were made.

    From the end of ``texts``: a phrase query filtering meanwhile goes from the start, so the two
    share the work instead of repeating it. Texts not cached are left (past the cache's bound a
    form is not kept anyway). Sleeps ``pause`` between batches so that the event loop and a
    key's filter get the GIL at once, and stops when ``cancelled()``.
    """
    made = 0
    get = _cache.get
    for index, text in enumerate(reversed(texts), start=1):
        prep = get(text)
        if prep is not None and prep._normalized is None:
            prep._normalized = collapse_white(prep.lowered)
            made += 1
        if index % _PREPARE_BATCH == 0:
            if cancelled():
                break
            time.sleep(pause)
    return made


_PREPARE_BATCH: Final = 50  # texts between two pauses of prepare_phrase_texts (~1-5 ms of work)


def clear() -> None:
    """Forget every cached form."""
    global _cache_chars, _listed
    with _cache_lock:
        _cache.clear()
        _cache_chars = 0
    _listed = frozenset()
