"""Live updates in a headless pitui (issue 7). Run by hand, not in CI:

    python benchmarks/bench_live.py [SESSION.jsonl] [--entries 200] [--rate 20] [--idle 10]

Copies the session (default: the long-5000 fixture) to a temp folder, opens it in the session view
of a headless pitui with the real watcher and the default settings (150 ms debounce, or
``--debounce``), then appends ``--entries`` entries at ``--rate`` per second from another thread,
each as one whole line, as pi writes them (a chain from the leaf, user and assistant turns). For
each entry it prints the latency from the write to the moment its row is in the tree widget (the
widget's model holds it), as p50 / p95 / max, and afterwards the CPU the process uses while
nothing is written. Targets: p95 <= 300 ms; idle CPU < 2% of one core.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from textual.app import App  # noqa: E402

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


class BenchApp(App[None]):
    CSS_PATH = stylesheets()

    def __init__(self, path: str, settings: Settings) -> None:
        super().__init__()
        self.screen_ = SessionScreen(path, settings=settings, standalone=True)

    def on_mount(self) -> None:
        self.push_screen(self.screen_)


def entry_line(uid: str, parent: str | None, turn: int) -> bytes:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    if turn % 2 == 0:
        message: dict[str, Any] = {"role": "user", "content": f"live message {turn}",
                                   "timestamp": int(time.time() * 1000)}  # fmt: skip
    else:
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": f"live reply {turn} " + "x" * 200}],
            "api": "anthropic-messages", "provider": "anthropic", "model": "claude-bench",
            "usage": {"input": 100, "output": 50, "cacheRead": 0, "cacheWrite": 0,
                      "totalTokens": 150, "cost": {"total": 0.001}},
            "stopReason": "stop", "timestamp": int(time.time() * 1000),
        }  # fmt: skip
    obj = {"type": "message", "id": uid, "parentId": parent, "timestamp": stamp, "message": message}
    return orjson.dumps(obj) + b"\n"


def writer(path: str, leaf: str | None, count: int, rate: float, written: dict[str, float]) -> None:
    parent = leaf
    start = time.perf_counter()
    for turn in range(count):
        uid = f"bench{turn:05d}"
        # pace by the schedule, not by sleeping a fixed time after each write
        delay = start + turn / rate - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        data = entry_line(uid, parent, turn)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            written[uid] = time.perf_counter()
            os.write(fd, data)
        finally:
            os.close(fd)
        parent = uid


async def run(path: str, entries: int, rate: float, idle: float, settings: Settings) -> None:
    with Session.open(path) as session:
        leaf = session.leaf.id if session.leaf is not None else None
        size = len(session.entries)
    print(f"session: {size:,} entries, {os.path.getsize(path) / 1e6:.1f} MB")
    written: dict[str, float] = {}
    shown: dict[str, float] = {}
    original = BranchTree.session_changed

    def timed_session_changed(self: BranchTree, **kwargs: Any) -> None:
        original(self, **kwargs)
        now = time.perf_counter()
        for meta in reversed(self.model.session.entries):
            if meta.uid in shown or meta.uid not in written:
                break
            shown[meta.uid] = now

    BranchTree.session_changed = timed_session_changed  # type: ignore[method-assign]
    app = BenchApp(path, settings)
    print(f"watch debounce: {settings.watch_debounce_ms} ms")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = app.screen_
        while screen.session is None or not screen.query(BranchTree):
            await pilot.pause(0.05)
        await pilot.pause(1.0)  # the watcher is up
        thread = threading.Thread(target=writer, args=(path, leaf, entries, rate, written))
        thread.start()
        deadline = time.monotonic() + entries / rate + 10
        while len(shown) < entries and time.monotonic() < deadline:
            await pilot.pause(0.05)
        thread.join()
        missing = entries - len(shown)
        latencies = sorted((shown[uid] - written[uid]) * 1000 for uid in shown)
        if latencies:
            p95 = latencies[max(0, round(len(latencies) * 0.95) - 1)]
            print(
                f"write -> row in tree, {len(latencies)} entries at {rate:g}/s: "
                f"p50 {statistics.median(latencies):.0f} ms, p95 {p95:.0f} ms, "
                f"max {latencies[-1]:.0f} ms" + (f"  ({missing} never shown)" if missing else "")
            )
        tree = screen.query_one(BranchTree)
        print(f"tree rows now: {tree.model.total_rows:,}; selection on "
              f"{tree.selected_uid} (follow: {screen.follow})")  # fmt: skip
        await pilot.pause(5.0)  # the last context pane and header updates ("pi is writing" ends)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await asyncio.sleep(idle)
        cpu = time.process_time() - cpu0
        wall = time.perf_counter() - wall0
        print(f"idle: {cpu / wall * 100:.2f}% of one core over {wall:.1f} s (no writes)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("session", nargs="?", default=str(LONG_5000))
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--debounce", type=int, default=Settings().watch_debounce_ms,
                        help="watch_debounce_ms (default: the setting's default)")  # fmt: skip
    args = parser.parse_args()
    settings = Settings(watch_debounce_ms=args.debounce)
    with tempfile.TemporaryDirectory(prefix="pitui-bench-live-") as folder:
        copy = os.path.join(folder, os.path.basename(args.session))
        shutil.copyfile(args.session, copy)
        os.chmod(copy, 0o644)
        asyncio.run(run(copy, args.entries, args.rate, args.idle, settings))


if __name__ == "__main__":
    main()
