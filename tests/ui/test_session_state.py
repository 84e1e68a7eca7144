"""The session view's state and file following, without Textual: counts, undo, where the
selection stands relative to the leaf, and catching up with a file that grew, was replaced, was
deleted and came back."""

from __future__ import annotations

import os
from pathlib import Path

from pitui.core.live_facts import LiveFacts
from pitui.core.session import Session
from pitui.core.treeview import TreeView
from pitui.ui.screens.session.follow import LiveFile, catch_up
from pitui.ui.screens.session.state import SessionState, UndoStep, selection_at_leaf
from tests.core.sessiondata import assistant, entry, jsonl, user


def base() -> bytes:
    return jsonl(
        user("u1", None, "first", t=1),
        assistant("a1", "u1", "reply", t=2),
        entry("label", "l1", "a1", t=3, targetId="u1", label="start"),
    )


def written(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    os.utime(path, (1_700_000_000, 1_700_000_000))
    return path


def opened(path: Path) -> tuple[Session, LiveFile]:
    session = Session.open(path, final=True)
    live = LiveFile(str(path))
    live.seen(identity=True)
    return session, live


def test_counts_grow_only_once_counted(tmp_path: Path) -> None:
    path = written(tmp_path, base())
    session = Session.open(path, final=True)
    state = SessionState(follow=True)
    state.count_new(session, session.entries[-1:])
    assert state.facts is None  # still counting: nothing to add to
    state.recount(session)
    assert state.facts == LiveFacts.count(session)


def test_undo_gives_back_the_last_step_first() -> None:
    state = SessionState(follow=False)
    assert state.take_undo() is None
    state.undo += [UndoStep("label", "u1", "old"), UndoStep("switch", "a1")]
    assert state.take_undo() == UndoStep("switch", "a1")
    assert state.take_undo() == UndoStep("label", "u1", "old")
    assert state.take_undo() is None


def test_selection_at_the_leaf_or_at_its_visible_ancestor() -> None:
    session = Session.from_bytes(base())
    model = TreeView(session, filter_mode="all")
    assert model.leaf is not None and model.leaf.uid == "l1"
    assert selection_at_leaf(model, "l1") and not selection_at_leaf(model, "a1")
    model.set_filter("user-only")  # the leaf is hidden: the tree selects its nearest ancestor
    assert selection_at_leaf(model, "u1") and not selection_at_leaf(model, "l1")
    assert not selection_at_leaf(model, None)


async def test_catch_up_reads_what_was_appended(tmp_path: Path) -> None:
    path = written(tmp_path, base())
    session, live = opened(path)
    assert (await catch_up(session, live)).kind == "unchanged"
    with path.open("ab") as handle:
        handle.write(jsonl(user("u2", "l1", "more", t=4), header=None))
    change = await catch_up(session, live)
    assert change.kind == "grew" and [m.uid for m in change.new] == ["u2"]
    assert live.size == path.stat().st_size and not change.notices


async def test_catch_up_reloads_a_replaced_file_in_place(tmp_path: Path) -> None:
    path = written(tmp_path, base())
    session, live = opened(path)
    other = tmp_path / "new.tmp"
    other.write_bytes(jsonl(user("v1", None, "new", t=1)))
    os.replace(other, path)
    change = await catch_up(session, live)
    assert change.kind == "replaced" and [m.uid for m in session.entries] == ["v1"]
    assert live.inode == (path.stat().st_dev, path.stat().st_ino)
    assert [text for text, _ in change.notices] == [
        "The session file was replaced on disk and has been reloaded"
    ]


async def test_catch_up_on_a_deleted_file_that_comes_back(tmp_path: Path) -> None:
    path = written(tmp_path, base())
    session, live = opened(path)
    path.unlink()
    change = await catch_up(session, live)
    assert change.kind == "gone" and change.deleted
    assert [m.uid for m in session.entries] == ["u1", "a1", "l1"]  # what was read stays
    live.read_only = True  # what the screen does for a deleted file
    written(tmp_path, base() + jsonl(user("r1", "l1", "back", t=5), header=None))
    change = await catch_up(session, live)
    assert change.kind == "replaced" and not live.read_only
    assert [text for text, _ in change.notices] == ["The session file is back on disk"]
    assert session.get("r1") is not None
