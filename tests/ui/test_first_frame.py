"""The app's first frame comes first (issues 19, 22): the start-up's collector pause ends there,
and a load whose first rows were read ahead starts only once those rows are on the screen."""

from __future__ import annotations

import gc
import threading

import pytest
from textual import events
from textual.geometry import Size
from textual.widgets._footer import FooterKey

from pitui.core import memory
from pitui.ui.app import PituiApp
from pitui.ui.screens.picker import screen as picker_screen
from pitui.ui.widgets.session_list import SessionList
from tests.ui.picker_kit import (
    MINUTE,
    FakeCatalog,
    FakeItem,
    aged,
    fake_app,
    picker,
    settle,
    wait_for,
)

SIZE = (120, 30)


def items() -> list[FakeItem]:
    return [
        FakeItem(f"/s/{n}.jsonl", str(n), f"message {n}", aged((n + 1) * MINUTE)) for n in range(6)
    ]


@pytest.fixture
def collector_on(collector: None) -> None:
    """The collector on, as in a new process (and afterwards as it was: ``collector``)."""
    gc.enable()


@pytest.fixture
def at_first_frame(monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, list[str]]]:
    """(collector on, the groups of the workers running) when the app's first frame is shown."""
    seen: list[tuple[bool, list[str]]] = []
    shown = PituiApp._first_frame_shown

    def spy(app: PituiApp) -> None:
        seen.append((gc.isenabled(), sorted(str(w.group) for w in app.workers)))
        shown(app)

    monkeypatch.setattr(PituiApp, "_first_frame_shown", spy)
    return seen


async def test_the_collector_paused_for_the_start_up_runs_again_after_the_first_frame(
    collector_on: None, at_first_frame: list[tuple[bool, list[str]]]
) -> None:
    memory.hold_collector()  # (as the command line does before it imports the app)
    app = fake_app(FakeCatalog(scopes={"current": items()}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [on for on, _ in at_first_frame] == [False]  # held up to the first frame
        assert gc.isenabled()


async def test_a_load_with_rows_read_ahead_starts_after_the_first_frame(
    at_first_frame: list[tuple[bool, list[str]]],
) -> None:
    every = items()
    catalog = FakeCatalog(scopes={"current": every}, first_pages={"current": every[:2]})
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(at_first_frame) == 1
        _, running = at_first_frame[0]
        assert "load" not in running  # the first frame had the read-ahead rows to itself
        assert catalog.loads == ["current"]
        assert len(picker(app).query_one(SessionList).rows) == len(every)


async def test_a_load_without_rows_to_show_does_not_wait_for_the_frame(
    at_first_frame: list[tuple[bool, list[str]]],
) -> None:
    gate = threading.Event()  # (the load runs until the test lets it end)
    catalog = FakeCatalog(scopes={"current": items()}, gates={"current": gate})
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(at_first_frame))
        _, running = at_first_frame[0]
        assert "load" in running
        gate.set()
        await settle(pilot)
        assert len(picker(app).query_one(SessionList).rows) == len(items())


async def test_a_load_held_for_a_frame_that_never_comes_starts_all_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(PituiApp, "_first_frame_shown", lambda app: None)
    monkeypatch.setattr(picker_screen, "FIRST_FRAME_WAIT", 0.2)
    every = items()
    catalog = FakeCatalog(scopes={"current": every}, first_pages={"current": every[:2]})
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        rows = picker(app).query_one(SessionList)
        await wait_for(pilot, lambda: len(rows.rows) == len(every))
        assert catalog.loads == ["current"]


def resize(width: int, height: int) -> events.Resize:
    return events.Resize(Size(width, height), Size(width, height))


def passed_on(event: events.Resize) -> bool:
    """Whether Textual's own handler (which hands the size to the screen) gets the event."""
    return not event._no_default_action


async def test_before_the_first_frame_a_resize_to_the_same_size_is_not_passed_on() -> None:
    app = fake_app(FakeCatalog(scopes={"current": items()}))
    first, again, other = resize(120, 30), resize(120, 30), resize(100, 30)
    await app._on_resize(first)
    await app._on_resize(again)
    await app._on_resize(other)
    assert [passed_on(first), passed_on(again), passed_on(other)] == [True, False, True]


async def test_after_the_first_frame_every_resize_is_passed_on() -> None:
    app = fake_app(FakeCatalog(scopes={"current": items()}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        same = resize(*SIZE)
        await app._on_resize(same)
        assert passed_on(same)


async def test_the_footer_keys_come_after_the_first_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keys_at_first_frame: list[int] = []
    shown = PituiApp._first_frame_shown

    def spy(app: PituiApp) -> None:
        keys_at_first_frame.append(len(app.screen.query(FooterKey)))
        shown(app)

    monkeypatch.setattr(PituiApp, "_first_frame_shown", spy)
    app = fake_app(FakeCatalog(scopes={"current": items()}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert keys_at_first_frame == [0]
        assert len(picker(app).query(FooterKey)) > 0
