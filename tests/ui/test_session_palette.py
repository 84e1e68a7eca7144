"""The command palette in the session view (issue 21 §3): each command it offers runs where its
key would, so the tree's (Up, First, the filters…) move the tree, not the screen."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette

from pitui.ui.commands import COMMANDS
from pitui.ui.palette import PituiCommands
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.branch_tree import BranchTree
from tests.ui.sessionview import ScreenApp, copy_fixture, opened, settle, wait_for


class PaletteApp(ScreenApp):
    """The session view with pitui's palette (the app's ``ctrl+x``; here Textual's key)."""

    COMMANDS = {PituiCommands}


async def test_a_tree_command_run_from_the_palette_moves_the_tree(tmp_path: Path) -> None:
    app = PaletteApp(copy_fixture("branches", tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        tree = app.branch_tree
        assert tree.model.selected_index != 0  # opened at the leaf
        app.action_command_palette()
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"The first row")
        await pilot.pause(0.3)  # (the palette searches after a short delay)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        await settle(app, pilot)
        assert tree.model.selected_index == 0
        shown = app.session_screen.context_pane.shown
        assert shown is not None and shown.uid == tree.selected_uid  # the context followed


async def test_every_command_offered_has_its_action_where_it_runs(tmp_path: Path) -> None:
    app = ScreenApp(copy_fixture("branches", tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        provider = PituiCommands(app.session_screen)
        offered = list(provider._available())
        assert {c.where for c in offered} == {"app", "session", "tree"}
        assert {c.id for c in offered} >= {"tree.up", "tree.first", "session.show_all"}
        for command in offered:
            node = provider._node(command)
            name = command.action.rpartition(".")[2].split("(")[0]
            expected = {"app": app, "session": app.session_screen, "tree": app.branch_tree}
            assert node is expected[command.where], command.id
            if command.where != "app":  # (this test app is not pitui's: no help screen)
                assert callable(getattr(node, f"action_{name}", None)), command.id


async def test_no_tree_commands_before_there_is_a_tree(tmp_path: Path) -> None:
    app = ScreenApp(tmp_path / "missing.jsonl")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert not app.session_screen.query(BranchTree)
        ids = {c.id for c in PituiCommands(app.session_screen)._available()}
        assert not {c.id for c in COMMANDS if c.where == "tree"} & ids
        assert "session.leaf" in ids
