"""Typing in the picker's search (issue 22): only the latest query's rows are drawn, rows are made
only when drawn, and a query typed a moment ago gives its rows again without filtering."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pitui.core.search import Row, filter_and_sort
from pitui.ui.catalog import PickerItem, SortMode
from pitui.ui.screens.picker.loader import PickerLoader, list_rows
from pitui.ui.screens.picker.screen import PickerScreen
from pitui.ui.screens.picker.state import FilterRequest
from pitui.ui.widgets.session_list import LazyRows, ListRow, SessionList
from tests.ui.picker_kit import (
    FakeCatalog,
    FakeItem,
    aged,
    fake_app,
    picker,
    settle,
    titles,
    wait_for,
)

SIZE = (120, 30)


def items(count: int) -> list[FakeItem]:
    words = ("cache lock", "cache hit", "lock free", "hit parade")
    return [
        FakeItem(f"/s/{n}.jsonl", f"id{n}", f"{words[n % 4]} {n}", aged(60_000 * (n + 1)))
        for n in range(count)
    ]


@dataclass
class SlowCatalog(FakeCatalog):
    """Records every query it was asked to filter; a query's filter (not the empty one's)
    waits until ``release`` is set, so a test decides what is typed meanwhile (a fixed delay
    was outlasted on a busy machine: the first query's rows came before the keys did)."""

    asked: list[str] = field(default_factory=list)
    busy: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def rows(
        self, items: Sequence[PickerItem], query: str, mode: SortMode, named_only: bool
    ) -> list[Row[Any]]:
        self.asked.append(query)
        self.busy.set()
        if query:
            self.release.wait(timeout=20)
        return super().rows(items, query, mode, named_only)


def drawn_queries(screen: PickerScreen) -> list[str]:
    """The query held each time the list's rows are set from now on (the list filled as they
    are)."""
    drawn: list[str] = []
    set_rows = screen.session_list.set_rows

    def recording(rows: Sequence[ListRow], **kwargs: Any) -> None:
        drawn.append(screen.state.query)
        set_rows(rows, **kwargs)

    screen.session_list.set_rows = recording  # type: ignore[method-assign]
    return drawn


async def test_keys_typed_faster_than_results_draw_only_the_latest_query() -> None:
    catalog = SlowCatalog(scopes={"current": items(40)})
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(app)
        drawn = drawn_queries(screen)
        catalog.asked.clear()
        catalog.busy.clear()
        await pilot.press("c")
        await wait_for(pilot, catalog.busy.is_set, what="the first filter")
        search = screen.search
        for key in "ache lo":  # all at once, while "c" is filtered (pilot.press waits each time)
            search.insert_text_at_cursor(key)
        catalog.release.set()
        await wait_for(pilot, lambda: drawn[-1:] == ["cache lo"], what="the last query's rows")
        await settle(pilot)
        # the queries typed while one was filtered were never filtered, never drawn
        assert catalog.asked == ["c", "cache lo"]
        assert drawn == ["cache lo"]  # (the rows of "c" came when "cache lo" was wanted)
        expected = filter_and_sort(catalog.scopes["current"], "cache lo", "threaded")
        assert titles(app) == [row.item.first_message for row in expected]


async def test_rows_of_a_query_the_box_no_longer_holds_are_not_drawn() -> None:
    """Keys that come in one read reach the screen one message at a time: the rows of the query
    it last saw, if they come before the change of the box, are not drawn (the box's are)."""
    catalog = FakeCatalog(scopes={"current": items(40)})
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(app)
        await pilot.press("c")
        await settle(pilot)
        drawn = drawn_queries(screen)
        state = screen.state
        with screen.loader.filter_lock:
            late = screen.loader.filtered(state.filter_request(), set())  # (the rows of "c")
        screen.search.insert_text_at_cursor("ache")  # (its change is posted, not yet handled)
        screen.rows.filtered(late)
        assert drawn == []
        await wait_for(pilot, lambda: drawn[-1:] == ["cache"], what="the box's query's rows")
        await settle(pilot)
        assert drawn == ["cache"]
        expected = filter_and_sort(catalog.scopes["current"], "cache", "threaded")
        assert titles(app) == [row.item.first_message for row in expected]


def test_lazy_rows_make_only_the_rows_asked_for() -> None:
    listed = items(1000)
    rows = filter_and_sort(listed, "", "recent")
    made: list[int] = []
    display = list_rows(rows, current=None, all_scope=False, show_path=False)
    make = display._make

    def counting(index: int, live: Any) -> ListRow:
        made.append(index)
        return make(index, live)

    display._make = counting
    assert len(display) == 1000
    assert display[5].title == listed[5].first_message and display[-1].key == listed[-1].path
    assert display[5] is display[5]  # made once
    assert made == [5, 999]
    assert display.key_of(7) == listed[7].path and made == [5, 999]
    # every row, as the eager list was
    eager = [
        (row.key, row.title, row.right, row.live, row.path)
        for row in list_rows(rows, current=None, all_scope=False, show_path=False)
    ]
    assert eager == [(i.path, i.first_message, "3", False, i.path) for i in listed]


async def test_live_marks_and_keys_of_lazy_rows() -> None:
    listed = items(50)
    rows = filter_and_sort(listed, "", "recent")
    display = list_rows(rows, current=None, all_scope=False, show_path=False)
    app = fake_app(FakeCatalog(scopes={"current": listed}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        widget = picker(app).query_one(SessionList)
        widget.set_rows(display)
        assert isinstance(widget.rows, LazyRows)
        assert widget.index_of(listed[30].path) == 30
        first = widget.rows[0]
        widget.set_live({listed[0].path, listed[40].path})
        assert widget.rows[0].live and not first.live
        assert widget.rows[40].live and not widget.rows[41].live
        widget.set_live(set())
        assert not widget.rows[0].live


class CountingCatalog(FakeCatalog):
    def __init__(self, listed: list[FakeItem]) -> None:
        super().__init__(scopes={"all": listed})
        self.asked: list[str] = []

    def rows(
        self, items: Sequence[PickerItem], query: str, mode: SortMode, named_only: bool
    ) -> list[Row[Any]]:
        self.asked.append(query)
        return super().rows(items, query, mode, named_only)


def test_a_query_typed_a_moment_ago_gives_its_rows_again_without_filtering() -> None:
    made = items(200)
    catalog = CountingCatalog(made)
    listed: Sequence[PickerItem] = made
    loader = PickerLoader(catalog, None)

    def request(query: str, of: Sequence[PickerItem]) -> FilterRequest:
        return FilterRequest("all", of, query, "threaded", False, False, None)

    typed = ["c", "ca", "cac", "cache", "cac", "ca", "c", ""]
    shown = [loader.filtered(request(q, listed), ()).items for q in typed]
    assert catalog.asked == ["c", "ca", "cac", "cache", ""]  # backspaces filtered nothing
    for query, got in zip(typed, shown, strict=True):
        assert got == [row.item for row in filter_and_sort(listed, query, "threaded")]
    # another listing (a reload): filtered again
    reloaded = list(listed)
    assert loader.filtered(request("ca", reloaded), ()).items == shown[1]
    assert catalog.asked[-1] == "ca" and len(catalog.asked) == 6


def test_a_searched_listing_gets_its_phrase_forms_made_once() -> None:
    from pitui.core import search, search_texts

    def phrase_form_made(text: str) -> bool:
        found = search_texts.cached(text)
        return found is not None and found.has_phrase_form

    search.clear_search_cache()
    made = items(120)
    listed: Sequence[PickerItem] = made
    loader = PickerLoader(FakeCatalog(scopes={"all": made}), None)

    def request(query: str, of: Sequence[PickerItem]) -> FilterRequest:
        return FilterRequest("all", of, query, "threaded", False, False, None)

    loader.filtered(request("", listed), ())
    assert loader.prepare_due is None  # no search: no text was read for it
    loader.filtered(request("ca", listed), ())
    assert loader.prepare_due is listed
    texts = [item.search_text for item in made]
    assert not any(phrase_form_made(t) for t in texts)
    loader.prepare_phrases(lambda: False)
    assert loader.prepare_due is None
    assert all(phrase_form_made(t) for t in texts)
    loader.filtered(request("cac", listed), ())
    assert loader.prepare_due is None  # this listing is done
    reloaded = list(listed)
    loader.filtered(request("cac", reloaded), ())
    assert loader.prepare_due is reloaded  # a new listing (its texts may have changed)
    search.clear_search_cache()
