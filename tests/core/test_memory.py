"""Freed memory goes back to the system (issue 24.13): glibc keeps what a re-read frees among what
stays; pitui trims the heap after a load, at most every TRIM_INTERVAL seconds."""

from __future__ import annotations

import gc
import random
import sys
from pathlib import Path

import pytest

from pitui.core import memory

glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or memory._malloc_trim() is None,
    reason="malloc_trim is glibc's",
)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@glibc
def test_a_trim_gives_back_what_was_freed_among_what_stays() -> None:
    # what a re-read does: texts of every size (C-heap blocks, past pymalloc's 512 bytes), most
    # of them freed, the rest kept between them, so the heap cannot shrink from its top
    shuffle = random.Random(0)
    kept: list[str] = []
    freed: list[str] = []
    for n in range(30_000):
        text = "x" * shuffle.randint(600, 8_000)
        (kept if n % 4 == 0 else freed).append(text)
    freed.clear()
    before = rss_mb()
    assert memory.release_freed_memory(now=1e9, interval=0.0)
    after = rss_mb()
    assert before - after > 30, (before, after)  # ~100 MB were freed
    assert len(kept) == 7_500


@glibc
def test_at_most_one_trim_per_interval() -> None:
    start = 2e9
    assert memory.release_freed_memory(now=start)
    assert not memory.release_freed_memory(now=start + memory.TRIM_INTERVAL / 2)
    assert memory.release_freed_memory(now=start + memory.TRIM_INTERVAL)


async def test_the_picker_trims_after_rebuilding_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    from pitui.ui.screens.picker import screen as screen_module
    from tests.ui.picker_kit import MINUTE, FakeCatalog, FakeItem, aged, fake_app, picker, settle

    calls: list[float] = []
    monkeypatch.setattr(screen_module, "TRIM_INTERVAL", 0.2)
    monkeypatch.setattr(
        screen_module, "release_freed_memory", lambda *, interval: calls.append(interval)
    )
    item = FakeItem("/s/a.jsonl", "a", "hello", aged(MINUTE))
    app = fake_app(FakeCatalog(scopes={"current": [item]}))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.pause(0.5)
        assert len(calls) == 1  # once after the load and its rows, not on every tick
        picker(app).search.value = "hel"
        await settle(pilot)
        await pilot.pause(0.5)
        assert len(calls) == 2


# ---------------------------------------------------------------- the collector at start-up
def test_the_collector_is_held_until_the_first_frame_then_skips_the_start_up(
    collector: None,
) -> None:
    frozen = gc.get_freeze_count()
    memory.hold_collector()
    assert not gc.isenabled()
    memory.hold_collector()  # (held already: nothing changes)
    memory.release_collector()
    assert gc.isenabled()
    assert gc.get_freeze_count() > frozen  # what lived then is out of the collector's way
    memory.release_collector()  # (released already: nothing left to do)
    assert gc.isenabled()


def test_a_start_up_without_a_frame_only_turns_the_collector_back_on(collector: None) -> None:
    frozen = gc.get_freeze_count()
    memory.hold_collector()
    memory.release_collector(freeze=False)
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen


def test_a_collector_someone_else_turned_off_stays_off(collector: None) -> None:
    gc.disable()
    memory.hold_collector()
    memory.release_collector()
    assert not gc.isenabled()


# ------------------------------------------------------------- the collector around a reader
def test_a_pause_leaves_the_collector_as_it_found_it(collector: None) -> None:
    gc.enable()
    with memory.collector_paused():
        assert not gc.isenabled()
        with memory.collector_paused():  # (a reader inside a reader)
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause did not end the outer one
    assert gc.isenabled()
    gc.disable()
    with memory.collector_paused():
        pass
    assert not gc.isenabled()  # someone else's off stays off


def test_a_pause_with_freeze_takes_what_was_built_out_of_the_collectors_way(
    collector: None,
) -> None:
    frozen = gc.get_freeze_count()
    with memory.collector_paused(freeze=True):
        built = [[index] for index in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(built)


def test_inspect_turns_the_collector_back_on(collector: None) -> None:
    from pitui.cli import main

    session = next((Path(__file__).parents[1] / "fixtures").rglob("*.jsonl"), None)
    assert session is not None
    gc.enable()
    assert main(["inspect", "--json", str(session)]) == 0
    assert gc.isenabled()  # (it was left off for the rest of the process)
