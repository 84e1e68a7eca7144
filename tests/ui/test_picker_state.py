"""The picker's state without Textual: loads, keys, texts, selection, live marks and pacing."""

from __future__ import annotations

import pytest

from pitui.core.search import filter_and_sort
from pitui.core.watch import (
    SessionCreated,
    SessionDeleted,
    SessionGrew,
    SessionRenamed,
    SessionReplaced,
    WatchNotice,
)
from pitui.ui.catalog import FullTextHit
from pitui.ui.screens.picker import live
from pitui.ui.screens.picker.live import LiveMarks, RefreshPacer
from pitui.ui.screens.picker.loader import hit_rows, list_rows
from pitui.ui.screens.picker.state import (
    LOADING_TEXT,
    PickerState,
    Shown,
    find_match,
    full_text_words,
    kept_index,
)
from tests.ui.picker_kit import FakeItem


def item(path: str, *, name: str | None = None, cwd: str = "/p", modified: float = 0) -> FakeItem:
    return FakeItem(path=path, id=path, first_message=f"first of {path}", modified=modified,
                    name=name, cwd=cwd)  # fmt: skip


# ------------------------------------------------------------------------------- loads
def test_a_scope_loads_once_and_a_forced_load_waits_for_the_running_one() -> None:
    state = PickerState()
    assert state.start_load("current", now=1.0) == 1
    assert state.visible.loading and state.visible.first_load
    assert state.start_load("current", now=2.0) is None  # never two at once
    assert state.start_load("current", force=True, now=2.0) is None
    assert state.visible.rerun  # ... the forced one runs after it
    outcome = state.finish_load("current", 1, [item("a")], None, now=4.0)
    assert outcome is not None
    assert outcome.first_load and outcome.rerun and not outcome.quiet and outcome.took == 3.0
    assert state.visible.loaded and not state.visible.running
    assert state.start_load("current", now=5.0) is None  # cached
    assert state.start_load("current", force=True, quiet=True, now=5.0) == 2
    assert not state.visible.loading  # a quiet load shows no "Loading"


def test_a_superseded_result_is_dropped() -> None:
    state = PickerState()
    state.start_load("current", now=0)
    state.finish_load("current", 1, [item("a")], None, now=0)
    state.start_load("current", force=True, now=0)
    assert state.finish_load("current", 1, [item("old")], None, now=0) is None
    assert not state.take_partial("current", 1, [item("old")])
    assert not state.note_progress("current", 1, 1, 2)
    assert [i.path for i in state.visible.items] == ["a"]


def test_progress_and_partial_rows_only_for_the_running_first_load() -> None:
    state = PickerState()
    state.start_load("all", now=0)
    assert not state.note_progress("all", 1, 3, 10)  # recorded, but "all" is not shown
    assert state.scopes["all"].progress == (3, 10)
    assert not state.take_partial("all", 1, [item("a")])  # kept, not shown
    assert [i.path for i in state.scopes["all"].items] == ["a"]
    state.start_load("current", now=0)
    assert state.note_progress("current", 1, 1, 2)
    assert state.take_partial("current", 1, [item("b")])
    state.finish_load("current", 1, [item("b")], None, now=0)
    assert not state.take_partial("current", 1, [item("late")])  # loaded: no more partials


def test_a_failed_first_load_counts_as_loaded_and_empty_a_failed_reload_keeps_the_rows() -> None:
    state = PickerState()
    state.start_load("current", now=0)
    state.finish_load("current", 1, (), "OSError: gone", now=0)
    assert state.visible.loaded and list(state.visible.items) == []
    state.start_load("current", force=True, now=0)
    state.finish_load("current", 2, [item("a")], None, now=0)
    state.start_load("current", force=True, now=0)
    state.finish_load("current", 3, (), "OSError: gone", now=0)
    assert [i.path for i in state.visible.items] == ["a"]


@pytest.mark.parametrize(
    ("current", "all_items", "quiet", "closes"),
    [([], [], False, True), ([], [item("a")], False, False), ([], [], True, False)],
)
def test_nothing_anywhere_closes_the_picker(
    current: list[FakeItem], all_items: list[FakeItem], quiet: bool, closes: bool
) -> None:
    state = PickerState()
    state.start_load("current", now=0)
    state.finish_load("current", 1, current, None, now=0)
    state.start_load("all", quiet=quiet, now=0)
    outcome = state.finish_load("all", 1, all_items, None, now=0)
    assert outcome is not None and outcome.nothing_anywhere is closes


