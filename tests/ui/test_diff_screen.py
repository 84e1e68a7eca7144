"""The branch diff in the session view (issue 23 §2): alt+m marks, alt+d opens the diff screen,
escape returns; the two sides side by side, stacked on a narrow terminal; hostile text shown,
never obeyed. Snapshots: wide and narrow."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from pitui.ui.palette import PituiCommands
from pitui.ui.screens.diff import DiffScreen
from pitui.ui.screens.help import HelpScreen
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.branch_tree import BranchTree
from pitui.ui.widgets.diff_side import DiffSideView
from pitui.ui.widgets.tree_row import DIFF_MARK
from tests.core.sessiondata import assistant, jsonl, user
from tests.core.test_diff import branchy_bytes
from tests.ui.sessionview import ScreenApp, opened, settle, wait_for, write_session

SnapCompare = Callable[..., bool]
WIDE, NARROW = (120, 36), (80, 40)


pytestmark = pytest.mark.usefixtures("utc")  # (times are drawn in local time)


def diff_screen(app: ScreenApp) -> DiffScreen:
    screen = app.screen
    assert isinstance(screen, DiffScreen)
    return screen


async def shown(app: ScreenApp, pilot: Any) -> DiffScreen:
    await wait_for(
        pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.diff is not None
    )
    await settle(app, pilot)
    return diff_screen(app)


def marked_rows(tree: BranchTree) -> list[str]:
    """The drawn rows (on screen) that show the diff mark."""
    drawn = [tree.render_line(y).text for y in range(tree.size.height)]
    return [line for line in drawn if f"{DIFF_MARK} " in line]


def side_lines(screen: DiffScreen, which: str) -> list[str]:
    return screen.query_one(f"#diff-{which}", DiffSideView).plain_lines()


async def test_mark_then_diff_then_back(tmp_path: Path) -> None:
    app = ScreenApp(write_session(branchy_bytes(), tmp_path))
    async with app.run_test(size=WIDE) as pilot:
        await opened(app, pilot)
        assert app.branch_tree.select_uid("u3")
        await pilot.press("alt+m")
        await pilot.pause()
        assert app.noted("Marked u3") and app.noted("alt+d compares it with the selected entry")
        # the mark is drawn in the marked row, which keeps it when the selection moves on
        [row] = marked_rows(app.branch_tree)
        assert row.startswith(f"›       {DIFF_MARK} user: thanks"), row
        assert app.branch_tree.select_uid("a4")
        await pilot.pause()
        [row] = marked_rows(app.branch_tree)
        assert row.startswith(f"        {DIFF_MARK} user: thanks"), row
        await pilot.press("alt+d")
        screen = await shown(app, pilot)
        assert screen.diff is not None and screen.diff.relation == "diverged"
        a, b = side_lines(screen, "a"), side_lines(screen, "b")
        assert a[0] == "Spend 4 entries, 4 messages, 106 tokens, $0.5000"
        assert "  src/x.py  1 edit" in a and "  edit 1 · bash 1" in a
        assert "  y.txt  1 write" in b and "  src/x.py  1 edit, 1 failed" in b
        assert [line.split()[0] for line in a[a.index("Entries (4)") + 1 :]] == [
            "a2", "r2", "r2b", "u3",
        ]  # fmt: skip
        header = str(screen.query_one("#diff-header", Static).render())
        assert "two branches; common ancestor u2 (3 shared entries)" in header
        assert "user: fix it" in header
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen)
        assert app.session_screen.diff_mark.uid == "u3"  # the mark stays for the next compare


async def test_without_a_mark_the_leaf_is_compared(tmp_path: Path) -> None:
    app = ScreenApp(write_session(branchy_bytes(), tmp_path))
    async with app.run_test(size=WIDE) as pilot:
        await opened(app, pilot)
        assert app.branch_tree.select_uid("u3")
        await pilot.press("alt+d")
        screen = await shown(app, pilot)
        assert screen.diff is not None
        assert (screen.diff.a.tip.uid, screen.diff.b.tip.uid) == ("a4", "u3")
        assert app.noted("Comparing with the leaf")


async def test_mark_again_clears_it(tmp_path: Path) -> None:
    app = ScreenApp(write_session(branchy_bytes(), tmp_path))
    async with app.run_test(size=WIDE) as pilot:
        await opened(app, pilot)
        assert app.branch_tree.select_uid("a2")
        await pilot.press("alt+m")
        await pilot.pause()
        assert len(marked_rows(app.branch_tree)) == 1
        await pilot.press("alt+m")
        await pilot.pause()
        assert marked_rows(app.branch_tree) == []
        assert app.session_screen.diff_mark.uid is None and app.noted("Mark cleared")


async def test_same_entry_and_ancestor(tmp_path: Path) -> None:
    app = ScreenApp(write_session(branchy_bytes(), tmp_path))
    async with app.run_test(size=WIDE) as pilot:
        await opened(app, pilot)
        assert app.branch_tree.select_uid("u2")
        await pilot.press("alt+m", "alt+d")
        screen = await shown(app, pilot)
        assert "A and B are the same entry" in str(screen.query_one("#diff-header").render())
        assert "  nothing after the common ancestor" in side_lines(screen, "b")
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.branch_tree.select_uid("a4")
        await pilot.press("alt+d")
        screen = await shown(app, pilot)
        assert screen.diff is not None and screen.diff.relation == "ancestor"


async def test_narrow_terminal_stacks_the_sides(tmp_path: Path) -> None:
    app = ScreenApp(write_session(branchy_bytes(), tmp_path))
    async with app.run_test(size=NARROW) as pilot:
        await opened(app, pilot)
        assert app.branch_tree.select_uid("u3")
        await pilot.press("alt+d")
        screen = await shown(app, pilot)
        a = screen.query_one("#diff-a", DiffSideView).region
        b = screen.query_one("#diff-b", DiffSideView).region
        assert screen.has_class("-narrow") and b.y >= a.bottom and a.width == b.width
    app = ScreenApp(write_session(branchy_bytes(), tmp_path / "wide"))
    async with app.run_test(size=WIDE) as pilot:
        await opened(app, pilot)
        await pilot.press("alt+d")
        screen = await shown(app, pilot)
        a = screen.query_one("#diff-a", DiffSideView).region
        b = screen.query_one("#diff-b", DiffSideView).region
        assert not screen.has_class("-narrow") and b.x >= a.right and a.y == b.y


HOSTILE = "[bold red]markup[/] \x1b[31mred\x1b[0m \x07bell \u202eevil"


def hostile_bytes() -> bytes:
    return jsonl(
        user("u1", None, "start"),
        assistant("a1", "u1", HOSTILE, t=2),
        user("u2", "u1", f"other {HOSTILE}", t=3),
        assistant("a2", "u2", "fine", t=4),
    )


async def test_hostile_text_is_shown_not_obeyed(tmp_path: Path) -> None:
    app = ScreenApp(write_session(hostile_bytes(), tmp_path))
    async with app.run_test(size=WIDE) as pilot:
        await opened(app, pilot)
        assert app.branch_tree.select_uid("a1")
        await pilot.press("alt+m")
        assert app.branch_tree.select_uid("a2")
        await pilot.press("alt+d")
        screen = await shown(app, pilot)
        lines = side_lines(screen, "a") + side_lines(screen, "b")
        text = "\n".join(lines)
        assert "[bold red]markup[/]" in text and "␛[31mred" in text and "␇bell" in text
        assert "<RLO>" in text
        assert not any(ch in text for ch in "\x1b\x07\u202e")


def steps(*keys: str, select: tuple[str, ...] = ()) -> Callable[[Any], Awaitable[None]]:
    async def run(pilot: Any) -> None:
        app = pilot.app
        await opened(app, pilot)
        for uid, key in zip(select, keys, strict=True):
            assert app.branch_tree.select_uid(uid)
            await pilot.press(key)
            await settle(app, pilot)
        await shown(app, pilot)

    return run


def test_snapshot_wide(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app = ScreenApp(write_session(branchy_bytes(), tmp_path))
    run = steps("alt+m", "alt+d", select=("u3", "a4"))
    assert snap_compare(app, terminal_size=WIDE, run_before=run)


def test_snapshot_narrow(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app = ScreenApp(write_session(branchy_bytes(), tmp_path))
    run = steps("alt+m", "alt+d", select=("u3", "a4"))
    assert snap_compare(app, terminal_size=NARROW, run_before=run)


def test_snapshot_marked_row(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """The session view with u3 marked and a4 selected: the mark is drawn in u3's row."""
    app = ScreenApp(write_session(branchy_bytes(), tmp_path))

    async def run(pilot: Any) -> None:
        await opened(app, pilot)
        assert app.branch_tree.select_uid("u3")
        await pilot.press("alt+m")
        assert app.branch_tree.select_uid("a4")
        await settle(app, pilot)
        app.clear_notifications()  # (the mark's hint would time out at any moment)
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=WIDE, run_before=run)


def test_snapshot_hostile(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app = ScreenApp(write_session(hostile_bytes(), tmp_path))
    run = steps("alt+m", "alt+d", select=("a1", "a2"))
    assert snap_compare(app, terminal_size=WIDE, run_before=run)


async def test_help_and_palette_list_the_keys(tmp_path: Path) -> None:
    app = ScreenApp(write_session(branchy_bytes(), tmp_path))
    async with app.run_test(size=WIDE) as pilot:
        await opened(app, pilot)
        palette = PituiCommands(app.session_screen)
        titles = {c.id: palette._title(c) for c in palette._available()}
        assert titles["session.mark"] == "Mark (alt+m)"
        assert titles["session.diff"] == "Diff (alt+d)"
        rows = HelpScreen({})._table().columns
        keys, ids = [str(cell) for cell in rows[0].cells], list(rows[3].cells)
        assert keys[ids.index("session.mark")] == "alt+m"
        assert keys[ids.index("session.diff")] == "alt+d"
        await app.session_screen.run_action("diff")  # what the palette runs
        await shown(app, pilot)
