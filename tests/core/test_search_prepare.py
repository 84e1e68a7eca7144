"""The phrase forms of a listing's texts made ahead, in the background (issue 22: a listing's
first ``"phrase"`` query made them all, seconds on 10,000 sessions): the same forms as made on
demand, the same rows, and only for the texts the search holds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.core import search_texts
from pitui.core.js import JS_WHITESPACE, js_lower, utf16_units
from pitui.core.search import clear_search_cache, filter_and_sort, prepare_phrase_texts
from tests.core.test_search import _TEXT, NOW, Sess, ids

JS_SPACE_RUN = re.compile(f"[{re.escape(JS_WHITESPACE)}]+")


def phrase_form(text: str) -> str:
    """``text.toLowerCase().replace(/\\s+/g, " ").trim()`` in unit form, the plain way."""
    return utf16_units(JS_SPACE_RUN.sub(" ", js_lower(text)).strip(" "))


@settings(max_examples=300, deadline=None)
@given(text=_TEXT)
def test_the_phrase_form_made_from_the_lowered_form_is_javascripts(text: str) -> None:
    assert search_texts.collapse_white(utf16_units(js_lower(text))) == phrase_form(text)
    assert search_texts.normalize_phrase(text) == phrase_form(text)


def listing(texts: list[str]) -> list[Sess]:
    return [Sess(f"/s/{k}.jsonl", str(k), None, None, NOW - k, t) for k, t in enumerate(texts)]


def phrase_forms_made(texts: list[str]) -> list[bool]:
    return [cached_form(t).has_phrase_form for t in texts]


def cached_form(text: str) -> search_texts.Prepared:
    found = search_texts.cached(text)
    assert found is not None
    return found


def test_only_the_texts_a_search_holds_are_prepared_last_first_and_a_cancel_stops() -> None:
    clear_search_cache()
    items = listing([f"cache  {k}\nlock" for k in range(120)])
    texts = [item.search_text for item in items]
    filter_and_sort(items, "cache", "recent")  # a fuzzy search: texts lowered, no phrase form
    assert not any(phrase_forms_made(texts))
    stops = iter([False, True])  # after the first batch
    made = prepare_phrase_texts(texts, lambda: next(stops), pause=0)
    assert 0 < made < len(texts)
    assert phrase_forms_made(texts) == [False] * (len(texts) - made) + [True] * made  # from the end
    assert prepare_phrase_texts(texts, pause=0) == len(texts) - made  # the rest, nothing twice
    assert cached_form(texts[0]).normalized == phrase_form(texts[0])
    assert prepare_phrase_texts(["never searched"], pause=0) == 0
    assert search_texts.cached("never searched") is None
    clear_search_cache()


@settings(max_examples=100, deadline=None)
@given(texts=st.lists(_TEXT, max_size=8), phrase=_TEXT)
def test_prepared_phrase_forms_give_the_rows_made_on_demand(texts: list[str], phrase: str) -> None:
    items = listing(texts)
    query = f'"{phrase.replace(chr(34), "")}"'
    clear_search_cache()
    on_demand = ids(filter_and_sort(items, query, "relevance"))
    clear_search_cache()
    filter_and_sort(items, "a", "relevance")
    prepare_phrase_texts([item.search_text for item in items], pause=0)
    assert ids(filter_and_sort(items, query, "relevance")) == on_demand
    clear_search_cache()
