"""The picker on small terminals (issue 21 §2): 80×24 and narrower.

The header keeps its modes whole and cuts the title (ui-behaviour §2.1), hint lines are cut
between their items with ``…``, the preview leaves the list the whole width under 100 columns
(below it on a tall terminal, hidden on a short one until F4), and the footer shows only keys that
fit — each of which does what it says.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets._footer import FooterKey

from pitui.ui.app import PituiApp
from pitui.ui.screens.picker import PickerScreen
from pitui.ui.screens.picker.layout import preview_place
from pitui.ui.widgets.fit import cut_end, cut_start, fit_hint, fit_items
from pitui.ui.widgets.fitting_footer import FittingFooter
from pitui.ui.widgets.preview import SessionPreview
from pitui.ui.widgets.session_list import SessionList
from tests.core.sessiondata import chain
from tests.ui.picker_kit import (
    FakeCatalog,
    FakeItem,
    aged,
    fake_app,
    picker,
    preview_loaded,
    settle,
    static_text,
    store_app,
    write_session,
)

HOME = "/home/ana"


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


# ------------------------------------------------------------------------------ cutting text
def test_cut_end_marks_the_cut_and_drops_the_blank_before_it() -> None:
    assert cut_end("Resume Session (Current Folder)", 40) == "Resume Session (Current Folder)"
    assert cut_end("Resume Session (Current Folder)", 24) == "Resume Session (Current…"
    assert cut_end("Resume Session (Current Folder)", 16) == "Resume Session…"  # not "Session …"
    assert cut_end("abc", 1) == "…" and cut_end("abc", 0) == ""


def test_cuts_count_cells_not_characters() -> None:
    wide = "会话记录很长"  # two cells each
    assert cut_end(wide, 7) == "会话记…" and cell_len(cut_end(wide, 7)) == 7
    assert cell_len(cut_end(wide, 6)) <= 6  # a split wide character is not half drawn
    assert cut_start("~/code/webapp", 9) == "…e/webapp"  # a path keeps its end
    assert cut_start("~/code/webapp", 20) == "~/code/webapp" and cut_start("abc", 0) == ""
    assert cell_len(cut_start("路径/会话记录", 6)) <= 6


def test_hint_lines_are_cut_between_their_items() -> None:
    hint = "ctrl+s sort · ctrl+n named · ctrl+d delete · ctrl+p path (off)"
    assert fit_hint(hint, 80) == hint
    assert fit_hint(hint, 50) == "ctrl+s sort · ctrl+n named · ctrl+d delete …"
    assert fit_hint(hint, 20) == "ctrl+s sort …"
    assert fit_hint(hint, 8) == "ctrl+s…"  # not even one item with its marker: cut inside it
    assert fit_items(["a", "b"], 0) == ""


def test_where_the_preview_goes() -> None:
    assert preview_place(160, 45, None) == "beside"
    assert preview_place(100, 30, None) == "beside"
    assert preview_place(99, 30, None) == "hidden"
    assert preview_place(80, 24, None) == "hidden"
    assert preview_place(80, 50, None) == "below"
    assert preview_place(80, 24, True) == "below"  # asked for: shown anyway
    assert preview_place(160, 45, False) == "hidden"


# ------------------------------------------------------------------------------ the screen
def catalog() -> FakeCatalog:
    items = [
        FakeItem(
            path=f"{HOME}/s/{n}.jsonl",
            id=f"id{n}",
            first_message=f"Write a function that parses the config file number {n}",
            modified=aged(n * 60_000),
            cwd=f"{HOME}/code/webapp",
        )
        for n in range(1, 15)
    ]
    return FakeCatalog(scopes={"current": items, "all": items})


def footer_keys(app: PituiApp) -> list[FooterKey]:
    return list(app.screen.query_one(FittingFooter).query(FooterKey))


async def test_80x24_header_hints_list_and_footer_fit() -> None:
    app = fake_app(catalog(), cwd=f"{HOME}/code/webapp")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        # the modes are whole (pi: the right part first), the title gets what is left
        assert static_text(app, "#picker-modes").endswith("Name: All  Sort: Threaded")
        title = static_text(app, "#picker-title")
        assert title.startswith("Resume Session") and title.endswith("…")
        header = app.screen.query_one("#picker-header")
        title_width = app.screen.query_one("#picker-title").region.width
        modes_width = app.screen.query_one("#picker-modes").region.width
        assert title_width + modes_width <= header.region.width
        # hint lines: whole items, then " …"; never wider than the line
        for number in (1, 2):
            hint = static_text(app, f"#picker-hint-{number}")
            assert hint.endswith(" …") and cell_len(hint) <= 78
            assert not hint.endswith("· …")
        # no preview: the list has the whole width, the titles keep most of it
        assert not app.screen.query_one(SessionPreview).display
        session_list = app.screen.query_one(SessionList)
        assert session_list.region.width == 80
        assert all(len(row.title) > 45 for row in session_list.rows)
        # the footer: whole keys only, inside the screen, the most useful ones first
        keys = footer_keys(app)
        assert all(key.region.right <= 80 and key.region.width > 0 for key in keys)
        shown = [key.description for key in keys]
        assert shown[:5] == ["Resume", "Tree", "Quit", "Help", "Preview"]
        assert "Commands" in shown


async def test_160x45_shows_every_footer_key_and_the_preview_beside() -> None:
    app = fake_app(catalog(), cwd=f"{HOME}/code/webapp")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await preview_loaded(pilot)
        preview = app.screen.query_one(SessionPreview)
        assert preview.display and preview.region.x > 80
        assert static_text(app, "#picker-title") == "Resume Session (Current Folder)"
        shown = {key.description for key in footer_keys(app)}
        assert {"Resume", "Tree", "Quit", "Help", "Preview", "Scope", "Sort", "Named"} <= shown
        assert {"Path", "Delete", "Rename", "Undo", "Commands"} <= shown


async def test_f4_shows_the_preview_below_and_hides_it_again() -> None:
    app = fake_app(catalog(), cwd=f"{HOME}/code/webapp")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        preview = app.screen.query_one(SessionPreview)
        assert preview.loaded is None  # hidden: the file is not even read
        await pilot.press("f4")
        await settle(pilot)
        assert preview.display
        session_list = app.screen.query_one(SessionList)
        assert preview.region.y > session_list.region.bottom - 1
        assert preview.region.width == 80
        assert preview.target == (f"{HOME}/s/1.jsonl", None)
        await pilot.press("f4")
        await settle(pilot)
        assert not preview.display and session_list.region.height > 10


async def test_a_tall_narrow_terminal_has_the_preview_below() -> None:
    app = fake_app(catalog(), cwd=f"{HOME}/code/webapp")
    async with app.run_test(size=(80, 50)) as pilot:
        await settle(pilot)
        preview = app.screen.query_one(SessionPreview)
        session_list = app.screen.query_one(SessionList)
        assert preview.display and preview.region.y >= session_list.region.bottom
        assert 10 <= session_list.region.height <= 13 and preview.region.height > 20


async def test_every_footer_key_at_80x24_does_what_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.command import CommandPalette

    from pitui.launch import ResumeRequest
    from pitui.ui.modals.text_input import TextInputModal
    from pitui.ui.screens.help import HelpScreen
    from pitui.ui.screens.session import SessionScreen

    agent = tmp_path / "agent"
    cwd = str(tmp_path / "proj")
    Path(cwd).mkdir()  # (Enter resumes in the session's folder: it must exist)
    for n in range(3):
        write_session(agent, cwd, f"s{n}", chain([f"question {n}", "answer"]), name=f"{n}.jsonl")

    def started() -> tuple[PituiApp, list[object]]:
        app, exits = store_app(agent, cwd), []
        monkeypatch.setattr(app, "exit", lambda result=None, *args, **kw: exits.append(result))
        return app, exits

    checks: dict[str, Callable[[PituiApp], bool]] = {
        "Tree": lambda app: isinstance(app.screen, SessionScreen),
        "Help": lambda app: isinstance(app.screen, HelpScreen),
        "Preview": lambda app: app.screen.query_one(SessionPreview).display,
        "Scope": lambda app: picker(app).state.scope == "all",
        "Rename": lambda app: isinstance(app.screen, TextInputModal),
        "Commands": lambda app: isinstance(app.screen, CommandPalette),
    }
    app, _ = started()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = {key.description: key.key for key in footer_keys(app)}
    assert set(shown) - {"Resume", "Quit"} <= set(checks), "a footer key without a check"
    assert {"Resume", "Quit"} <= set(shown)
    for description, key in shown.items():
        app, exits = started()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, PickerScreen)
            await pilot.press(key)
            await settle(pilot)
            if description == "Resume":
                assert len(exits) == 1 and isinstance(exits[0], ResumeRequest)
            elif description == "Quit":
                assert exits == [None]
            else:
                assert checks[description](app), f"{key} ({description}) did nothing"
                assert exits == []
