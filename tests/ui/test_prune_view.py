"""Pruning in the session view (issue 23 §1): ``D`` on an entry off the active path asks, naming
what goes; Enter prunes and the tree reloads; ``ctrl+z`` brings the file back exactly; the active
path, a busy file and Escape are refused or change nothing. Plus an SVG snapshot of the
confirmation."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pitui.ui.commands import COMMANDS
from pitui.ui.modals.confirm import ConfirmModal
from pitui.ui.modals.prune import PruneModal
from pitui.ui.screens.session import SessionScreen
from tests.ui.sessionview import (
    FROZEN,
    ScreenApp,
    copy_fixture,
    opened,
    oracle_view,
    pi_view,
    row_texts,
    settle,
)

SnapCompare = Callable[..., bool]
BRANCH = "bb71b88a"  # user "…" → d416a5f0, off the active path of the "branches" fixture


async def press(app: ScreenApp, pilot: Any, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(app, pilot)


async def select(app: ScreenApp, pilot: Any, uid: str) -> None:
    assert app.branch_tree.select_uid(uid)
    await settle(app, pilot)


def modal_text(app: ScreenApp) -> str:
    from textual.widgets import Static

    return str(app.screen.query_one("#dialog-body", Static).render())


async def test_d_asks_then_prunes_the_branch_and_ctrl_z_brings_it_back(tmp_path: Path) -> None:
    path = copy_fixture("branches", tmp_path)
    original = path.read_bytes()
    before = oracle_view("branches", path)
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        rows = len(row_texts(app.branch_tree))
        await select(app, pilot, BRANCH)
        await press(app, pilot, "D")
        assert isinstance(app.screen, PruneModal)
        text = modal_text(app)
        assert "2 entries (2 messages), 746 B" in text and "Ctrl+Z" in text
        await press(app, pilot, "enter")
        assert isinstance(app.screen, SessionScreen)
        assert app.noted("Pruned 2 entries")
        session = app.session_screen.session
        assert session is not None and session.get(BRANCH) is None
        assert len(row_texts(app.branch_tree)) == rows - 2  # the tree was reloaded
        assert app.branch_tree.selected_uid == "6fc794df"  # the pruned branch's parent
        after = pi_view(path)
        assert {k: after[k] for k in ("leaf", "branch", "labels", "roles")} == {
            k: before[k] for k in ("leaf", "branch", "labels", "roles")
        }
        assert after["entries"] == before["entries"] - 2
        await press(app, pilot, "ctrl+z")
        assert app.noted("Prune undone")
        assert path.read_bytes() == original
        assert len(row_texts(app.branch_tree)) == rows
        assert app.branch_tree.selected_uid == BRANCH


async def test_the_active_path_is_refused_with_the_reason(tmp_path: Path) -> None:
    path = copy_fixture("branches", tmp_path)
    original = path.read_bytes()
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)  # the leaf is selected: on the active path
        await press(app, pilot, "D")
        assert isinstance(app.screen, SessionScreen)
        assert app.noted("Not pruned") and app.noted("active path")
    assert path.read_bytes() == original


async def test_escape_prunes_nothing(tmp_path: Path) -> None:
    path = copy_fixture("branches", tmp_path)
    original = path.read_bytes()
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await select(app, pilot, BRANCH)
        await press(app, pilot, "D")
        assert isinstance(app.screen, PruneModal)
        await press(app, pilot, "escape")
        assert isinstance(app.screen, SessionScreen)
        await press(app, pilot, "ctrl+z")
        assert app.noted("Nothing to undo")
    assert path.read_bytes() == original


async def test_a_busy_file_asks_before_pruning(tmp_path: Path) -> None:
    path = copy_fixture("branches", tmp_path, age=1.0)  # pi wrote it a second ago
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await select(app, pilot, BRANCH)
        await press(app, pilot, "D", "enter")
        assert isinstance(app.screen, ConfirmModal) and not isinstance(app.screen, PruneModal)
        assert b'"id":"bb71b88a"' in path.read_bytes()
        await press(app, pilot, "enter")  # prune anyway
        assert isinstance(app.screen, SessionScreen)
        assert b'"id":"bb71b88a"' not in path.read_bytes()


async def test_undo_after_pi_wrote_asks_first(tmp_path: Path) -> None:
    path = copy_fixture("branches", tmp_path)
    original = path.read_bytes()
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await select(app, pilot, BRANCH)
        await press(app, pilot, "D", "enter")
        with open(path, "ab") as handle:  # pi goes on meanwhile
            handle.write(b'{"type":"custom","customType":"x","id":"c0ffee00","parentId":null,'
                         b'"timestamp":"2026-01-15T12:00:00.000Z"}\n')  # fmt: skip
        await press(app, pilot, "ctrl+z")
        assert isinstance(app.screen, ConfirmModal)
        await press(app, pilot, "escape")
        assert b"c0ffee00" in path.read_bytes()
        await press(app, pilot, "ctrl+z", "enter")  # the step is still there: undo, anyway
        assert path.read_bytes() == original


def test_the_key_is_listed_and_clashes_with_nothing() -> None:
    prune_keys = {c.keys for c in COMMANDS if c.id == "session.prune"}
    assert prune_keys == {"D,shift+d"}
    together = [c for c in COMMANDS if c.where in ("app", "session", "tree")]
    for command in together:
        if command.id != "session.prune":
            assert not {"D", "shift+d"} & {k.strip() for k in command.keys.split(",")}


@pytest.mark.usefixtures("utc")
def test_prune_confirmation_snapshot(snap_compare: SnapCompare, tmp_path: Path) -> None:
    path = copy_fixture("labels", tmp_path)
    os.utime(path, (FROZEN - 3600, FROZEN - 3600))

    async def run_before(pilot: Any) -> None:
        app = pilot.app
        await opened(app, pilot)
        assert app.branch_tree.select_uid("b9ef0be7")
        await settle(app, pilot)
        await pilot.press("D")
        await pilot.pause()

    assert snap_compare(ScreenApp(path), terminal_size=(120, 36), run_before=run_before)


async def test_help_and_palette_list_the_key(tmp_path: Path) -> None:
    from rich.console import Console
    from textual.command import Hit

    from pitui.ui.palette import PituiCommands
    from pitui.ui.screens.help import HelpScreen

    app = ScreenApp(copy_fixture("branches", tmp_path))
    async with app.run_test(size=(160, 50)) as pilot:
        await opened(app, pilot)
        provider = PituiCommands(app.session_screen)
        hits = [hit async for hit in provider.search("prune")]
        titles = [str(hit.text) for hit in hits if isinstance(hit, Hit)]
        assert "Prune (D / shift+d)" in titles
        console = Console(width=200, record=True)
        console.print(HelpScreen({})._table())
        help_text = console.export_text()
        assert "D / shift+d" in help_text and "session.prune" in help_text