def test_writes_and_file_changes_mark_the_hidden_scope() -> None:
    state = PickerState()
    for scope in ("current", "all"):
        state.start_load(scope, now=0)
        state.finish_load(scope, 1, [item("a"), item("b")], None, now=0)
    state.forget("a")
    assert [i.path for i in state.scopes["all"].items] == ["b"]
    assert [i.path for i in state.scopes["current"].items] == ["b"]
    assert state.plan_refresh()  # the visible one is re-read now ...
    assert state.scopes["all"].stale  # ... the other when it is shown
    assert state.toggle_scope()  # shown now, and it changed meanwhile
    assert state.scope == "all"
    state.invalidate_hidden()
    assert not state.scopes["current"].loaded and state.scopes["all"].loaded


# -------------------------------------------------------------------------------- keys
def test_keys_cycle_the_sort_and_toggle_the_filters() -> None:
    state = PickerState()
    sorts = []
    for _ in range(3):
        state.cycle_sort()
        sorts.append(state.sort)
    assert sorts == ["recent", "relevance", "threaded"]
    state.toggle_named()
    state.toggle_path()
    assert state.named_only and state.show_path
    assert state.filter_request("x")[2:] == ("", "threaded", True, True, "x", frozenset())


def test_leaving_full_text_mode_drops_the_hits() -> None:
    state = PickerState()
    state.set_query("  fts:apple ")
    assert state.full_text == "apple"
    state.shown.hits = [FullTextHit("a", "e1", "apple")]
    state.set_query("fts:apples")
    assert state.shown.hits  # still full text: kept until the new hits come
    state.set_query("apple")
    assert state.full_text is None and state.shown.hits == []
    assert full_text_words("fts:") == "" and full_text_words("fts") is None


def test_the_selection_follows_a_kept_session_else_keeps_its_index() -> None:
    items = [item("a"), item("b"), item("c")]
    assert kept_index(items, "c", 0) == 2
    assert kept_index(items, "gone", 1) == 1
    assert kept_index(items, None, 5) == 5  # (the list clamps it)
    shown = Shown(items=list(items), hits=[FullTextHit("b", "e7", "")])
    assert shown.item_at(1) is items[1] and shown.item_at(3) is None and shown.item_at(-1) is None
    assert shown.entry_at(0) == "e7" and shown.entry_at(1) is None


# ------------------------------------------------------------------------------- texts
def test_the_header_says_scope_filter_sort_and_progress() -> None:
    state = PickerState()
    assert state.title() == "Resume Session (Current Folder)"
    assert "".join(text for text, _ in state.modes()) == (
        "◉ Current Folder | ○ All  Name: All  Sort: Threaded"
    )
    assert [value for _, value in state.modes()] == [True, False, True, False, True]
    state.start_load("all", now=0)
    state.toggle_scope()
    state.toggle_named()
    state.note_progress("all", 1, 3, 10)
    assert state.title() == "Resume Session (All)"
    assert state.modes()[0] == ("○ Current Folder | Loading 3/10", True)
    assert state.modes()[2] == ("Named", True)


def test_empty_texts() -> None:
    state = PickerState()
    state.start_load("current", now=0)
    assert state.empty_text() == LOADING_TEXT
    state.finish_load("current", 1, (), None, now=0)
    assert state.empty_text() == "  No sessions in current folder. Press Tab to view all."
    state.toggle_named()
    assert "No named sessions in current folder" in state.empty_text()
    state.toggle_scope()
    assert state.empty_text() == "  No named sessions found. Press ctrl+n to show all."


def test_the_hints_name_the_configured_keys() -> None:
    state = PickerState()
    first, second = state.hint_lines(lambda command: f"<{command.split('.')[1]}>")
    assert first.startswith("<scope> scope · re:<pattern> regex")
    assert "fts:<words> every message" in first
    assert "<path> path (off)" in second and second.endswith("<undo> undo")
    state.toggle_path()
    assert "picker.path path (on)" in state.hint_lines(str)[1]


def test_the_stats_title_says_what_is_counted() -> None:
    state = PickerState()
    assert state.stats_title(1) == "Usage · 1 session of this folder"
    state.toggle_scope()
    state.toggle_named()
    assert state.stats_title(2000) == "Usage · 2,000 sessions of all folders, named only"
    state.set_query("apple")
    assert state.stats_title(2) == "Usage · 2 sessions of all folders matching apple"


