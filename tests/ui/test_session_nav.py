"""Going places in the session view: back and forward (alt+←/→, shift+←/→), the leaf (alt+l)
and the leaf before this branch (alt+o), Home/End, through the real SessionScreen; and the
history and previous-leaf rules without Textual."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pitui.core.session import Session
from pitui.ui.screens.session.state import History, previous_leaf
from tests.core.sessiondata import assistant, entry, jsonl, user
from tests.ui.sessionview import ScreenApp, opened, settle, workers_done, write_session


def two_branches() -> bytes:
    """u1 → a1 → {u2 → a2 → u4 → a4 (the old branch), u3 → a3 (the leaf: last line)}."""
    return jsonl(
        user("u1", None, "first", t=1),
        assistant("a1", "u1", "reply one", t=2),
        user("u2", "a1", "approach A", t=3),
        assistant("a2", "u2", "reply A", t=4),
        user("u4", "a2", "more A", t=5),
        assistant("a4", "u4", "A done", t=6),
        user("u3", "a1", "approach B", t=7),
        assistant("a3", "u3", "reply B", t=8),
    )


def selected(app: ScreenApp) -> str | None:
    return app.branch_tree.selected_uid


async def press(app: ScreenApp, pilot: Any, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(app, pilot)


# ------------------------------------------------------------------------------ the rules


def test_a_walk_is_one_stop_and_a_jump_a_new_one() -> None:
    history = History()
    history.visit("leaf", jump=True)
    for uid in ("s1", "s2", "s3"):
        history.visit(uid, jump=False)
    history.visit("j1", jump=True)
    history.visit("j1", jump=False)  # the same place: nothing new
    assert history.stops == ["leaf", "s3", "j1"]
    everywhere = lambda uid: True  # noqa: E731
    assert history.back(everywhere) == "s3"
    assert history.back(everywhere) == "leaf"
    assert history.back(everywhere) is None
    assert history.forward(everywhere) == "s3"
    assert history.position == (1, 1)
    history.visit("j2", jump=True)  # going somewhere else drops what was ahead
    assert history.stops == ["leaf", "s3", "j2"]
    assert history.forward(everywhere) is None


def test_a_step_after_going_back_is_a_new_stop() -> None:
    history = History()
    for uid in ("a", "b", "c"):
        history.visit(uid, jump=True)
    assert history.back(lambda uid: True) == "b"
    history.visit("b2", jump=False)
    history.visit("b3", jump=False)
    assert history.stops == ["a", "b", "b3"]


def test_stops_gone_from_the_file_are_skipped_and_forgotten() -> None:
    history = History()
    for uid in ("a", "gone", "b", "gone2", "c"):
        history.visit(uid, jump=True)
    there = lambda uid: not uid.startswith("gone")  # noqa: E731
    assert history.back(there) == "b"
    assert history.stops == ["a", "gone", "b", "c"]
    assert history.back(there) == "a"
    assert history.stops == ["a", "b", "c"] and history.at == 0
    assert history.forward(there) == "b"
    assert history.forward(there) == "c"
    history.stops.insert(1, "gone3")
    history.at = 0
    assert history.forward(there) == "b" and history.stops == ["a", "b", "c"]


def test_the_history_keeps_its_last_stops() -> None:
    history = History()
    for n in range(History.LIMIT + 5):
        history.visit(str(n), jump=True)
    assert len(history.stops) == History.LIMIT
    assert history.stops[0] == "5" and history.at == History.LIMIT - 1


def test_previous_leaf_is_the_last_entry_written_off_the_active_path() -> None:
    session = Session.from_bytes(two_branches())
    found = previous_leaf(session)
    assert found is not None and found.uid == "a4"
    one = Session.from_bytes(jsonl(user("u1", None, t=1), assistant("a1", "u1", t=2)))
    assert previous_leaf(one) is None


def test_previous_leaf_after_a_switch_and_a_label() -> None:
    # a switch marker under a2, then a label (its parent: the new leaf): the old leaf was a3
    data = (
        two_branches()
        + jsonl(
            entry("label", "m1", "a2", t=9, targetId="a2", label="x"),
            entry("label", "l2", "m1", t=10, targetId="u1", label="start"),
        ).split(b"\n", 1)[1]
    )
    session = Session.from_bytes(data)
    found = previous_leaf(session)
    assert found is not None and found.uid == "a3"


# ------------------------------------------------------------------------------ the keys


@pytest.mark.parametrize(("back", "forward"), [("alt+left", "alt+right"),
                                               ("shift+left", "shift+right")])  # fmt: skip
async def test_back_and_forward_through_jumps_and_walks(
    tmp_path: Path, back: str, forward: str
) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        assert selected(app) == "a3"
        await press(app, pilot, "ctrl+left")  # jump: the start of the leaf's branch
        assert selected(app) == "u3"
        await press(app, pilot, "down", "down")  # a walk (to u2, the other branch)
        assert selected(app) == "u2"
        await press(app, pilot, "home")
        assert selected(app) == "u1"
        await press(app, pilot, back)
        assert selected(app) == "u2"
        await press(app, pilot, back)
        assert selected(app) == "u3"
        await press(app, pilot, back)
        assert selected(app) == "a3"
        await press(app, pilot, back)
        assert selected(app) == "a3" and app.noted("Nothing further back")
        await press(app, pilot, forward, forward, forward)
        assert selected(app) == "u1"
        await press(app, pilot, forward)
        assert app.noted("Nothing further forward")
        # the context pane follows each move
        await workers_done(app)
        await settle(app, pilot)
        shown = app.session_screen.context_pane.shown
        assert shown is not None and shown.uid == "u1"


async def test_back_and_forward_work_from_the_context_pane(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        await press(app, pilot, "home", "tab")
        assert app.focused is not None and app.focused.id == "context-lines"
        await press(app, pilot, "alt+left")
        assert selected(app) == "a3"
        await press(app, pilot, "alt+right")
        assert selected(app) == "u1"


async def test_back_unfolds_what_hides_the_stop(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        await press(app, pilot, "ctrl+left", "ctrl+left")  # u3, then fold it (a3 is hidden)
        assert app.branch_tree.model.folded_uids == {"u3"}
        await press(app, pilot, "alt+left")
        assert selected(app) == "a3"
        assert app.branch_tree.model.folded_uids == frozenset()


async def test_a_branch_switch_is_a_stop(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path), resumable=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        assert app.branch_tree.select_uid("a4")
        await settle(app, pilot)
        await press(app, pilot, "enter")
        await press(app, pilot, "enter")  # "Continue from here" in the switch modal
        await settle(app, pilot)
        session = app.session_screen.session
        assert session is not None and session.leaf is not None
        assert session.leaf.parent is not None and session.leaf.parent.uid == "a4"
        await press(app, pilot, "home", "alt+left")
        assert selected(app) == "a4"
        await press(app, pilot, "alt+left")
        assert selected(app) == "a3"  # where the view opened: the old leaf


async def test_leaf_and_previous_leaf_keys(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        await press(app, pilot, "home")
        await press(app, pilot, "alt+l")
        assert selected(app) == "a3"
        await press(app, pilot, "alt+o")
        assert selected(app) == "a4" and app.noted("The leaf before this branch")
        await press(app, pilot, "alt+l")
        assert selected(app) == "a3"
        assert app.branch_tree.model.query == ""  # alt+l / alt+o are not typed into the search
        await press(app, pilot, "alt+left")
        assert selected(app) == "a4"


async def test_leaf_key_unfolds_and_clears_nothing_else(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        await press(app, pilot, "ctrl+left", "ctrl+left", "ctrl+t")  # fold u3, no-tools filter
        await press(app, pilot, "ctrl+left", "ctrl+left", "home")
        await press(app, pilot, "alt+l")
        assert selected(app) == "a3"
        assert app.branch_tree.model.filter_mode == "no-tools"


async def test_previous_leaf_with_one_branch_says_so(tmp_path: Path) -> None:
    data = jsonl(user("u1", None, t=1), assistant("a1", "u1", t=2))
    app = ScreenApp(write_session(data, tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        await press(app, pilot, "alt+o")
        assert selected(app) == "a1" and app.noted("No previous leaf")


async def test_home_and_end(tmp_path: Path) -> None:
    app = ScreenApp(write_session(two_branches(), tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(app, pilot)
        model = app.branch_tree.model
        await press(app, pilot, "home")
        assert model.selected_index == 0 and selected(app) == "u1"
        await press(app, pilot, "end")
        assert model.selected_index == model.count - 1 and selected(app) == "a4"


async def test_clearing_the_search_keeps_the_selected_row_in_view(tmp_path: Path) -> None:
    """Found by a search that fits the window (no scrolling), then esc: the tree is whole again
    and scrolled to the selected row, which stays selected (it was drawn off screen)."""
    texts = [f"needle {n}" if n in (40, 120, 160) else f"message {n}" for n in range(1, 201)]
    entries, parent = [], None
    for n, text in enumerate(texts, start=1):
        entries.append((user if n % 2 else assistant)(f"m{n}", parent, text, t=n))
        parent = f"m{n}"
    app = ScreenApp(write_session(jsonl(*entries), tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(app, pilot)
        await press(app, pilot, *"needle", "up")  # (the search selects m160, nearest the leaf)
        tree = app.branch_tree
        assert tree.selected_uid == "m120" and tree.model.count == 3
        await press(app, pilot, "escape")
        assert tree.model.query == "" and tree.selected_uid == "m120"
        drawn = [tree.render_line(y).text for y in range(tree.size.height)]
        assert any(line.startswith("› ") and "needle 120" in line for line in drawn), drawn
