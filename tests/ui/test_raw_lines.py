"""The raw-lines view of a file that is not a session: its lines, and every tree key answering."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from pitui.core.rawlines import read_raw_lines
from pitui.ui.commands import commands_for
from pitui.ui.widgets.raw_lines import NOT_A_SESSION, RawLinesView
from tests.interop.wild import WILD


class RawApp(App[None]):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.raw = read_raw_lines(str(WILD / name))
        self.notes: list[str] = []
        self.closes = 0

    def compose(self) -> ComposeResult:
        yield RawLinesView(self.raw, id="raw")

    def on_raw_lines_view_close_requested(self) -> None:
        self.closes += 1

    def notify(self, message: str, **kwargs: Any) -> None:
        self.notes.append(message)


async def test_each_line_is_shown_with_its_verdict() -> None:
    app = RawApp("line-before-header.jsonl")
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(RawLinesView)
        assert view.option_count == 4
        view.focus()
        view.highlighted = 0
        await pilot.press("down")
        line = view.selected_line
        assert line is not None and line.number == 2
        assert "too late" in line.verdict
        summary = view.summary().plain
        assert summary.startswith("Not a pi session: its first JSON object is not a session header")
        assert "pitui leaves the file as it is" in summary


async def test_every_tree_key_says_why_it_does_nothing() -> None:
    app = RawApp("header-without-id.jsonl")
    moving = {
        "cursor_up",
        "cursor_down",
        "page_up",
        "page_down",
        "first",
        "last",
        "escape",
        "backspace",
    }  # the list moves itself
    keys = [
        command.keys.split(",")[0]
        for command in commands_for("tree")
        if command.action.split("(", 1)[0] not in moving
    ]
    assert "L" in keys and "enter" in keys and "ctrl+o" in keys
    async with app.run_test(size=(120, 30)) as pilot:
        app.query_one(RawLinesView).focus()
        for key in keys:
            before = len(app.notes)
            await pilot.press(key)
            assert len(app.notes) == before + 1, key
            assert app.notes[-1].startswith(NOT_A_SESSION), key
        assert "no entries to label" in " ".join(app.notes)


async def test_escape_asks_to_leave() -> None:
    app = RawApp("header-without-id.jsonl")
    async with app.run_test(size=(120, 30)) as pilot:
        app.query_one(RawLinesView).focus()
        await pilot.press("escape")
        await pilot.pause()
        assert app.closes == 1


async def test_the_selected_line_is_copied() -> None:
    app = RawApp("line-before-header.jsonl")
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(RawLinesView)
        view.focus()
        view.highlighted = 0
        await pilot.pause()
        view.copy_selected()
        assert app.clipboard == '{"type":"title","title":"A fork\'s title line"}'
        assert app.notes[-1].startswith("Copied line 1 (")
