"""Live updates in the session view (issue 7) with real files in tmp and the real watcher: a writer
appends line by line (also one line in two halves), truncates, replaces and deletes the file; the
view ends up exactly as a fresh load of the same file."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from pitui.core.session import Session
from pitui.core.treeview import FILTER_MODES, TreeView
from tests.core.sessiondata import assistant, entry, jsonl, user
from tests.ui.sessionview import (
    FROZEN,
    ScreenApp,
    opened,
    row_texts,
    two_branch_session,
    wait_for,
    write_session,
)


def line(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj) + b"\n"


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def assert_like_fresh_load(app: ScreenApp, path: Path) -> None:
    """The tree and the index are exactly what a fresh load of the file gives."""
    screen = app.session_screen
    session = screen.session
    assert session is not None
    fresh = Session.open(path, final=True)
    assert [m.uid for m in session.entries] == [m.uid for m in fresh.entries]
    assert [m.parent.uid if m.parent else None for m in session.entries] == [
        m.parent.uid if m.parent else None for m in fresh.entries
    ]
    assert session.labels == fresh.labels
    assert session.leaf_id == fresh.leaf_id
    tree = app.branch_tree
    model = TreeView(fresh, selected=tree.selected_uid, filter_mode=tree.model.filter_mode)
    assert row_texts(tree) == [model.row(i).plain() for i in range(model.count)]
    assert tree.model.leaf is not None and tree.model.leaf.uid == fresh.leaf_id
    # the header counts what a fresh load counts
    header = str(screen.query_one("#session-header").render())
    assert f"{len(fresh.entries)} entries" in header
    whole = fresh.stats()
    assert f"whole file {int(whole.total_tokens):,} tok" in header


def context_shown_at(screen: Any, uid: str) -> bool:
    view = screen.context_pane.shown
    return view is not None and view.uid == uid


async def live_app(path: Path, pilot_size: tuple[int, int] = (120, 40), **kw: Any) -> ScreenApp:
    return ScreenApp(path, watch=True, clock=lambda: FROZEN, **kw)


async def started(app: ScreenApp, pilot: Any) -> None:
    await opened(app, pilot, workers=False)
    await pilot.pause(0.6)  # the watch is up (and its late catch-up ran)


async def test_appends_line_by_line_join_the_tree_and_follow_the_leaf(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = await live_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(app, pilot)
        screen = app.session_screen
        assert screen.follow and app.branch_tree.selected_uid == "a2"
        parent = "a2"
        for i in range(6):
            uid = f"n{i}"
            maker = user if i % 2 == 0 else assistant
            append(path, line(maker(uid, parent, f"live {i}", t=10 + i)))
            parent = uid

            def shown(uid: str = uid) -> bool:
                return app.branch_tree.model.index_of(uid) is not None

            def selected(uid: str = uid) -> bool:
                return app.branch_tree.selected_uid == uid

            await wait_for(pilot, shown)
            await wait_for(pilot, selected)  # the selection follows the new leaf
        await wait_for(pilot, lambda: context_shown_at(screen, "n5"))
        view = screen.context_pane.shown
        assert view is not None and len(view.messages) == 10  # the preview moved along
        assert any("live 5" in text for text in screen.context_lines.plain_lines)
        assert_like_fresh_load(app, path)
        assert "pi is writing" in str(screen.query_one("#session-header").render())


async def test_one_line_in_two_halves_waits_for_the_end(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = await live_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(app, pilot)
        screen = app.session_screen
        whole = line(user("h1", "a2", "half and half", t=20))
        append(path, whole[:25])
        await pilot.pause(0.8)  # several debounce periods: the watcher saw the half line
        assert app.branch_tree.model.index_of("h1") is None  # not shown yet
        assert screen.session is not None and not screen.session.problems  # and no error
        append(path, whole[25:])
        await wait_for(pilot, lambda: app.branch_tree.selected_uid == "h1")
        assert screen.session is not None and not screen.session.problems
        assert not app.noted("problem")
        assert_like_fresh_load(app, path)


async def test_no_jump_when_the_selection_is_elsewhere(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = await live_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(app, pilot)
        app.branch_tree.select_uid("u3")
        await pilot.pause()
        append(path, line(user("x1", "a2", "more", t=30)))
        await wait_for(pilot, lambda: app.branch_tree.model.index_of("x1") is not None)
        assert app.branch_tree.selected_uid == "u3"
        assert_like_fresh_load(app, path)


async def test_follow_off_keeps_the_selection(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = await live_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(app, pilot)
        await pilot.press("ctrl+g")
        assert not app.session_screen.follow
        assert "follow off" in str(app.session_screen.query_one("#session-header").render())
        append(path, line(user("x1", "a2", "more", t=30)))
        await wait_for(pilot, lambda: app.branch_tree.model.index_of("x1") is not None)
        assert app.branch_tree.selected_uid == "a2"
        await pilot.press("ctrl+g")
        append(path, line(assistant("x2", "x1", "answer", t=31)))
        await wait_for(pilot, lambda: app.branch_tree.model.index_of("x2") is not None)
        assert app.branch_tree.selected_uid == "a2"  # it was not on the leaf any more: no jump


async def test_opened_on_an_entry_does_not_follow(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = ScreenApp(path, watch=True, select="a2")
    async with app.run_test(size=(120, 40)) as pilot:
        await started(app, pilot)
        assert not app.session_screen.follow
        append(path, line(user("x1", "a2", "more", t=30)))
        await wait_for(pilot, lambda: app.branch_tree.model.index_of("x1") is not None)
        assert app.branch_tree.selected_uid == "a2"


async def test_truncated_file_is_reloaded_with_a_notice(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = await live_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(app, pilot)
        data = path.read_bytes()
        cut = data[: data.index(b'"id":"u2"')]
        cut = cut[: cut.rindex(b"\n") + 1]  # keep u1, a1, u3, a3
        with open(path, "r+b") as handle:
            handle.truncate(len(cut))
        await wait_for(pilot, lambda: app.noted("replaced on disk"))
        await wait_for(pilot, lambda: app.branch_tree.model.index_of("u2") is None)
        assert app.branch_tree.model.leaf is not None and app.branch_tree.model.leaf.uid == "a3"
        assert_like_fresh_load(app, path)


async def test_replaced_file_is_reloaded_with_a_notice(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = await live_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(app, pilot)
        screen = app.session_screen
        app.branch_tree.select_uid("a3")
        await wait_for(pilot, lambda: context_shown_at(screen, "a3"))
        replacement = jsonl(
            user("u1", None, "first", t=1),
            assistant("a1", "u1", "reply one", t=2),
            user("u3", "a1", "approach B", t=3),
            assistant("a3", "u3", "rewritten reply", t=4),
            user("z1", "a3", "new line of work", t=7),
        )
        temp = tmp_path / "other.tmp"
        temp.write_bytes(replacement)
        os.replace(temp, path)
        await wait_for(pilot, lambda: app.noted("replaced on disk"))
        await wait_for(pilot, lambda: app.branch_tree.model.index_of("z1") is not None)
        assert app.branch_tree.selected_uid == "a3"  # the place is kept
        # the preview of the selected entry follows its new content
        await wait_for(
            pilot, lambda: any("rewritten reply" in t for t in screen.context_lines.plain_lines)
        )
        assert_like_fresh_load(app, path)
        # the replaced file keeps being followed
        append(path, line(assistant("z2", "z1", "and more", t=8)))
        await wait_for(pilot, lambda: app.branch_tree.model.index_of("z2") is not None)
        assert_like_fresh_load(app, path)


async def test_deleted_file_keeps_its_content_read_only(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = await live_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(app, pilot)
        rows = row_texts(app.branch_tree)
        path.unlink()
        await wait_for(pilot, lambda: app.session_screen.read_only)
        assert app.noted("deleted on disk")
        assert "read-only" in str(app.session_screen.query_one("#session-header").render())
        assert row_texts(app.branch_tree) == rows
        await pilot.press("L")
        await pilot.pause()
        for key in "abc":
            await pilot.press(key)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert app.noted("does not write to it") and not path.exists()
        # it comes back (pi or a restore wrote it again): followed again
        path.write_bytes(two_branch_session() + line(user("r1", "a2", "back", t=40)))
        await wait_for(pilot, lambda: not app.session_screen.read_only)
        await wait_for(pilot, lambda: app.branch_tree.model.index_of("r1") is not None)
        assert_like_fresh_load(app, path)


async def test_labels_written_by_pi_show_up(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = await live_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(app, pilot)
        label = {
            "type": "label",
            "id": "l1",
            "parentId": "a2",
            "timestamp": "2025-01-01T00:01:00.000Z",
            "targetId": "u3",
            "label": "from pi",
        }
        append(path, line(label))
        await wait_for(pilot, lambda: "[from pi]" in "\n".join(row_texts(app.branch_tree)))
        assert app.branch_tree.selected_uid == "a2"  # the label leaf is hidden: a2 stays selected
        assert_like_fresh_load(app, path)


# ------------------------------------------------------------------ the tree's in-place growth


def random_session(rng: random.Random, size: int) -> tuple[bytes, list[str]]:
    """A random tree of messages, labels and bookkeeping entries; the ids in file order."""
    objs: list[dict[str, Any]] = []
    ids: list[str] = []
    for i in range(size):
        parent = rng.choice(ids) if ids and rng.random() < 0.97 else None
        if ids and rng.random() < 0.6:
            parent = ids[-1]  # mostly chains, as pi writes
        uid = f"r{i}"
        roll = rng.random()
        if roll < 0.4:
            objs.append(user(uid, parent, f"user {i}", t=i))
        elif roll < 0.8:
            text = f"reply {i}" if rng.random() < 0.8 else ""
            objs.append(assistant(uid, parent, text, t=i))
        elif roll < 0.9 and ids:
            objs.append(entry("label", uid, parent, t=i, targetId=rng.choice(ids), label=f"L{i}"))
        else:
            objs.append(entry("model_change", uid, parent, t=i, provider="p", modelId="m"))
        ids.append(uid)
    return jsonl(*objs), ids


def model_state(view: TreeView) -> tuple[Any, ...]:
    return (
        [m.uid for m in view._rows],
        view._flat.chain_of,
        view._flat.chain_parent,
        view._flat.chain_last,
        view._flat.chain_end,
        view._kinds,
        view._leaf_row,
        view._vis,
        view.selected_uid,
        [view.row(i).plain() for i in range(view.count)],
    )


@pytest.mark.parametrize("seed", range(12))
def test_tree_growth_in_place_equals_a_fresh_flatten(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    data, ids = random_session(rng, rng.randint(5, 60))
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    session = Session.open(path, final=True)
    mode = rng.choice(FILTER_MODES)
    view = TreeView(session, filter_mode=mode)
    if view.count > 2:  # a fold and a selection somewhere in the tree
        view.select_index(rng.randrange(view.count))
        view.fold_or_up()
        view.select_index(rng.randrange(view.count))
    for step in range(6):
        leaf = session.leaf_id
        extra: list[dict[str, Any]] = []
        below_leaf = rng.random() < 0.7  # pi's usual growth; otherwise a new branch elsewhere
        parent = leaf if below_leaf else rng.choice(ids)
        for j in range(rng.randint(1, 4)):
            uid = f"s{step}x{j}"
            kind = rng.random()
            if kind < 0.45:
                extra.append(user(uid, parent, f"more {uid}", t=100 + step))
            elif kind < 0.9:
                extra.append(assistant(uid, parent, rng.choice(["", f"ok {uid}"]), t=100 + step))
            else:
                extra.append(entry("label", uid, parent, t=100 + step, targetId=ids[0], label="x"))
            ids.append(uid)
            parent = uid
        append(path, b"".join(line(obj) for obj in extra))
        assert session.refresh().kind == "grew"
        selected = view.selected_uid
        folded = view.folded_uids
        view.set_leaf("default")
        fresh = TreeView(Session.open(path, final=True), filter_mode=mode, selected=selected)
        for uid in folded:
            index = fresh.index_of(uid)
            assert index is not None
            fresh.select_index(index)
            fresh.fold_or_up()
        if selected is not None and fresh.index_of(selected) is not None:
            fresh.select_uid(selected)
        assert view.folded_uids == fresh.folded_uids
        assert model_state(view) == model_state(fresh)
