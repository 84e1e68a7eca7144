"""Every screen on the hostile fixtures: ``terminal-hostile`` (markup, escape sequences, OSC
titles and links, bidi controls), ``lone-surrogates`` and ``large-content`` (a 60,000-character
line, a big tool output).

The SVG snapshots pin what a user sees: markup and escapes shown as text, never acting. The
picker with its preview, the delete and rename dialogs, the session view, the doctor and the
stats screen are each taken on each fixture, through the real app and a real store.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pitui.config import Settings
from pitui.core.store import Store
from pitui.ui.app import AppOptions, PituiApp, make_app
from pitui.ui.catalog import StoreCatalog
from pitui.ui.screens.doctor import DoctorScreen
from pitui.ui.screens.session import SessionScreen
from pitui.ui.screens.stats import StatsScreen
from pitui.ui.widgets.branch_tree import BranchTree
from pitui.ui.widgets.stats_panel import StatsPanel
from tests.conftest import fixture_by_scenario
from tests.ui.picker_kit import (
    Step,
    copy_fixture,
    picker,
    press,
    ready,
    wait_for,
    write_hostile_session,
)

SIZE = (120, 36)
CWD = "/home/ana/code/webapp"  # fixed: it shows in the header and the session folder name
CLOCK = 1742860800.0  # 2025-03-25T00:00:00Z, after every fixture session
SCENARIOS = ["terminal-hostile", "lone-surrogates", "large-content"]

Snap = Callable[..., bool]


def app_with(home: Path, scenario: str) -> PituiApp:
    """The app on a store holding the fixture session alone (so it is the selected row)."""
    agent = home / ".pi" / "agent"
    path = copy_fixture(fixture_by_scenario("pi-written", scenario), agent, CWD)
    os.utime(path, (CLOCK - 3600, CLOCK - 3600))  # the session view shows it
    return make_app(
        StoreCatalog(Store(cwd=CWD, agent=agent, workers=1)),
        AppOptions(settings=Settings(theme="pi-dark"), cwd=CWD, clock=lambda: CLOCK, watch=False),
    )


def until(what: str, condition: Callable[[PituiApp], bool]) -> Step:
    async def step(pilot: Pilot[Any]) -> None:
        app: PituiApp = pilot.app  # type: ignore[assignment]
        await wait_for(pilot, lambda: condition(app), what=what)
        await pilot.pause()

    return step


def doctor_done(app: PituiApp) -> bool:
    return isinstance(app.screen, DoctorScreen) and app.screen.lines is not None


def stats_done(app: PituiApp) -> bool:
    screen = app.screen
    return isinstance(screen, StatsScreen) and screen.query_one(StatsPanel).report is not None


def session_open(app: PituiApp) -> bool:
    screen = app.screen
    return (
        isinstance(screen, SessionScreen)
        and screen.session is not None
        and bool(screen.query(BranchTree))
    )


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_picker_and_preview(snap_compare: Snap, home: Path, scenario: str) -> None:
    assert snap_compare(app_with(home, scenario), terminal_size=SIZE, run_before=ready())


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_delete_dialog(snap_compare: Snap, home: Path, scenario: str) -> None:
    assert snap_compare(
        app_with(home, scenario), terminal_size=SIZE, run_before=ready(press("ctrl+d"))
    )


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_rename_dialog(snap_compare: Snap, home: Path, scenario: str) -> None:
    assert snap_compare(
        app_with(home, scenario), terminal_size=SIZE, run_before=ready(press("ctrl+r"))
    )


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_session_view(snap_compare: Snap, home: Path, scenario: str) -> None:
    assert snap_compare(
        app_with(home, scenario),
        terminal_size=SIZE,
        run_before=ready(press("ctrl+t"), until("the session view", session_open)),
    )


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_doctor(snap_compare: Snap, home: Path, scenario: str) -> None:
    assert snap_compare(
        app_with(home, scenario),
        terminal_size=SIZE,
        run_before=ready(press("f3"), until("the doctor's report", doctor_done)),
    )


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_stats(snap_compare: Snap, home: Path, scenario: str) -> None:
    assert snap_compare(
        app_with(home, scenario),
        terminal_size=SIZE,
        run_before=ready(press("f2"), until("the statistics", stats_done)),
    )


async def test_doctor_from_the_session_view_checks_the_open_file(home: Path) -> None:
    app = app_with(home, "terminal-hostile")
    async with app.run_test(size=SIZE) as pilot:
        await ready(press("ctrl+t"), until("the session view", session_open))(pilot)
        path = picker(app).selected_item.path  # type: ignore[union-attr]
        await pilot.press("f3")
        await wait_for(pilot, lambda: doctor_done(app), what="the doctor's report")
        screen = app.screen
        assert isinstance(screen, DoctorScreen) and screen.path == path
        assert os.path.basename(path) in screen.lines[0]  # type: ignore[index]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen)


async def test_notifications_are_plain_text_with_their_controls_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # they quote ids, labels, paths and problems read from session files: a parent id of
    # "[/bold]" was taken for markup and the session view crashed on its "Read with problems"
    from textual.app import App

    from tests.ui.picker_kit import FakeCatalog, FakeItem, fake_app

    shown: list[tuple[str, str, bool]] = []

    def record(self: App[Any], message: str, *, title: str = "", **kwargs: Any) -> None:
        shown.append((message, title, kwargs["markup"]))

    monkeypatch.setattr(App, "notify", record)
    item = FakeItem("/home/ana/s/a.jsonl", "a", "hello", 1735689600000)
    app = fake_app(FakeCatalog(scopes={"current": [item], "all": [item]}))
    async with app.run_test(size=SIZE):
        app.notify("parent '[/bold]' is gone \x1b]0;pwned\x07", title="[b]\x1b[2J")
    message, title, markup = shown[-1]
    assert markup is False
    assert "[/bold]" in message and "\x1b" not in message and "\x07" not in message
    assert "\x1b" not in title


def test_the_session_header_shows_the_folders_controls() -> None:
    # the folder came from the file's header and went to the terminal as it was: an OSC title
    # in it retitled the terminal window
    from pitui.ui.widgets.session_header import HeaderView, title_line

    shown = HeaderView(
        name=None, cwd="/x\x1b]0;pwned\x07\n/y", created=None, file_size=0, modified=0.0,
        entries=0, facts=None, read_only=False, writing=False, follow=True,
    )  # fmt: skip
    line = title_line(shown, 100).plain
    assert "\x1b" not in line and "\x07" not in line and "\n" not in line
    assert "␛]0;pwned" in line


def test_a_confirmation_shows_the_controls_it_quotes() -> None:
    from rich.text import Text

    from pitui.ui.modals.confirm import ConfirmModal

    modal = ConfirmModal("Prune", Text("labels that go: “\x1b]52;c;aGk=\x07”\nand more"))
    body = modal._body.plain  # (what its body Static is given)
    assert "\x1b" not in body and "\x07" not in body and "\nand more" in body


async def test_every_field_hostile_through_every_screen(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # markup in a parent id crashed the session view (MarkupError in its notice) and an OSC
    # title in the folder reached the terminal: each screen on a session made of nothing else,
    # and every notification shown on the way plain and free of controls
    from textual.app import App

    agent = home / ".pi" / "agent"
    write_hostile_session(agent, CWD, mtime=CLOCK - 3600)
    notices: list[tuple[str, bool]] = []
    notify = App.notify

    def recorded(self: App[Any], message: str, **kwargs: Any) -> None:
        notices.append((message, kwargs["markup"]))
        notify(self, message, **kwargs)

    monkeypatch.setattr(App, "notify", recorded)
    app = make_app(
        StoreCatalog(Store(cwd=CWD, agent=agent, workers=1)),
        AppOptions(settings=Settings(theme="pi-dark"), cwd=CWD, clock=lambda: CLOCK, watch=False),
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready()(pilot)
        for keys in (("ctrl+d", "escape"), ("ctrl+r", "escape"), ("f3", "escape")):
            await press(*keys)(pilot)
            await pilot.pause()
        await press("ctrl+t")(pilot)
        await wait_for(pilot, lambda: session_open(app), what="the session view")
        steps: list[tuple[str, ...]] = [("up",), ("up",), ("ctrl+o",), ("ctrl+o",), ("alt+a",)]
        steps += [("L", "escape")]
        steps += [("home",), ("down",), ("D", "escape"), ("f3", "escape"), ("end",)]
        for step in steps:
            await press(*step)(pilot)
            await pilot.pause()
        assert isinstance(app.screen, SessionScreen)
    assert app.return_code in (None, 0)  # (an exception in the app fails run_test too)
    assert any("gone[/bold]" in message for message, _ in notices)  # the problems' notice
    for message, markup in notices:
        assert markup is False and "\x1b" not in message and "\x07" not in message
