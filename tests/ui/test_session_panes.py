"""The session view's two panes: tab between them, and the context pane's keys (escape goes back
to the tree, L and T act on the tree's selection, typing searches the tree); the F1 legend."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.app import App, ComposeResult
from textual.widgets import Static

from pitui.config import Settings
from pitui.ui.modals.confirm import ConfirmModal
from pitui.ui.modals.text_input import TextInputModal
from pitui.ui.screens.help import HelpScreen
from pitui.ui.screens.help import legend as legend_table
from pitui.ui.screens.session import SessionScreen
from pitui.ui.screens.session.panes import PaneLayout
from pitui.ui.themes import THEMES
from pitui.ui.widgets.branch_tree import BranchTree
from pitui.ui.widgets.tree_row import DIFF_MARK
from tests.ui.sessionview import ScreenApp, opened, settle, wait_for, workers_done, write_session
from tests.ui.test_session_nav import two_branches


def focused_id(app: ScreenApp) -> str | None:
    return app.focused.id if app.focused is not None else None


def footer_keys(app: ScreenApp) -> dict[str, str]:
    """What the footer offers now: key → description."""
    return {key: binding.description for key, (_node, binding, _on, _tip)
            in app.screen.active_bindings.items() if binding.show}  # fmt: skip


async def press(app: ScreenApp, pilot: Any, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(app, pilot)


async def test_tab_moves_between_the_panes(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        assert focused_id(app) == "branch-tree"
        await press(app, pilot, "tab")
        assert focused_id(app) == "context-lines"
        assert footer_keys(app).get("escape") == "Tree"
        await press(app, pilot, "tab")
        assert focused_id(app) == "branch-tree"
        assert footer_keys(app).get("escape") == "Leave"
        await press(app, pilot, "shift+tab")
        assert focused_id(app) == "context-lines"


async def test_escape_in_the_context_pane_goes_back_to_the_tree(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        await press(app, pilot, "tab", "escape")
        assert focused_id(app) == "branch-tree"
        assert app.screen is app.session_screen  # the view stays open
        await press(app, pilot, "escape")
        assert app.return_code is not None or not app.is_running  # escape in the tree leaves


async def test_typing_in_the_context_pane_searches_the_tree(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        await press(app, pilot, "tab", "m", "o", "r", "e", "space", "a")
        tree = app.branch_tree
        assert focused_id(app) == "branch-tree"
        assert tree.model.query == "more a"
        assert tree.selected_uid == "u4" and tree.model.count == 1


async def test_label_keys_in_the_context_pane_act_on_the_selected_entry(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        await press(app, pilot, "tab", "T")
        assert app.branch_tree.show_label_times
        assert focused_id(app) == "branch-tree"
        await press(app, pilot, "tab", "L")
        assert isinstance(app.screen, TextInputModal)
        await press(app, pilot, "escape")
        assert not isinstance(app.screen, TextInputModal)
        assert focused_id(app) == "branch-tree"


async def test_the_context_pane_still_scrolls(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 12)) as pilot:
        await opened(app, pilot)
        lines = app.session_screen.context_lines
        await press(app, pilot, "tab", "home")
        assert round(lines.scroll_y) == 0
        await press(app, pilot, "end")
        assert lines.max_scroll_y == 0 or round(lines.scroll_y) == lines.max_scroll_y
        assert app.branch_tree.model.query == ""


def plain(renderable: Any, width: int = 160) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


async def test_f1_legend_names_every_mark_the_tree_draws(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        app.push_screen(HelpScreen({}))
        await settle(app, pilot)
        assert app.screen.query("#help-legend")
        legend = plain(legend_table(app.get_css_variables())).splitlines()
        for mark, meaning in [("› ", "the selected row"), ("• ", "active path"),
                              ("├⊟", "can be folded"), ("├⊞", "folded: its rows are hidden"),
                              ("┊12", "a deep row"), (f"{DIFF_MARK} ", "marked to compare"),
                              ("[label]", "a label"),
                              ("[compaction", "a compaction"), ("● pi is writing", "pi wrote"),
                              ("follow on", "follows new entries")]:  # fmt: skip
            row = next((line for line in legend if line.lstrip().startswith(mark)), "")
            assert meaning in row, (mark, row)
        table = plain(HelpScreen({"session.back": "ctrl+k"})._table())
        assert "ctrl+k" in table and "tab / shift+tab" in table and "alt+l" in table
        assert "Context pane" in table


class LegendApp(App[None]):
    """Only the legend, in the pi-dark theme's colours (the help's key table above it grows with
    every command, which would move a snapshot of the whole help screen)."""

    def __init__(self) -> None:
        super().__init__()
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = "pi-dark"

    def compose(self) -> ComposeResult:
        yield Static(id="legend")

    def on_mount(self) -> None:
        self.query_one("#legend", Static).update(legend_table(self.get_css_variables()))


def test_legend_snapshot(snap_compare: Any) -> None:
    """The legend at 80 columns."""
    assert snap_compare(LegendApp(), terminal_size=(80, 24))


# ------------------------------------------------------------------------------ after extract


def top(app: ScreenApp) -> object:
    return app.screen  # (not narrowed by an earlier isinstance check)


async def extract_at_a4(tmp_path: Path, pilot: Any, app: ScreenApp) -> Path:
    await opened(app, pilot)
    assert app.branch_tree.select_uid("a4")
    await settle(app, pilot)
    await press(app, pilot, "ctrl+e")
    folder = tmp_path / "sessions"
    made = [p for p in folder.iterdir() if p.name != "s.jsonl"]
    assert len(made) == 1
    return made[0]


async def test_extract_offers_to_open_the_new_session(tmp_path: Path) -> None:
    path = write_session(two_branches(), tmp_path / "sessions")
    app = ScreenApp(path)
    async with app.run_test(size=(120, 36)) as pilot:
        made = await extract_at_a4(tmp_path, pilot, app)
        assert isinstance(app.screen, ConfirmModal)
        await press(app, pilot, "enter")
        screen = app.screen
        assert isinstance(screen, SessionScreen) and screen is not app.session_screen
        await wait_for(pilot, lambda: screen.session is not None and bool(screen.query(BranchTree)))
        await settle(app, pilot)
        assert screen.path == str(made)
        session = screen.session
        assert session is not None and session.leaf is not None and session.leaf.id == "a4"
        assert [m.id for m in session.branch()] == ["u1", "a1", "u2", "a2", "u4", "a4"]
        await press(app, pilot, "escape")  # back to the session it came from
        assert top(app) is app.session_screen


async def test_extract_offer_declined_stays(tmp_path: Path) -> None:
    path = write_session(two_branches(), tmp_path / "sessions")
    app = ScreenApp(path)
    async with app.run_test(size=(120, 36)) as pilot:
        await extract_at_a4(tmp_path, pilot, app)
        assert isinstance(app.screen, ConfirmModal)
        await press(app, pilot, "escape")
        assert top(app) is app.session_screen
        assert app.branch_tree.selected_uid == "a4"


# ------------------------------------------------------------------------------ pane sizes


def test_pane_layout_rules() -> None:
    layout = PaneLayout()
    assert layout.resize(10, stacked=False) == 60 and layout.tree_width == 60
    assert layout.resize(-10, stacked=True) == 50 and layout.tree_height == 50
    for _ in range(9):
        layout.resize(10, stacked=False)
    assert layout.tree_width == 80
    for _ in range(9):
        layout.resize(-10, stacked=False)
    assert layout.tree_width == 20
    assert layout.zoom("context") == "context"
    assert layout.other() == "tree"
    assert layout.zoom("tree") == "both"
    layout.zoom("tree")
    layout.resize(10, stacked=False)  # resizing brings both panes back
    assert layout.panes == "both"


def shown_panes(app: ScreenApp) -> tuple[bool, bool]:
    screen = app.session_screen
    return screen.query_one("#tree-pane").display, screen.context_pane.display


async def test_zoom_hides_the_other_pane_and_tab_swaps(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(app, pilot)
        tree_pane = app.session_screen.query_one("#tree-pane")
        await press(app, pilot, "alt+z")
        assert shown_panes(app) == (True, False)
        assert tree_pane.outer_size.width == 160  # the whole width
        await press(app, pilot, "tab")
        assert shown_panes(app) == (False, True) and focused_id(app) == "context-lines"
        assert app.session_screen.context_pane.outer_size.width == 160
        await press(app, pilot, "alt+z")
        assert shown_panes(app) == (True, True) and focused_id(app) == "context-lines"
        await press(app, pilot, "alt+z")  # from the context pane: the context fills the view
        assert shown_panes(app) == (False, True)
        await press(app, pilot, "escape")  # zoomed on the context: the tree comes back, zoomed
        assert shown_panes(app) == (True, False) and focused_id(app) == "branch-tree"
        await press(app, pilot, "tab", "m", "o")  # typing from a zoomed context: the same
        assert shown_panes(app) == (True, False) and app.branch_tree.model.query == "mo"


async def test_the_context_hidden_then_shown_follows_the_selection(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(app, pilot)
        await press(app, pilot, "alt+z", "home")
        await press(app, pilot, "alt+z")
        await workers_done(app)
        await settle(app, pilot)
        shown = app.session_screen.context_pane.shown
        assert shown is not None and shown.uid == "u1"


@pytest.mark.parametrize(("size", "along"), [((160, 45), "width"), ((80, 24), "height")])
async def test_wider_and_narrower_tree(tmp_path: Path, size: tuple[int, int], along: str) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=size) as pilot:
        await opened(app, pilot)
        screen = app.session_screen
        tree_pane, context = screen.query_one("#tree-pane"), screen.context_pane

        def share() -> float:
            tree, other = (float(getattr(w.outer_size, along)) for w in (tree_pane, context))
            return tree / (tree + other)

        before = share()
        await press(app, pilot, "alt+w", "alt+w")
        assert share() > before + 0.15
        assert app.noted("% of the " + along)
        await press(app, pilot, "alt+shift+w", "alt+shift+w", "alt+shift+w", "alt+shift+w")
        assert share() < before - 0.15


async def test_the_config_sets_the_first_layout(tmp_path: Path) -> None:
    settings = Settings(tree_width=70, session_panes="context")
    app = ScreenApp(write_session(two_branches(), tmp_path), settings=settings)
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(app, pilot)
        assert shown_panes(app) == (False, True) and focused_id(app) == "context-lines"
        await press(app, pilot, "alt+z")
        tree_pane = app.session_screen.query_one("#tree-pane")
        assert abs(tree_pane.outer_size.width - 0.7 * 160) <= 2


async def test_a_context_drawn_at_an_old_width_is_drawn_again_at_the_panes(
    tmp_path: Path,
) -> None:
    # The pane resized while its first context was drawn in a worker (seen at 80x24 on a busy
    # machine: the context wrapped at half the pane's width until another entry was selected).
    from dataclasses import replace

    from pitui.ui.widgets.context_pane import ContextPane

    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        pane = app.screen.query_one(ContextPane)
        assert pane.shown is not None
        width = pane.shown.width
        pane.post_message(ContextPane._Ready(replace(pane.shown, width=width // 2)))
        await settle(app, pilot)
        await settle(app, pilot)
        assert pane.shown is not None and pane.shown.width == width
