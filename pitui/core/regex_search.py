"""A translated ``re:`` pattern run on texts, with limits on the time it may take.

A backtracking pattern such as ``(a+)+$`` on a long message takes exponential time in any
backtracking engine (V8 too: pi hangs on it). The ``regex`` package that runs
:func:`pitui.core.jsregex.compile_js_regex`'s patterns can stop a match after a time and lets
other threads run meanwhile; Python's ``re`` can do neither, and froze the picker for good.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Final

from pitui.core.jsregex import js_regex_subject

if TYPE_CHECKING:
    import regex

__all__ = [
    "MATCH_SECONDS", "SEARCH_SECONDS", "RegexTooSlow", "js_regex_find", "js_regex_search",
    "regex_budget",
]  # fmt: skip

# How long one match may take before the pattern is given up as too slow (a pattern people type
# finds its match in a megabyte of text in milliseconds), and a whole search over many texts
# (:func:`regex_budget`): `.*a.*b.*c.*x` stays under the first on most texts of a store, and
# matched text by text over store3k's 3,000 it ran for over a minute.
MATCH_SECONDS: Final = 0.5
SEARCH_SECONDS: Final = 3.0

# When the search under way must end (monotonic time), or None outside one (per thread).
_search_ends: ContextVar[float | None] = ContextVar("pitui_regex_search_ends", default=None)


@contextmanager
def regex_budget(seconds: float | None = None) -> Iterator[None]:
    """Every :func:`js_regex_find` inside (in this thread) shares ``seconds`` (default
    :data:`SEARCH_SECONDS`); then :class:`RegexTooSlow`."""
    token = _search_ends.set(time.monotonic() + (SEARCH_SECONDS if seconds is None else seconds))
    try:
        yield
    finally:
        _search_ends.reset(token)


class RegexTooSlow(Exception):
    """A ``re:`` pattern took longer than :data:`MATCH_SECONDS` on one text (it backtracks
    exponentially there): the search stops and says so instead of hanging."""

    def __init__(self) -> None:
        super().__init__(
            f"This re: pattern takes too long (over {MATCH_SECONDS:g} s on one text or "
            f"{SEARCH_SECONDS:g} s in all: it backtracks, as a repeated group such as (a+)+ or "
            "a chain of .* does); the search was stopped"
        )


def js_regex_find(compiled: regex.Pattern[str], subject: str) -> int:
    """The index of the first match of ``compiled`` in ``subject`` (a :func:`js_regex_subject`),
    or -1; raises :class:`RegexTooSlow` when the match takes over :data:`MATCH_SECONDS`, or
    goes past the end of the :func:`regex_budget` it runs in (the interpreter is released
    meanwhile: a search in a worker leaves the app running)."""
    limit = MATCH_SECONDS
    ends = _search_ends.get()
    if ends is not None:
        limit = min(limit, ends - time.monotonic())
        if limit <= 0:
            raise RegexTooSlow
    try:
        match = compiled.search(subject, timeout=limit, concurrent=True)
    except TimeoutError:
        raise RegexTooSlow from None
    return -1 if match is None else match.start()


def js_regex_search(compiled: regex.Pattern[str], text: str) -> int:
    """JavaScript's ``text.search(regex)`` for a :func:`compile_js_regex` result: index or -1
    (:class:`RegexTooSlow` as :func:`js_regex_find`)."""
    return js_regex_find(compiled, js_regex_subject(text))