# -------------------------------------------------------------------------------- rows
def test_rows_show_path_cwd_count_and_marks() -> None:
    items = [item("/h/s/a.jsonl", cwd="/h/p", modified=2), item("/h/s/b.jsonl", name="B")]
    rows = list_rows(
        filter_and_sort(items, "", "recent", False),
        current="/h/s/b.jsonl",
        all_scope=True,
        show_path=True,
        live={"/h/s/a.jsonl"},
    )
    assert [(r.title, r.right, r.named, r.current, r.live) for r in rows] == [
        ("first of /h/s/a.jsonl", "/h/s/a.jsonl /h/p 3", False, False, True),
        ("B", "/h/s/b.jsonl /p 3", True, True, False),
    ]


def test_hit_rows_point_at_the_match() -> None:
    a = item("a")
    rows = hit_rows([FullTextHit("a", "e1", "say Apple pie\n")], [a], '"apple"', current=None)
    assert rows[0].key == "a#e1" and rows[0].snippet == "say Apple pie "
    assert rows[0].match == (4, 9)
    assert find_match("nothing here", "apple") is None
    empty = hit_rows([FullTextHit("a", "e2", "")], [a], "x", current="a")
    assert empty[0].snippet == "(the entry is no longer in the file)" and empty[0].current


# -------------------------------------------------------------------------------- live
def test_growth_marks_a_session_live_until_its_mark_ends() -> None:
    marks = LiveMarks()
    touched, notices = marks.take(
        [SessionGrew("a"), SessionCreated("b"), WatchNotice("polling instead")], now=100.0
    )
    assert touched == {"a", "b"} and notices == ["polling instead"]
    assert marks.live == {"a": 100.0 + live.LIVE_SECONDS, "b": 100.0 + live.LIVE_SECONDS}
    assert marks.expire(101.0) == pytest.approx(live.LIVE_SECONDS - 1.0 + 0.05)
    assert marks.expire(100.0 + live.LIVE_SECONDS) is None and marks.live == {}
    assert marks.touched == {"a", "b"}


def test_renames_deletions_and_our_own_writes() -> None:
    marks = LiveMarks()
    marks.take([SessionGrew("a"), SessionGrew("c")], now=0.0)
    marks.own_write("d", now=0.0)
    touched, _ = marks.take(
        [SessionRenamed("a", "b"), SessionDeleted("c"), SessionReplaced("e"), SessionGrew("d")],
        now=1.0,
    )
    assert touched == {"a", "b", "c", "d", "e"}
    assert marks.live == {}  # renamed and deleted lose the mark; our own write never gets one


def test_the_listing_is_reread_less_often_when_it_is_slow() -> None:
    pacer = RefreshPacer(last=10.0)
    assert pacer.wait(10.2) == pytest.approx(live.REFRESH_INTERVAL - 0.2)
    pacer.cost = 1.0
    assert pacer.wait(10.2) == pytest.approx(live.REFRESH_COST_FACTOR * 1.0 - 0.2)
    assert pacer.wait(20.0) < 0


def test_hits_are_taken_only_for_the_query_and_scope_shown_now() -> None:
    state = PickerState()
    state.start_load("current", now=0)
    state.finish_load("current", 1, [item("a"), item("b")], None, now=0)
    hits = [FullTextHit("b", "e1", "x"), FullTextHit("gone", "e2", "x"), FullTextHit("a", "e3", "")]
    assert not state.take_hits("apple", "current", hits)  # not in full-text mode
    state.set_query("fts:apple")
    assert not state.take_hits("pear", "current", hits)  # an older query
    assert not state.take_hits("apple", "all", hits)  # the other scope
    assert state.note_indexing(3, 10) and state.waiting_text("apple").endswith("3/10")
    assert state.take_hits(" apple", "current", hits)
    assert state.indexing is None
    assert [
        (h.entry_id, i.path) for h, i in zip(state.shown.hits, state.shown.items, strict=True)
    ] == [
        ("e1", "b"),
        ("e3", "a"),
    ]
    assert not state.note_indexing(5, 10)  # hits are shown: nothing to redraw
    assert not state.note_indexing(10, 10) and state.indexing is None
    assert state.waiting_text("apple") == "  Searching…"
    assert state.waiting_text(" ").startswith("  Full-text search: type words")
