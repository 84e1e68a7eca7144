"""The search remembers only the texts of the listing it last searched (issue 24.13: the picker
grew by about 20 KB of native memory per line pi appended, and never gave it back)."""

from __future__ import annotations

from pitui.core.search import clear_search_cache, filter_and_sort, search_cache_texts
from tests.core.test_search import sess


def test_a_grown_session_leaves_nothing_of_its_old_text_behind() -> None:
    clear_search_cache()
    sessions = [sess(f"s{n}", text=f"talk about caches {n}") for n in range(50)]
    for query in ("cache", '"about caches"', "re:cach+e"):
        assert len(filter_and_sort(sessions, query, "threaded")) == 50
    assert search_cache_texts() == 50
    for round_ in range(20):  # pi appends to one session after another
        grown = sessions[round_]
        sessions[round_] = sess(grown.id, text=grown.search_text + f" more {round_}")
        for query in ("cache", '"about caches"', "re:cach+e"):
            assert len(filter_and_sort(sessions, query, "threaded")) == 50
        assert search_cache_texts() == 50  # not 50 + every old version


def test_the_same_listing_searched_again_keeps_its_work() -> None:
    clear_search_cache()
    sessions = [sess(f"s{n}", text=f"text {n}") for n in range(10)]
    filter_and_sort(sessions, "text", "recent")
    filter_and_sort(sessions[:5], "text", "recent")  # a narrower scope
    assert search_cache_texts() == 5
    filter_and_sort(sessions, "tex", "recent")
    assert search_cache_texts() == 10
