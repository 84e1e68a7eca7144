"""The help screen (F1) as a new user meets it: opened in the session view it lists the session
view's keys first, and on an 80-column terminal every command still says what it does (the
wide layout's "what it does" column had no room left there)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.widgets import Static

from pitui.ui.commands import COMMANDS
from pitui.ui.screens.help import HelpScreen
from pitui.ui.widgets.branch_tree import BranchTree
from tests.ui.sessionview import copy_fixture, wait_for
from tests.ui.test_session_screen import real_app


def shown_table(screen: HelpScreen, width: int) -> list[str]:
    """The key table as drawn at ``width`` columns."""
    table = screen.query_one("#help-table", Static)
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(table.content)
    return [line.rstrip() for line in console.export_text().splitlines()]


async def open_help(tmp_path: Path, size: tuple[int, int]) -> tuple[HelpScreen, list[str]]:
    app = real_app(copy_fixture("branches", tmp_path / "s"), tmp_path)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: bool(app.screen.query(BranchTree)))
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        width = screen.query_one("#help-table", Static).content_region.width
        return screen, shown_table(screen, width)


async def test_f1_in_the_session_view_starts_with_its_keys(tmp_path: Path) -> None:
    _, lines = await open_help(tmp_path, (160, 45))
    places = ["Session view", "Session tree", "Context pane (tab)", "Everywhere", "Session picker"]
    titles = [line.strip() for line in lines if line.strip() in places]
    assert titles == places


async def test_at_80_columns_every_command_says_what_it_does(tmp_path: Path) -> None:
    _, lines = await open_help(tmp_path, (80, 24))
    text = " ".join(" ".join(line.split()) for line in lines)
    for command in COMMANDS:
        assert command.id in text, command.id
        first_words = " ".join(command.help.split()[:3])
        assert first_words in text, (command.id, first_words)
