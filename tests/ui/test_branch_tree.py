"""The BranchTree widget in a tiny app: keys, mouse, messages and what it draws."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest
from rich.style import Style
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message

from pitui.core.session import Session
from pitui.core.tree_search import SearchIndex
from pitui.core.treeview import TreeView
from pitui.ui.widgets.branch_tree import BranchTree
from pitui.ui.widgets.tree_row import cut_to_width
from tests.conftest import REPO, fixture_by_scenario
from tests.core.sessiondata import assistant, entry, jsonl, user
from tests.ui.sessionview import workers_done

STYLES = REPO / "styles" / "session.tcss"


class TreeApp(App[None]):
    """Nothing but the tree, focused, and a record of every message it posts."""

    CSS_PATH = STYLES
    # an app-level printable key: the focused tree must still take "q" as search input
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit_app", "Quit")]

    def __init__(self, session: Session, **options: Any) -> None:
        super().__init__()
        self.session = session
        self.options = options
        self.posted: list[Message] = []
        self.quit_pressed = False

    def compose(self) -> ComposeResult:
        yield BranchTree(self.session, id="tree", **self.options)

    def on_mount(self) -> None:
        self.query_one(BranchTree).focus()

    def action_quit_app(self) -> None:
        self.quit_pressed = True

    @on(BranchTree.EntryHighlighted, "#tree")
    @on(BranchTree.EntrySelected, "#tree")
    @on(BranchTree.LabelRequested, "#tree")
    @on(BranchTree.SearchChanged, "#tree")
    @on(BranchTree.FilterChanged, "#tree")
    @on(BranchTree.LabelTimesToggled, "#tree")
    @on(BranchTree.CloseRequested, "#tree")
    def record(self, message: Message) -> None:
        self.posted.append(message)

    def last(self, kind: type[Message]) -> Any:
        found = [m for m in self.posted if isinstance(m, kind)]
        return found[-1] if found else None


def u25_session() -> Session:
    return Session.from_bytes(
        jsonl(
            user("u1", None, "first message", t=1),
            assistant("a1", "u1", "response 1", t=2),
            user("u2", "a1", "second message", t=3),
            assistant("a2", "u2", "response 2", t=4),
            user("u3b", "a2", "branch B start", t=5),
            assistant("a3b", "u3b", "branch B response", t=6),
            user("u4b", "a3b", "branch B deep", t=7),
            entry("label", "lbl", "u4b", t=8, targetId="u3b", label="bee"),
            user("u3a", "a2", "branch A start", t=9),
            assistant("a3a", "u3a", "branch A response", t=10),
            user("u4a", "a3a", "branch A deep", t=11),
            assistant("a4a", "u4a", "branch A leaf", t=12),
        )
    )


def tree_of(app: TreeApp) -> BranchTree:
    return app.query_one(BranchTree)


def screen_lines(tree: BranchTree) -> list[str]:
    return ["".join(s.text for s in tree.render_line(y)) for y in range(tree.size.height)]


def selected(app: TreeApp) -> str | None:
    return tree_of(app).selected_uid


async def settle(app: TreeApp, pilot: Any) -> None:
    await workers_done(app)
    await pilot.pause()


async def test_draws_the_rows_of_the_model() -> None:
    app = TreeApp(u25_session(), search_in_background=False)
    async with app.run_test(size=(70, 24)) as pilot:
        await pilot.pause()
        tree = tree_of(app)
        lines = [line.rstrip() for line in screen_lines(tree)]
        assert lines[:11] == [
            "  • user: first message",
            "  • assistant: response 1",
            "  • user: second message",
            "  • assistant: response 2",
            "  ├⊟ • user: branch A start",
            "  │     • assistant: branch A response",
            "  │     • user: branch A deep",
            "› │     • assistant: branch A leaf",
            "  └⊟ [bee] user: branch B start",
            "        assistant: branch B response",
            "        user: branch B deep",
        ]
        assert "(8/11)" in tree.status_line
        assert tree.search_line.plain.startswith("Type to search:")
        assert all(len(line) == tree.scrollable_content_region.width for line in screen_lines(tree))


@pytest.mark.parametrize("scenario", ["branches", "labels", "compaction"])
async def test_fixture_rows_match_the_model(scenario: str) -> None:
    session = Session.open(fixture_by_scenario("pi-written", scenario))
    app = TreeApp(session, search_in_background=False)
    async with app.run_test(size=(90, 30)) as pilot:
        await pilot.pause()
        tree = tree_of(app)
        width = tree.scrollable_content_region.width
        model = tree.model
        start = round(tree.scroll_offset.y)
        assert start == model.window_start(tree.page_size)
        expected = [
            "".join(t for t, _ in cut_to_width([(model.row(i).plain(), Style())], width))
            for i in range(start, min(model.count, start + tree.page_size))
        ]
        assert [line.rstrip() for line in screen_lines(tree)[: len(expected)]] == [
            line.rstrip() for line in expected
        ]
        default_count = model.count
        await pilot.press("ctrl+a")  # the fixtures start with model and thinking-level entries
        assert model.count > default_count and tree.status_line.endswith(" [all]")
        assert "[model: " in "\n".join(screen_lines(tree)) or round(tree.scroll_offset.y) > 0


async def test_selected_row_is_styled_with_the_cursor_class() -> None:
    app = TreeApp(u25_session(), search_in_background=False)
    async with app.run_test(size=(70, 24)) as pilot:
        await pilot.pause()
        tree = tree_of(app)
        cursor = tree.get_component_rich_style("branch-tree--cursor")
        row = tree.render_line(7)
        assert cursor.bgcolor is not None and cursor.bold
        assert all(seg.style is not None and seg.style.bgcolor == cursor.bgcolor for seg in row)
        label = tree.get_component_rich_style("branch-tree--label")
        bee = next(seg for seg in tree.render_line(8) if "[bee]" in seg.text)
        assert bee.style is not None and bee.style.color == label.color


async def test_up_down_wrap_and_paging_keys() -> None:
    session = Session.open(fixture_by_scenario("pi-written", "long-5000"))
    app = TreeApp(session, search_in_background=False)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        tree = tree_of(app)
        model = tree.model
        page = tree.page_size
        model.select_index(0)
        await pilot.press("up")
        assert model.selected_index == model.count - 1
        await pilot.press("down")
        assert model.selected_index == 0
        for key in ("pagedown", "right", "ctrl+f"):
            before = model.selected_index
            await pilot.press(key)
            assert model.selected_index == before + page
        for key in ("pageup", "left", "ctrl+b"):
            before = model.selected_index
            await pilot.press(key)
            assert model.selected_index == before - page
        await pilot.press("pageup")
        assert model.selected_index == 0
        # the selection stays on screen, centred as pi does
        model.select_index(2000)
        await pilot.press("down")
        assert round(tree.scroll_offset.y) == model.window_start(page)
        assert tree.render_line(2001 - round(tree.scroll_offset.y)).text.startswith("› ")


@pytest.mark.parametrize(
    ("left", "right", "keymap"),
    [
        ("ctrl+left", "ctrl+right", {}),
        # pi's alt+←/→, which pitui gives to back/forward: a [keymap] can give them back
        (
            "alt+left",
            "alt+right",
            {"tree.fold_or_up": "ctrl+left,alt+left", "tree.unfold_or_down": "alt+right"},
        ),
    ],
)
async def test_u25_fold_keys(left: str, right: str, keymap: dict[str, str]) -> None:
    app = TreeApp(u25_session(), search_in_background=False)
    app.set_keymap(keymap)
    async with app.run_test(size=(70, 24)) as pilot:
        await pilot.pause()
        assert selected(app) == "a4a"
        await pilot.press(left)
        assert selected(app) == "u3a"
        await pilot.press(left)
        assert tree_of(app).model.folded_uids == {"u3a"}
        assert "› ├⊞ • user: branch A start" in [
            line.rstrip() for line in screen_lines(tree_of(app))
        ]
        await pilot.press("down")
        assert selected(app) == "u3b"
        await pilot.press("up")
        await pilot.press(right)
        assert tree_of(app).model.folded_uids == set()
        await pilot.press("down")
        assert selected(app) == "a3a"
        await pilot.press(left)
        assert selected(app) == "u3a"
        await pilot.press(right)
        assert selected(app) == "a4a"


@pytest.mark.parametrize(
    ("key", "mode"),
    [
        ("ctrl+t", "no-tools"),
        ("ctrl+u", "user-only"),
        ("ctrl+l", "labeled-only"),
        ("ctrl+a", "all"),
    ],
)
async def test_filter_toggle_keys(key: str, mode: str) -> None:
    app = TreeApp(u25_session(), search_in_background=False)
    async with app.run_test(size=(70, 24)) as pilot:
        await pilot.pause()
        await pilot.press(key)
        assert tree_of(app).model.filter_mode == mode
        assert tree_of(app).filter_mode == mode
        assert app.last(BranchTree.FilterChanged).mode == mode
        await pilot.press(key)
        assert tree_of(app).model.filter_mode == "default"
        await pilot.press(key, "ctrl+d")
        assert tree_of(app).model.filter_mode == "default"
        assert app.last(BranchTree.FilterChanged).mode == "default"


async def test_filter_cycle_keys_and_empty_result() -> None:
    app = TreeApp(u25_session(), search_in_background=False)
    async with app.run_test(size=(70, 24)) as pilot:
        await pilot.pause()
        tree = tree_of(app)
        seen: list[str] = []
        for keys in (["ctrl+o"], ["ctrl+shift+o"] * 2, ["ctrl+o"] * 3, ["ctrl+o"]):
            await pilot.press(*keys)
            seen.append(tree.model.filter_mode)
        assert seen == ["no-tools", "all", "user-only", "labeled-only"]
        assert tree.model.count == 1 and "(1/1) [labeled]" in tree.status_line
        await pilot.press("ctrl+l")
        assert tree.filter_mode == "default"
        tree.filter_mode = "user-only"  # the reactive applies a filter too
        await pilot.pause()
        assert tree.model.filter_mode == "user-only"
        assert app.last(BranchTree.FilterChanged).mode == "user-only"


async def test_empty_filter_draws_no_entries_found() -> None:
    session = Session.from_bytes(jsonl(user("u1", None, "hi", t=1)))
    app = TreeApp(session, search_in_background=False)
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+l")
        tree = tree_of(app)
        assert screen_lines(tree)[0].rstrip() == "  No entries found"
        assert "(0/0) [labeled]" in tree.status_line
        assert app.last(BranchTree.EntryHighlighted).uid is None
        await pilot.press("enter", "L")  # nothing to select or label
        assert app.last(BranchTree.EntrySelected) is None
        assert app.last(BranchTree.LabelRequested) is None


async def test_label_and_label_time_keys() -> None:
    app = TreeApp(u25_session(), search_in_background=False)
    async with app.run_test(size=(70, 24)) as pilot:
        await pilot.pause()
        tree = tree_of(app)
        await pilot.press("L")
        message = app.last(BranchTree.LabelRequested)
        assert (message.uid, message.label) == ("a4a", None)
        tree.select_uid("u3b")
        await pilot.press("L")
        message = app.last(BranchTree.LabelRequested)
        assert (message.uid, message.label) == ("u3b", "bee")
        await pilot.press("T")
        assert tree.model.show_label_times and tree.show_label_times
        assert "[+label time]" in tree.status_line
        assert app.last(BranchTree.LabelTimesToggled).shown is True
        await pilot.press("T")
        assert not tree.model.show_label_times
        assert tree.model.query == ""  # L and T are commands, never typed into the search


async def test_typing_searches_and_escape_clears_then_closes() -> None:
    session = Session.from_bytes(
        jsonl(user("u1", None, "hello", t=1), assistant("a1", "u1", "hi", t=2))
    )
    app = TreeApp(session)
    async with app.run_test(size=(60, 12)) as pilot:
        await settle(app, pilot)
        tree = tree_of(app)
        assert tree.model.search_ready
        await pilot.press("h", "i")
        assert tree.model.query == "hi" and tree.search_query == "hi"
        assert [tree.model.entry(i).id for i in range(tree.model.count)] == ["a1"]
        assert "Type to search: hi" in tree.search_line.plain
        assert app.last(BranchTree.SearchChanged).query == "hi"
        await pilot.press("backspace")
        assert tree.model.query == "h"
        await pilot.press("q")  # an app binding, but the focused tree takes it as text
        assert tree.model.query == "hq" and not app.quit_pressed
        await pilot.press("escape")
        assert tree.model.query == "" and app.last(BranchTree.CloseRequested) is None
        await pilot.press("escape")
        assert app.last(BranchTree.CloseRequested) is not None


async def test_ctrl_c_clears_the_query_then_closes() -> None:
    app = TreeApp(u25_session(), search_in_background=False)
    async with app.run_test(size=(70, 24)) as pilot:
        await pilot.pause()
        await pilot.press("b", "e", "e")
        assert tree_of(app).model.query == "bee" and tree_of(app).model.count == 1
        await pilot.press("ctrl+c")
        assert tree_of(app).model.query == ""
        await pilot.press("ctrl+c")
        assert app.last(BranchTree.CloseRequested) is not None


async def test_query_typed_before_the_texts_are_read_is_applied_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gate = threading.Event()
    original = TreeView.compute_search_texts

    def slow(self: TreeView, *args: Any, **kwargs: Any) -> SearchIndex:
        gate.wait(10)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(TreeView, "compute_search_texts", slow)
    app = TreeApp(u25_session())
    async with app.run_test(size=(70, 24)) as pilot:
        await pilot.pause()
        tree = tree_of(app)
        await pilot.press("b", "e", "e")
        assert tree.model.query == "" and tree.search_query == "bee"
        assert "bee …" in tree.search_line.plain
        gate.set()
        await settle(app, pilot)
        assert tree.model.query == "bee"
        assert [tree.model.entry(i).id for i in range(tree.model.count)] == ["u3b"]


async def test_enter_click_and_double_click() -> None:
    app = TreeApp(u25_session(), search_in_background=False)
    async with app.run_test(size=(70, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        assert app.last(BranchTree.EntrySelected).uid == "a4a"
        await pilot.click("#tree", offset=(5, 3))  # the border is row 0: content row 2
        assert selected(app) == "u2"
        assert app.last(BranchTree.EntryHighlighted).uid == "u2"
        await pilot.double_click("#tree", offset=(5, 2))
        assert app.last(BranchTree.EntrySelected).uid == "a1"


async def test_mouse_wheel_scrolls_without_moving_the_selection() -> None:
    session = Session.open(fixture_by_scenario("pi-written", "long-5000"))
    app = TreeApp(session, search_in_background=False)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        tree = tree_of(app)
        tree.model.select_index(0)
        await pilot.press("up", "down")
        start = tree.scroll_offset.y
        chosen = selected(app)
        for _ in range(3):
            tree.post_message(events.MouseScrollDown(tree, 2, 2, 0, 1, 0, False, False, False))
        await pilot.pause()
        assert tree.scroll_offset.y > start and selected(app) == chosen


async def test_hostile_text_is_drawn_literally() -> None:
    session = Session.open(fixture_by_scenario("pi-written", "terminal-hostile"))
    app = TreeApp(session, filter_mode="all", search_in_background=False)
    async with app.run_test(size=(200, 20)) as pilot:
        await pilot.pause()
        tree = tree_of(app)
        drawn = "\n".join(screen_lines(tree))
        assert "[bold red]x[/]" in drawn  # markup shown, not applied
        assert not any((ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F for c in drawn)
        assert "\u202e" not in drawn  # bidi overrides never reach the terminal raw


async def test_rows_are_cut_to_the_width() -> None:
    app = TreeApp(u25_session(), search_in_background=False)
    async with app.run_test(size=(24, 24)) as pilot:
        await pilot.pause()
        tree = tree_of(app)
        width = tree.scrollable_content_region.width
        line = screen_lines(tree)[4]
        assert line.startswith("  ├⊟ • user: ") and line.rstrip().endswith("...")
        assert all(strip.cell_length == width for strip in map(tree.render_line, range(11)))


def test_cut_to_width_keeps_whole_graphemes() -> None:
    plain = Style()
    assert cut_to_width([("abc", plain)], 3) == [("abc", plain)]
    assert "".join(t for t, _ in cut_to_width([("abcdef", plain)], 5)) == "ab..."
    # wide characters: never half a CJK character, so the row may end one cell short
    cut = "".join(t for t, _ in cut_to_width([("ab", plain), ("漢字漢字", plain)], 8))
    assert cut == "ab漢..."
    family = "👨\u200d👩\u200d👧"
    cut = "".join(t for t, _ in cut_to_width([("x", plain), (family + "yyyy", plain)], 6))
    # §3.1: an emoji sequence is one cluster of 2 cells, so it fits in the 3 cells before "..."
    assert cut == "x" + family + "..."


async def test_session_changes_are_followed(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(user("u1", None, "one", t=1), assistant("a1", "u1", "two", t=2)))
    session = Session.open(path, final=True)
    app = TreeApp(session, search_in_background=False)
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        tree = tree_of(app)
        with path.open("ab") as handle:
            handle.write(jsonl(user("u2", "a1", "three", t=3), header=None))
        session.refresh()
        tree.session_changed()
        tree.set_leaf("u2")
        await pilot.pause()
        assert tree.model.count == 3 and selected(app) == "a1"
        assert [line.rstrip() for line in screen_lines(tree)[:3]] == [
            "  • user: one",
            "› • assistant: two",
            "  • user: three",
        ]
        assert tree.select_uid("u2")
        await pilot.pause()
        assert selected(app) == "u2"
        assert app.last(BranchTree.EntryHighlighted).uid == "u2"  # the move is announced


async def test_big_sessions_read_search_texts_on_the_first_keystroke(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(BranchTree, "PREFETCH_ENTRIES", 5)
    app = TreeApp(u25_session())
    async with app.run_test(size=(70, 24)) as pilot:
        await settle(app, pilot)
        tree = tree_of(app)
        assert not tree.model.search_ready  # nothing read while the user only browses
        await pilot.press("b")
        await settle(app, pilot)
        assert tree.model.search_ready and tree.model.query == "b"
        assert {tree.model.entry(i).id for i in range(tree.model.count)} >= {"u3b", "a3b"}


async def test_a_replaced_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(user("u1", None, "old text", t=1), assistant("a1", "u1", "old", t=2)))
    session = Session.open(path, final=True)
    app = TreeApp(session)
    async with app.run_test(size=(60, 12)) as pilot:
        await settle(app, pilot)
        tree = tree_of(app)
        replacement = tmp_path / "new.jsonl"
        replacement.write_bytes(
            jsonl(user("v1", None, "new text", t=1), assistant("b1", "v1", "fresh", t=2))
        )
        replacement.replace(path)
        assert session.refresh().kind == "replaced"
        tree.session_changed(replaced=True)
        await settle(app, pilot)
        await pilot.press("f", "r", "e", "s", "h")
        await settle(app, pilot)
        assert [tree.model.entry(i).id for i in range(tree.model.count)] == ["b1"]
        assert "old" not in "\n".join(screen_lines(tree))
