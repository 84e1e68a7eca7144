"""The live picker (issue 7): real files in a temp dir change while the picker is open.

A writer appends (also one line in two halves), creates, truncates, replaces, renames and deletes
session files; the picker follows through :class:`pitui.core.watch.SessionWatcher`, keeps the
selected session and the query, marks growing sessions live, and ends up showing exactly what a
fresh start shows. The store's index follows too (the next start is warm).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from pitui.config import Settings
from pitui.core.index import Index
from pitui.core.store import Store
from pitui.core.watch import WatchNotice
from pitui.ui.app import PituiApp
from pitui.ui.catalog import StoreCatalog
from pitui.ui.screens.picker import live as live_module
from pitui.ui.widgets.session_list import ListRow, SessionList
from tests.core.sessiondata import assistant, chain, user
from tests.ui.picker_kit import (
    fake_app,
    picker,
    settle,
    store_app,
    titles,
    wait_for,
    write_session,
)

SIZE = (150, 40)
FAST = Settings(watch_debounce_ms=30)


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


def agent_dir() -> Path:
    return Path(os.environ["PI_CODING_AGENT_DIR"])


def append(path: Path, *objects: dict[str, Any]) -> None:
    with open(path, "ab") as handle:
        for obj in objects:
            handle.write(orjson.dumps(obj) + b"\n")


def rows_of(app: PituiApp) -> list[ListRow]:
    """The rows as data, without the live mark (a fresh start has none)."""
    rows = picker(app).query_one(SessionList).rows
    return [row._replace(live=False) for row in rows]


def selected_path(app: PituiApp) -> str | None:
    item = picker(app).selected_item
    return item.path if item is not None else None


async def watching(pilot: Any, app: PituiApp, cwd: str) -> None:
    """Wait until the watcher reports changes: a probe session must appear, then vanish."""
    screen = picker(app)
    await wait_for(pilot, lambda: screen.watching, what="the watcher")
    probe = write_session(agent_dir(), cwd, "probe", chain(["probe"]), name="probe.jsonl")
    for _ in range(50):  # the inotify watch may not be set up yet: touch until it is seen
        if str(probe) in {item.path for item in screen.state.scopes["current"].items}:
            break
        os.utime(probe)
        await pilot.pause(0.1)
    await wait_for(
        pilot, lambda: str(probe) in [row.path for row in rows_of(app)], what="the probe"
    )
    probe.unlink()
    await wait_for(
        pilot, lambda: str(probe) not in [row.path for row in rows_of(app)], what="probe gone"
    )


async def fresh_rows(cwd: str, query: str = "") -> list[ListRow]:
    """What a new pitui shows for the same files, computed from the files alone (no index)."""
    catalog = StoreCatalog(Store(cwd=cwd, agent=agent_dir(), use_index=False, workers=1))
    app = fake_app(catalog, cwd=cwd, settings=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        if query:
            picker(app).search.value = query
            await settle(pilot)
        return rows_of(app)


async def test_the_list_follows_a_writer_and_ends_as_a_fresh_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_module, "LIVE_SECONDS", 1.5)
    monkeypatch.setattr(live_module, "REFRESH_INTERVAL", 0.1)
    cwd = str(tmp_path / "proj")
    agent = agent_dir()
    s1 = write_session(agent, cwd, "s1", [user("m1", None, "one: newest", t=300)], name="1.jsonl")
    s2 = write_session(agent, cwd, "s2", [user("m1", None, "two: middle", t=200)], name="2.jsonl")
    s3 = write_session(agent, cwd, "s3", [user("m1", None, "three: oldest", t=100)], name="3.jsonl")
    app = store_app(agent, cwd, watch=True, settings=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(app)
        assert titles(app) == ["one: newest", "two: middle", "three: oldest"]
        await pilot.press("down")
        assert selected_path(app) == str(s2)
        await watching(pilot, app, cwd)
        assert selected_path(app) == str(s2)

        # pi appends to the oldest session: it moves to the top, counts and age change, live
        append(s3, assistant("a1", "m1", "reply", t=400), user("m2", "a1", "again", t=500))
        await wait_for(pilot, lambda: titles(app)[0] == "three: oldest", what="s3 on top")
        rows = picker(app).query_one(SessionList).rows
        assert rows[0].right == "3" and rows[0].live
        assert selected_path(app) == str(s2)  # the selection followed the session
        assert picker(app).query_one(SessionList).selected == 2
        # the live mark goes away by itself
        await wait_for(pilot, lambda: not picker(app).query_one(SessionList).rows[0].live)

        # one line in two halves: nothing changes after the first half, no error
        line = orjson.dumps(assistant("a2", "m2", "half and half", t=600)) + b"\n"
        with open(s3, "ab") as handle:
            handle.write(line[:25])
        await pilot.pause(0.6)
        assert picker(app).query_one(SessionList).rows[0].right == "3"
        assert screen.status_text is None
        with open(s3, "ab") as handle:
            handle.write(line[25:])
        await wait_for(
            pilot, lambda: picker(app).query_one(SessionList).rows[0].right == "4", what="4"
        )

        # a new session appears
        s4 = write_session(
            agent, cwd, "s4", [user("m1", None, "four: brand new", t=900)], name="4.jsonl"
        )
        os.utime(s4)
        await wait_for(pilot, lambda: "four: brand new" in titles(app), what="s4")

        # truncated: rewritten shorter (fewer messages)
        s3.write_bytes(s3.read_bytes().split(b"\n", 2)[0] + b"\n")
        await wait_for(pilot, lambda: "three: oldest" not in titles(app), what="s3 truncated")
        assert "(no messages)" in titles(app)

        # replaced by another file (a new inode) with another first message
        other = tmp_path / "other.jsonl"
        other.write_bytes(s2.read_bytes().replace(b"two: middle", b"two: rewritten"))
        os.replace(other, s2)
        await wait_for(pilot, lambda: "two: rewritten" in titles(app), what="s2 replaced")
        assert selected_path(app) == str(s2)  # still selected

        # renamed, then deleted
        renamed = s1.with_name("1b.jsonl")
        os.rename(s1, renamed)
        await wait_for(
            pilot,
            lambda: (
                str(renamed) in [r.path for r in rows_of(app)]
                and str(s1) not in [r.path for r in rows_of(app)]
            ),
            what="rename",
        )
        s4.unlink()
        await wait_for(pilot, lambda: "four: brand new" not in titles(app), what="s4 gone")
        assert selected_path(app) == str(s2)
        await settle(pilot)
        await pilot.pause(0.3)
        live_rows = rows_of(app)
    assert live_rows == await fresh_rows(cwd)

    # the index followed the same events: every listed file is cached with its current state
    index = Index(Index.default_path())
    try:
        cached = index.cached()
        for path in (s2, s3, renamed):
            st = os.stat(path)
            assert cached[str(path)].key == (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)
        assert str(s4) not in cached and str(s1) not in cached
    finally:
        index.close()


async def test_the_query_stays_while_sessions_change(tmp_path: Path) -> None:
    cwd = str(tmp_path / "proj")
    agent = agent_dir()
    a = write_session(agent, cwd, "qa", chain(["apple pie", "ok"]), name="a.jsonl")
    write_session(agent, cwd, "qb", chain(["banana split", "ok"]), name="b.jsonl")
    app = store_app(agent, cwd, watch=True, settings=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await watching(pilot, app, cwd)
        picker(app).search.value = '"apple"'
        await settle(pilot)
        assert titles(app) == ["apple pie"]
        write_session(agent, cwd, "qc", chain(["apple crumble", "ok"]), name="c.jsonl", mtime=None)
        append(a, user("m3", "m2", "more apple talk", t=50))
        await wait_for(pilot, lambda: len(titles(app)) == 2, what="the new apple")
        assert picker(app).search.value == '"apple"'
        assert sorted(titles(app)) == ["apple crumble", "apple pie"]
        rows = rows_of(app)
    assert rows == await fresh_rows(cwd, '"apple"')


@pytest.mark.parametrize("how", ["options", "settings"])
async def test_watching_can_be_turned_off(tmp_path: Path, how: str) -> None:
    cwd = str(tmp_path / "proj")
    write_session(agent_dir(), cwd, "w1", chain(["first"]), name="w1.jsonl")
    options: dict[str, Any] = (
        {"watch": False, "settings": FAST}
        if how == "options"
        else {"watch": True, "settings": Settings(watch=False)}
    )
    app = store_app(agent_dir(), cwd, **options)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        write_session(agent_dir(), cwd, "w2", chain(["second"]), name="w2.jsonl", mtime=None)
        await pilot.pause(1.0)
        assert titles(app) == ["first"]
        assert not picker(app).watching
        assert not [w for w in app.workers if w.group == "picker-watch"]


async def test_the_watcher_stops_when_the_app_exits(tmp_path: Path) -> None:
    cwd = str(tmp_path / "proj")
    write_session(agent_dir(), cwd, "x1", chain(["x"]), name="x.jsonl")
    app = store_app(agent_dir(), cwd, watch=True, settings=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(app)
        await wait_for(pilot, lambda: screen.watching, what="the watcher")
        worker = next(w for w in app.workers if w.group == "picker-watch")
        screen.on_watch_events([WatchNotice("File watching failed (test); polling instead")])
        await pilot.pause()
        assert any("polling instead" in n.message for n in app._notifications)
        await pilot.press("escape")
    assert worker.is_finished
    assert not screen.watching


async def test_a_session_restored_by_undo_is_not_marked_live(tmp_path: Path) -> None:
    # the restore creates the file again: that is pitui's write, not pi working in it (issue 21)
    cwd = str(tmp_path / "proj")
    agent = agent_dir()
    kept = write_session(agent, cwd, "k1", chain(["kept"]), name="k.jsonl")
    gone = write_session(agent, cwd, "g1", chain(["deleted then restored"]), name="g.jsonl")
    app = store_app(agent, cwd, watch=True, settings=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await watching(pilot, app, cwd)
        index = [row.path for row in rows_of(app)].index(str(gone))
        picker(app).query_one(SessionList).selected = index
        await pilot.press("ctrl+d")
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: not gone.exists(), what="the delete")
        await wait_for(pilot, lambda: str(gone) not in [r.path for r in rows_of(app)])
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: str(gone) in [r.path for r in rows_of(app)], what="undo")
        # events arrive in order: once a later probe is seen, the restore's events were taken
        await watching(pilot, app, cwd)
        live = {row.path: row.live for row in picker(app).query_one(SessionList).rows}
        assert live[str(gone)] is False and live[str(kept)] is False
        assert str(gone) not in picker(app).marks.live
