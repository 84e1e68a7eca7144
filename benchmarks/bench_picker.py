"""Time from start to the picker's first row painted, headless, over 10,000 sessions.

Run by hand (not in CI):  python benchmarks/bench_picker.py [--sessions 10000] [--keep DIR]

Builds the store with ``../shared/tools/gen_store.py`` (deleted afterwards unless ``--keep DIR``
names where to build or reuse it) and reads it twice so it sits in the page cache, as for a user
who just used pi. Every measurement is a whole process started by this script, timed from just
before the start to the moment the widget draws (``render_line`` / ``render`` called by the
compositor of a headless app), as a user would see it:

- ``empty_app``: a Textual app with one ``Static``: its first frame (the floor of any app);
- ``warm``: ``pitui --all`` (its ``main``, as the console script runs it) after a previous run
  (``pitui list --all`` then ``pitui --all`` once): the first row drawn;
- ``cold``: the same with an empty index: the first row drawn, while the rest is still loading,
  and when every session is listed (``cold_all_loaded``).

Targets (issue 4): warm ≤ empty app + 0.25 s; cold first rows ≤ empty app + 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
GEN_STORE = REPO.parent / "shared" / "tools" / "gen_store.py"

# One child process. argv: start time (time.time() just before the spawn), mode.
CHILD = r"""
import json, os, sys, time
T0, MODE = float(sys.argv[1]), sys.argv[2]
marks = {}

def mark(name, **extra):
    if name not in marks:
        marks[name] = time.time() - T0
        marks.update(extra)

if MODE == "empty":
    from textual.app import App
    from textual.widgets import Static

    class Probe(Static):
        def render(self):
            mark("first_paint")
            self.app.call_later(self.app.exit)
            return super().render()

    class Empty(App):
        def compose(self):
            yield Probe("hello")

    Empty().run(headless=True, size=(120, 40))
else:
    # pitui as the user starts it (``pitui --all``), its list widget watched from the moment
    # its module is imported: the imports stay inside the command, as they are for a user
    import importlib.util

    def watch_list(module):
        from textual.app import App

        run_app = App.run
        App.run = lambda self, **kwargs: run_app(self, headless=True, size=(120, 40))

        SessionList = module.SessionList
        draw, set_rows = SessionList.render_line, SessionList.set_rows

        def render_line(self, y):
            strip = draw(self, y)
            if self.rows:
                mark("first_row", rows_at_first_paint=len(self.rows))
                if MODE == "warm":
                    self.app.call_later(self.app.exit)
            return strip

        def set_rows_and_check(self, rows, **kwargs):
            # the whole list is shown: the load is over (checked where it happens: no polling)
            from pitui.ui.screens.picker import PickerScreen  # (being imported when this is)

            set_rows(self, rows, **kwargs)
            screen = self.screen
            if MODE == "cold" and isinstance(screen, PickerScreen):
                state = screen.state.scopes["all"]
                if state.loaded and not state.running and len(rows) == len(state.items) > 0:
                    mark("all_loaded", rows_when_loaded=len(rows))
                    self.app.call_later(self.app.exit)

        SessionList.render_line = render_line
        SessionList.set_rows = set_rows_and_check

    class WatchImport:
        def find_spec(self, name, path=None, target=None):
            if name != "pitui.ui.widgets.session_list":
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            run_module = spec.loader.exec_module

            def exec_module(module):
                run_module(module)
                watch_list(module)

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, WatchImport())
    from pitui.cli import main

    mark("cli_imported")
    code = main(["--all"])
    if code != 0:
        raise SystemExit(f"pitui exited with {code}")
print(json.dumps(marks))
"""


def child(mode: str, env: dict[str, str]) -> dict[str, Any]:
    start = time.time()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, repr(start), mode],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{mode} run failed:\n{proc.stderr[-3000:]}")
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"{mode} run printed nothing:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def warm_index(env: dict[str, str]) -> None:
    """A previous run, as a user had one: everything listed once (fills the index: its newest
    rows are the first page of the next start), then pitui started once, to the end of its load
    (it reads the message texts a listing left out into the index)."""
    subprocess.run(
        [sys.executable, "-m", "pitui", "list", "--all", "--json"],
        env=env,
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    child("cold", env)


def read_all(agent: Path) -> int:
    total = 0
    for path in (agent / "sessions").glob("*/*.jsonl"):
        total += len(path.read_bytes())
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this agent dir")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (median)")
    parser.add_argument("--cold-runs", type=int, default=2, help="runs with an empty index")
    args = parser.parse_args()

    agent = args.keep or Path(tempfile.mkdtemp(prefix="pitui-bench-picker-"))
    cache = Path(tempfile.mkdtemp(prefix="pitui-bench-picker-cache-"))
    try:
        if not (agent / "gen_store.manifest.json").exists():
            print(f"generating {args.sessions} sessions in {agent} …", file=sys.stderr)
            subprocess.run(
                [sys.executable, str(GEN_STORE), str(agent), "--sessions", str(args.sessions),
                 "-q"],
                check=True,
            )  # fmt: skip
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(
            PI_CODING_AGENT_DIR=str(agent),
            XDG_CACHE_HOME=str(cache),
            XDG_CONFIG_HOME=str(cache / "config"),  # pitui's defaults, not this user's config
            PYTHONPATH=str(REPO),
            TERM="xterm-256color",
        )
        store_bytes = read_all(agent)
        read_all(agent)  # the store in the page cache
        sessions = len(list((agent / "sessions").glob("*/*.jsonl")))
        child("empty", env)  # bytecode compiled, imports in the page cache
        empty = [child("empty", env)["first_paint"] for _ in range(args.runs)]

        warm_index(env)
        warm_runs = [child("warm", env) for _ in range(args.runs)]

        cold_runs = []
        for _ in range(args.cold_runs):
            shutil.rmtree(cache / "pitui", ignore_errors=True)
            cold_runs.append(child("cold", env))

        empty_s = statistics.median(empty)
        warm_s = statistics.median(r["first_row"] for r in warm_runs)
        cold_s = statistics.median(r["first_row"] for r in cold_runs)
        cold_all_s = statistics.median(r["all_loaded"] for r in cold_runs)
        result = {
            "sessions": sessions,
            "store_mb": round(store_bytes / 2**20, 1),
            "cpus": os.cpu_count(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "empty_app_first_frame_s": round(empty_s, 3),
            "empty_app_runs_s": [round(t, 3) for t in empty],
            "warm_first_row_s": round(warm_s, 3),
            "warm_over_empty_s": round(warm_s - empty_s, 3),
            "warm_runs_s": [round(r["first_row"], 3) for r in warm_runs],
            "warm_rows_at_first_paint": warm_runs[0]["rows_at_first_paint"],
            "cold_first_row_s": round(cold_s, 3),
            "cold_over_empty_s": round(cold_s - empty_s, 3),
            "cold_rows_at_first_paint": [r["rows_at_first_paint"] for r in cold_runs],
            "cold_all_loaded_s": round(cold_all_s, 3),
            "cold_runs_s": [
                (round(r["first_row"], 3), round(r["all_loaded"], 3)) for r in cold_runs
            ],
            "targets": "warm <= empty + 0.25 s; cold first rows <= empty + 0.5 s",
            "warm_target_met": warm_s <= empty_s + 0.25,
            "cold_target_met": cold_s <= empty_s + 0.5,
        }
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        if args.keep is None:
            shutil.rmtree(agent, ignore_errors=True)


if __name__ == "__main__":
    main()
