"""The session view on a big session, headless (issue 5). Run by hand, not in CI:

    python benchmarks/bench_tree.py [SESSION.jsonl] [--pages 40] [--size 160x50]

Without an argument it takes the biggest session under /tmp/big200 (116k entries, written by
``../shared/tools/gen_store.py /tmp/big200 --sessions 0 --big-session-mb 200``), else the long-5000
fixture. In one run it prints:

- the core's own open time (``Session.open``), for comparison;
- the time from pushing the session screen to the first frame that draws tree rows (the screen
  reads the file in a worker, flattens the tree and draws), and from starting the app;
- per page-down and per filter change: the widget's own work (the action, then drawing every
  visible row, as a frame does: what the user waits for), and a key press through Textual until
  the whole app is idle again (Pilot's measure: it includes the context pane being rebuilt for
  the new selection in its worker thread).

Targets: first frame <= core open + 0.3 s; page-down and filter change <= 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import glob
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from textual.app import App  # noqa: E402
from textual.pilot import Pilot  # noqa: E402

from pitui.config import Settings  # noqa: E402
from pitui.core.session import Session  # noqa: E402
from pitui.ui.app import stylesheets  # noqa: E402
from pitui.ui.screens.session import SessionScreen  # noqa: E402
from pitui.ui.widgets.branch_tree import BranchTree  # noqa: E402

SHARED = REPO.parent / "shared"
LONG_5000 = (
    SHARED / "fixtures/pi-written/agent/sessions/--home-alice-code-pi-tools--/"
    "2025-03-24T03-38-19-601Z_0195c63a-d651-718e-ac44-11cf01511c9a.jsonl"
)
FILTER_KEYS = (("ctrl+t", "no-tools"), ("ctrl+u", "user-only"), ("ctrl+l", "labeled-only"),
               ("ctrl+a", "all"), ("ctrl+d", "default"))  # fmt: skip


def default_session() -> str:
    found = glob.glob("/tmp/big200/sessions/*/*.jsonl")
    return max(found, key=os.path.getsize) if found else str(LONG_5000)


class BenchApp(App[None]):
    CSS_PATH = stylesheets()

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.pushed = 0.0
        self.first_frame = 0.0

    def on_mount(self) -> None:
        self.pushed = time.perf_counter()
        self.push_screen(
            SessionScreen(self.path, settings=Settings(watch=False), watch=False, standalone=True)
        )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[max(0, round(len(ordered) * 0.95) - 1)]
    return f"median {ms(statistics.median(ordered))}  p95 {ms(p95)}  max {ms(ordered[-1])}"


def draw_frame(tree: BranchTree) -> None:
    """What a frame asks of the widget: every visible line."""
    for y in range(tree.scrollable_content_region.height):
        tree.render_line(y)


def widget_time(tree: BranchTree, action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    draw_frame(tree)
    return time.perf_counter() - start


async def key_time(pilot: Pilot[Any], key: str) -> float:
    start = time.perf_counter()
    await pilot.press(key)
    return time.perf_counter() - start


async def run(path: str, pages: int, size: tuple[int, int]) -> None:
    gc.collect()
    start = time.perf_counter()
    with Session.open(path) as session:
        core_open = time.perf_counter() - start
        entries = len(session.entries)
        leaves = sum(1 for meta in session.entries if not meta.children)
    del session
    gc.collect()
    print(f"session: {entries:,} entries, {leaves:,} branch ends, "
          f"{os.path.getsize(path) / 1e6:.1f} MB")  # fmt: skip
    print(f"core open (Session.open):          {ms(core_open)}")

    phases: dict[str, float] = {}
    core_open_method = Session.__dict__["open"]

    def timed_open(cls: type[Session], *args: Any, **kwargs: Any) -> Session:
        start = time.perf_counter()
        try:
            return core_open_method.__func__(cls, *args, **kwargs)  # type: ignore[no-any-return]
        finally:
            phases["read"] = time.perf_counter() - start
            phases["read_end"] = time.perf_counter()

    Session.open = classmethod(timed_open)  # type: ignore[method-assign, assignment]
    original = BranchTree.render_line

    def timed_render_line(self: BranchTree, y: int) -> Any:
        app = self.app
        if isinstance(app, BenchApp) and not app.first_frame and self.model.count:
            app.first_frame = time.perf_counter()
        return original(self, y)

    BranchTree.render_line = timed_render_line  # type: ignore[method-assign]
    app = BenchApp(path)
    started = time.perf_counter()
    async with app.run_test(size=size) as pilot:
        while not app.first_frame:
            await asyncio.sleep(0.02)  # no Pilot.pause here: it waits for the whole app to idle
        Session.open = core_open_method  # type: ignore[method-assign]
        BranchTree.render_line = original  # type: ignore[method-assign]
        extra = ms(app.first_frame - app.pushed - core_open).strip()
        print(f"first tree frame after the screen: {ms(app.first_frame - app.pushed)}"
              f"   (core open + {extra})")  # fmt: skip
        print(f"  of which reading in the worker:  {ms(phases['read'])}"
              f"   (then flatten, mount, draw: "
              f"{ms(app.first_frame - phases['read_end']).strip()})")  # fmt: skip
        print(f"first tree frame after app start:  {ms(app.first_frame - started)}")
        await app.workers.wait_for_complete()
        await pilot.pause(0.5)
        tree = app.screen.query_one(BranchTree)
        print(f"rows: {tree.model.count:,} visible of {tree.model.total_rows:,}; "
              f"window {tree.page_size} rows")  # fmt: skip
        tree.model.select_index(0)
        tree.action_cursor_down()
        down = [widget_time(tree, tree.action_page_down) for _ in range(pages)]
        up = [widget_time(tree, tree.action_page_up) for _ in range(pages)]
        print(f"page-down, widget:  {summary(down)}")
        print(f"page-up, widget:    {summary(up)}")
        filters: list[float] = []
        for _ in range(3):
            for _key, mode in FILTER_KEYS:

                def change(mode: str = mode) -> None:
                    tree.action_filter(mode)

                filters.append(widget_time(tree, change))
        print(f"filter change, widget: {summary(filters)}  ({len(filters)} changes)")
        keys_down = [await key_time(pilot, "pagedown") for _ in range(pages)]
        print(f"page-down key -> idle:  {summary(keys_down)}")
        keys_filter: list[float] = []
        for _ in range(2):
            for key, _mode in FILTER_KEYS:
                keys_filter.append(await key_time(pilot, key))
        print(f"filter key -> idle:     {summary(keys_filter)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("session", nargs="?", default=None)
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--size", default="160x50")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    asyncio.run(run(args.session or default_session(), args.pages, (width, height)))


if __name__ == "__main__":
    main()
