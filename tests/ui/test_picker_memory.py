"""The picker under appends keeps no widgets it no longer shows (issue 24.13).

bench_soak (pitui on 3,000 sessions, a line appended every 50 ms) grew ~65 KB an append; a
memory probe in the running app counted ~12 more ``FooterKey`` widgets (with their styles and
caches) every re-read of the listing: each re-read refreshed the screen's bindings, Textual's
footer recomposed, and its ``data_bind`` watchers kept every removed key alive (Textual #6666).
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from textual.widgets._footer import FooterKey

from pitui.config import Settings
from pitui.ui.screens.picker import live as live_module
from pitui.ui.widgets.footer import Footer
from pitui.ui.widgets.session_list import SessionList
from tests.core.sessiondata import assistant, user
from tests.ui.picker_kit import picker, settle, store_app, wait_for, write_session

SIZE = (150, 40)


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


def footer_keys() -> list[FooterKey]:
    gc.collect()
    return [obj for obj in gc.get_objects() if isinstance(obj, FooterKey)]


def append(path: Path, *objects: dict[str, Any]) -> None:
    with open(path, "ab") as handle:
        for obj in objects:
            handle.write(orjson.dumps(obj) + b"\n")


async def test_a_refresh_of_the_bindings_leaves_no_old_footer_keys(tmp_path: Path) -> None:
    cwd = str(tmp_path / "proj")
    agent = Path(os.environ["PI_CODING_AGENT_DIR"])
    write_session(agent, cwd, "s1", [user("m1", None, "one", t=100)], name="1.jsonl")
    app = store_app(agent, cwd)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(app)
        shown = len(screen.query_one(Footer).query(FooterKey))
        assert shown > 0
        for _ in range(20):  # what a focus change or a selection that comes and goes does
            screen.refresh_bindings()
            await pilot.pause(0.02)
        await settle(pilot)
        alive = footer_keys()
        assert len(screen.query_one(Footer).query(FooterKey)) == shown
        # (the 20 earlier sets of keys were ~20 × shown)
        assert len(alive) <= 2 * shown, f"{len(alive)} footer keys alive, {shown} shown"


async def test_rows_that_arrive_under_appends_do_not_rebuild_the_footer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keys' enabled state depends only on whether a session is selected: a re-read of the
    listing (twice a second while pi writes) leaves the footer's widgets as they are."""
    monkeypatch.setattr(live_module, "REFRESH_INTERVAL", 0.05)
    cwd = str(tmp_path / "proj")
    agent = Path(os.environ["PI_CODING_AGENT_DIR"])
    path = write_session(agent, cwd, "s1", [user("m1", None, "one", t=100)], name="1.jsonl")
    write_session(agent, cwd, "s2", [user("m1", None, "two", t=50)], name="2.jsonl")
    app = store_app(agent, cwd, watch=True, settings=Settings(watch_debounce_ms=30))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(app)
        await wait_for(pilot, lambda: screen.watching, what="the watcher")
        await pilot.pause(0.3)
        before = {id(key) for key in screen.query_one(Footer).query(FooterKey)}
        rows = screen.query_one(SessionList)
        parent = "m1"
        for n in range(1, 6):
            entry = f"a{n}"
            append(path, assistant(entry, parent, f"reply {n}", t=100 + n))
            parent = entry
            count = str(1 + n)
            await wait_for(
                pilot,
                lambda count=count: any(row.right.endswith(count) for row in rows.rows),  # type: ignore[misc]
                what=f"{count} messages",
            )
        await settle(pilot)
        after = {id(key) for key in screen.query_one(Footer).query(FooterKey)}
        assert after == before
