"""The picker's ``label:`` mode, Enter on a ``fts:`` hit or a label, and pinned sessions."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from pitui.core.paths import data_dir
from pitui.core.pins import PINS_FILE
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.search_input import SearchInput
from pitui.ui.widgets.session_list import PIN_MARK, SessionList
from tests.core.sessiondata import assistant, chain, entry, user
from tests.ui.picker_kit import (
    picker,
    preview_loaded,
    row_texts,
    settle,
    store_app,
    wait_for,
    write_session,
)

SIZE = (150, 40)


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


def agent_dir() -> Path:
    return Path(os.environ["PI_CODING_AGENT_DIR"])


def label(eid: str, parent: str, target: str, text: str | None, t: int) -> dict[str, Any]:
    fields: dict[str, Any] = {"targetId": target}
    if text is not None:
        fields["label"] = text
    return entry("label", eid, parent, t, **fields)


async def type_query(pilot: Any, query: str) -> None:
    search = pilot.app.screen.query_one(SearchInput)
    search.value = ""
    await pilot.press(*query)
    await settle(pilot)


def labelled_store(tmp_path: Path) -> dict[str, Path]:
    """Two sessions here (one named, labels set, moved and cleared, one on a side branch),
    one in another folder."""
    here, there = str(tmp_path / "proj"), str(tmp_path / "other")
    main = [
        user("u1", None, "plan the release", t=1),
        assistant("a1", "u1", "here is a plan", t=2),
        user("u2", "a1", "ship it", t=3),
        user("u3", "a1", "a side branch nobody follows", t=4),
        assistant("a3", "u3", "side answer", t=5),
        label("l1", "u2", "u2", "release candidate", 60),
        label("l2", "l1", "u3", "dead end", 120),
        label("l3", "l2", "a1", "to be cleared", 180),
        label("l4", "l3", "a1", None, 240),  # cleared
        entry("session_info", "n1", "l4", 241, name="Release work"),
        user("u4", "n1", "and back on the main branch", t=242),
    ]
    return {
        "main": write_session(agent_dir(), here, "s-main", main, name="main.jsonl"),
        "plain": write_session(
            agent_dir(), here, "s-plain", [*chain(["nothing labelled"])], name="plain.jsonl"
        ),
        "other": write_session(
            agent_dir(),
            there,
            "s-other",
            [user("o1", None, "elsewhere", t=1), label("m1", "o1", "o1", "release notes", 300)],
            name="other.jsonl",
        ),
    }


def label_rows(app: Any) -> list[tuple[str, str, str]]:
    return [
        (row.title, row.key.rsplit("#", 1)[1], row.right)
        for row in picker(app).query_one(SessionList).rows
    ]


async def test_label_mode_lists_every_label_of_the_scope_and_enter_opens_it(
    tmp_path: Path,
) -> None:
    paths = labelled_store(tmp_path)
    app = store_app(agent_dir(), str(tmp_path / "proj"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, "label:")
        await wait_for(pilot, lambda: bool(picker(app).hits), what="label rows")
        # newest label first; the cleared one is gone; the session's name on the right
        assert label_rows(app) == [
            ("[dead end]", "u3", "Release work"),
            ("[release candidate]", "u2", "Release work"),
        ]
        lines = row_texts(app)
        assert lines[0].startswith("› [dead end]") and lines[0].rstrip().endswith(
            "Release work 5mo"
        )
        await pilot.press("tab")  # every folder: the other folder's label too, with its cwd
        await wait_for(pilot, lambda: len(picker(app).hits) == 3, what="all labels")
        assert [row[0] for row in label_rows(app)] == [
            "[release notes]",
            "[dead end]",
            "[release candidate]",
        ]
        assert label_rows(app)[0][2].endswith("elsewhere")
        await type_query(pilot, "label:candid")  # the words narrow the labels
        await wait_for(pilot, lambda: len(picker(app).hits) == 1, what="narrowed")
        await type_query(pilot, "label:dead")
        await wait_for(
            pilot, lambda: picker(app).selected_entry == "u3", what="the side branch's label"
        )
        assert picker(app).selected_item is not None
        assert picker(app).selected_item.path == str(paths["main"])  # type: ignore[union-attr]
        await preview_loaded(pilot)
        await pilot.press("enter")  # opens the session view at the label, not pi at the leaf
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen), what="session view")
        await settle(pilot)
        tree: Any = app.screen.query_one("#branch-tree")
        assert tree.selected_uid == "u3"
        await pilot.press("escape")
        await settle(pilot)
        await type_query(pilot, "label:nothing like it")
        await wait_for(
            pilot,
            lambda: picker(app).query_one(SessionList).empty_text == "  No label matches.",
            what="no label",
        )
        await type_query(pilot, "")  # back to sessions: no hit rows left
        await wait_for(pilot, lambda: not picker(app).hits and len(picker(app).listed) == 3)


async def test_label_mode_in_a_folder_without_labels_says_so(tmp_path: Path) -> None:
    write_session(agent_dir(), str(tmp_path), "s1", chain(["no labels", "none"]))
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, "label:")
        await wait_for(
            pilot,
            lambda: (
                picker(app).query_one(SessionList).empty_text
                == "  No labels in current folder. Press Tab to view all."
            ),
            what="no labels",
        )


async def test_enter_on_a_full_text_hit_opens_the_session_at_the_hit(tmp_path: Path) -> None:
    entries = [
        user("u1", None, "talk about the weather", t=1),
        assistant("a1", "u1", "zebras have stripes", t=2),
        user("u2", "a1", "and then the leaf", t=3),
    ]
    write_session(agent_dir(), str(tmp_path), "f1", entries, name="f.jsonl")
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, "fts:stripes")
        await wait_for(pilot, lambda: picker(app).selected_entry == "a1", what="hit")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen), what="session view")
        await settle(pilot)
        tree: Any = app.screen.query_one("#branch-tree")
        assert tree.selected_uid == "a1"  # the hit, not the leaf u2
        assert app.return_value is None  # pi was not started


def pins_on_disk() -> list[str]:
    data = orjson.loads((data_dir() / PINS_FILE).read_bytes())
    pins: list[str] = data["pins"]
    return pins


async def test_a_pinned_session_is_first_in_its_scope_and_marked(tmp_path: Path) -> None:
    here = str(tmp_path / "proj")
    old = write_session(agent_dir(), here, "old", chain(["oldest one", "ok"]), name="old.jsonl")
    for n in range(3):
        session = [user("u1", None, f"newer {n}", t=10 + n)]
        write_session(agent_dir(), here, f"new{n}", session, name=f"new{n}.jsonl")
    gone = tmp_path / "gone.jsonl"  # a pin whose session was deleted since: dropped silently
    data_dir().mkdir(parents=True, exist_ok=True)
    (data_dir() / PINS_FILE).write_bytes(orjson.dumps({"version": 1, "pins": [str(gone)]}))
    before = {p: p.read_bytes() for p in old.parent.iterdir()}
    app = store_app(agent_dir(), here)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(app)
        assert [item.id for item in screen.listed] == ["new2", "new1", "new0", "old"]
        screen.session_list.selected = 3
        await pilot.press("alt+t")
        await settle(pilot)
        assert [item.id for item in screen.listed] == ["old", "new2", "new1", "new0"]
        assert screen.selected_item is not None and screen.selected_item.id == "old"
        assert screen.status_text == "Pinned oldest one"
        assert row_texts(app)[0].startswith(f"› {PIN_MARK}oldest one")
        assert pins_on_disk() == [str(old)]  # the gone one was dropped at this write
        # a search keeps its own order; the pinned row is still marked
        await type_query(pilot, "o")
        assert any(row.pinned for row in screen.session_list.rows)
        await type_query(pilot, "")
    assert {p: p.read_bytes() for p in old.parent.iterdir()} == before  # pi's files untouched
    app = store_app(agent_dir(), here)  # the next run shows the pin, and unpins it
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(app)
        assert screen.listed[0].id == "old"
        screen.session_list.selected = 0
        await pilot.press("alt+t")
        await settle(pilot)
        assert [item.id for item in screen.listed] == ["new2", "new1", "new0", "old"]
        assert not any(row.pinned for row in screen.session_list.rows)
        assert pins_on_disk() == []


async def test_the_help_screen_and_the_palette_list_the_pin_key(tmp_path: Path) -> None:
    from rich.console import Console

    from pitui.ui.palette import PituiCommands
    from pitui.ui.screens.help import HelpScreen

    console = Console(width=200, record=True)
    console.print(HelpScreen({})._table())
    lines = console.export_text().splitlines()
    (pin,) = [line for line in lines if "picker.pin" in line]
    assert pin.split()[:2] == ["alt+t", "Pin"]
    (resume,) = [line for line in lines if "picker.resume" in line]
    assert "label: row, open the session at that entry" in resume
    write_session(agent_dir(), str(tmp_path), "s1", chain(["one", "two"]))
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ids = [command.id for command in PituiCommands(picker(app))._available()]
        assert "picker.pin" in ids


async def test_a_label_on_an_entry_the_filter_hides_opens_with_every_entry_shown(
    tmp_path: Path,
) -> None:
    entries = [
        user("u1", None, "start", t=1),
        entry("model_change", "mc", "u1", 2, provider="openai", modelId="gpt-5"),
        label("l1", "mc", "mc", "switched model here", 3),
        user("u2", "l1", "go on", t=4),
    ]
    write_session(agent_dir(), str(tmp_path), "s1", entries)
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, "label:")
        await wait_for(pilot, lambda: picker(app).selected_entry == "mc", what="label row")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen), what="session view")
        await settle(pilot)
        tree: Any = app.screen.query_one("#branch-tree")
        assert tree.selected_uid == "mc"  # (the default filter hides model changes)


async def test_stats_of_label_rows_count_each_session_once(tmp_path: Path) -> None:
    from pitui.ui.screens.stats import StatsScreen
    from pitui.ui.widgets.stats_panel import StatsPanel

    labelled_store(tmp_path)  # main has two labels
    app = store_app(agent_dir(), str(tmp_path / "proj"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, "label:")
        await wait_for(pilot, lambda: len(picker(app).hits) == 2, what="label rows")
        await pilot.press("f2")
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, StatsScreen)
                and app.screen.query_one(StatsPanel).report is not None
            ),
            what="the statistics",
        )
        report = app.screen.query_one(StatsPanel).report
        assert report is not None and report.totals.sessions == 1
        title = str(app.screen.query_one("#dialog-title").visual)  # type: ignore[attr-defined]
        assert "1 session of this folder" in title
