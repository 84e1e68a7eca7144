"""SVG snapshots of the session view: fixture trees in every filter mode, folded, searched, the
label editor, the switch modal, the preview at a compaction, and a terminal-hostile session.

Deterministic: fixed terminal size, pi-dark theme, frozen clock (label times, "modified"), UTC as
the local time zone, every worker awaited, the files copied to tmp.
Update with ``pytest tests/ui/test_session_snapshots.py --snapshot-update`` and look at the report.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.ui.sessionview import ScreenApp, copy_fixture, opened, settle

SnapCompare = Callable[..., bool]
FILTER_KEYS = {
    "default": (),
    "no-tools": ("ctrl+t",),
    "user-only": ("ctrl+u",),
    "labeled-only": ("ctrl+l",),
    "all": ("ctrl+a",),
}
SIZE = (120, 36)


pytestmark = pytest.mark.usefixtures("utc")  # (times are drawn in local time)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Where the fixture copies go (no snapshot shows a file's path: the header shows the
    session's cwd, and these fixtures read without problems, so no notice names the file)."""
    return tmp_path


def steps(
    *keys: str, select: str | None = None, wait_workers: bool = True
) -> Callable[[Any], Awaitable[None]]:
    async def run(pilot: Any) -> None:
        app = pilot.app
        await opened(app, pilot)
        if select is not None:
            assert app.branch_tree.select_uid(select)
            await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot, workers=wait_workers)
        await settle(app, pilot, workers=wait_workers)

    return run


@pytest.mark.parametrize("mode", list(FILTER_KEYS))
@pytest.mark.parametrize("scenario", ["branches", "labels", "compaction", "long-5000"])
def test_tree_in_each_filter_mode(
    snap_compare: SnapCompare, folder: Path, scenario: str, mode: str
) -> None:
    app = ScreenApp(copy_fixture(scenario, folder))
    assert snap_compare(app, terminal_size=SIZE, run_before=steps(*FILTER_KEYS[mode]))


def test_tree_folded(snap_compare: SnapCompare, folder: Path) -> None:
    # ctrl+left jumps to the start of the leaf's branch segment, the second one folds it
    app = ScreenApp(copy_fixture("branches", folder))
    assert snap_compare(app, terminal_size=SIZE, run_before=steps("ctrl+left", "ctrl+left"))


def test_tree_searched(snap_compare: SnapCompare, folder: Path) -> None:
    app = ScreenApp(copy_fixture("branches", folder))
    assert snap_compare(app, terminal_size=SIZE, run_before=steps("g", "e", "n"))


def test_label_times_shown(snap_compare: SnapCompare, folder: Path) -> None:
    app = ScreenApp(copy_fixture("labels", folder))
    assert snap_compare(app, terminal_size=SIZE, run_before=steps("T"))


def test_label_editor(snap_compare: SnapCompare, folder: Path) -> None:
    app = ScreenApp(copy_fixture("branches", folder))
    assert snap_compare(
        app, terminal_size=SIZE, run_before=steps("L", select="c44caa7c", wait_workers=False)
    )


def test_switch_modal(snap_compare: SnapCompare, folder: Path) -> None:
    # a user message: pi continues from its parent and offers the text again
    app = ScreenApp(copy_fixture("branches", folder))
    assert snap_compare(
        app, terminal_size=SIZE, run_before=steps("enter", select="2792f1de", wait_workers=False)
    )


def test_preview_of_a_compaction(snap_compare: SnapCompare, folder: Path) -> None:
    app = ScreenApp(copy_fixture("compaction", folder))
    assert snap_compare(app, terminal_size=SIZE, run_before=steps(select="3c0d9097"))


def test_terminal_hostile_session(snap_compare: SnapCompare, folder: Path) -> None:
    app = ScreenApp(copy_fixture("terminal-hostile", folder))
    assert snap_compare(app, terminal_size=SIZE, run_before=steps("ctrl+a"))


def test_narrow_terminal(snap_compare: SnapCompare, folder: Path) -> None:
    app = ScreenApp(copy_fixture("branches", folder))
    assert snap_compare(app, terminal_size=(80, 30), run_before=steps())
