"""Time from start to the picker's first row painted, headless, over 10,000 sessions.

Run by hand (not in CI):  python benchmarks/bench_picker.py [--sessions 10000] [--keep DIR]
[--repo DIR ...]  (``--repo``: measure these checkouts, e.g. an older commit's worktree, in the
same run as this one, their runs interleaved; each with its own index)

Builds the store with ``../shared/tools/gen_store.py`` (deleted afterwards unless ``--keep DIR``
names where to build or reuse it) and reads it twice so it sits in the page cache, as for a user
who just used pi. Every measurement is a whole process started by this script, timed from just
before the start to the moment the widget draws (``render_line`` / ``render`` called by the
compositor of a headless app), as a user would see it:

- ``empty_app``: a Textual app with one ``Static``: its first frame (the floor of any app);
- ``warm``: ``pitui --all`` (its ``main``, as the console script runs it) after a previous run
  (``pitui list --all`` then ``pitui --all`` once): the first row drawn (``first_row``: the list
  renders a row, maybe inside Textual's batch of the mount, whose frames are never shown), and
  the first frame with rows a terminal would get (``first_frame``: Textual's display of a frame
  outside a batch, after the list drew rows);
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
        marks["cpu_" + name] = time.process_time()  # (the process's, every thread's)
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
        display = App._display

        def display_and_check(self, screen, renderable):
            # (a frame outside a batch: the one a terminal would be sent; headless, none is)
            display(self, screen, renderable)
            if renderable is not None and not self._batch_count and "first_row" in marks:
                mark("first_frame")
                if MODE == "warm":
                    self.call_later(self.exit)

        App._display = display_and_check

        SessionList = module.SessionList
        draw, set_rows = SessionList.render_line, SessionList.set_rows

        def render_line(self, y):
            strip = draw(self, y)
            if self.rows:
                mark("first_row", rows_at_first_paint=len(self.rows))
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
        cwd=env["PYTHONPATH"],
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
        cwd=env["PYTHONPATH"],
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
    parser.add_argument(
        "--repo",
        type=Path,
        action="append",
        help="a checkout to measure (repeatable; default: this one)",
    )
    args = parser.parse_args()
    repos = [path.resolve() for path in args.repo or [REPO]]

    agent = args.keep or Path(tempfile.mkdtemp(prefix="pitui-bench-picker-"))
    caches = {repo: Path(tempfile.mkdtemp(prefix="pitui-bench-picker-cache-")) for repo in repos}
    try:
        if not (agent / "gen_store.manifest.json").exists():
            print(f"generating {args.sessions} sessions in {agent} …", file=sys.stderr)
            subprocess.run(
                [sys.executable, str(GEN_STORE), str(agent), "--sessions", str(args.sessions),
                 "-q"],
                check=True,
            )  # fmt: skip
        base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        envs = {
            repo: {
                **base,
                "PI_CODING_AGENT_DIR": str(agent),
                "XDG_CACHE_HOME": str(cache),
                # pitui's defaults, not this user's config
                "XDG_CONFIG_HOME": str(cache / "config"),
                "PYTHONPATH": str(repo),
                "TERM": "xterm-256color",
            }
            for repo, cache in caches.items()
        }
        store_bytes = read_all(agent)
        read_all(agent)  # the store in the page cache
        sessions = len(list((agent / "sessions").glob("*/*.jsonl")))
        first_env = envs[repos[0]]
        child("empty", first_env)  # bytecode compiled, imports in the page cache
        empty: list[float] = []
        empty_cpu: list[float] = []
        for env in envs.values():
            warm_index(env)
        warm_runs: dict[Path, list[dict[str, Any]]] = {repo: [] for repo in repos}
        for _ in range(args.runs):  # interleaved: each sees the same load
            floor = child("empty", first_env)
            empty.append(floor["first_paint"])
            empty_cpu.append(floor["cpu_first_paint"])
            for repo in repos:
                warm_runs[repo].append(child("warm", envs[repo]))
        cold_runs: dict[Path, list[dict[str, Any]]] = {repo: [] for repo in repos}
        for _ in range(args.cold_runs):
            for repo in repos:
                shutil.rmtree(caches[repo] / "pitui", ignore_errors=True)
                cold_runs[repo].append(child("cold", envs[repo]))

        empty_s = statistics.median(empty)
        results = []
        for repo in repos:
            warm, cold = warm_runs[repo], cold_runs[repo]
            warm_s = statistics.median(r["first_row"] for r in warm)
            frame_s = statistics.median(r["first_frame"] for r in warm)
            nan = float("nan")
            cold_s = statistics.median(r["first_row"] for r in cold) if cold else nan
            cold_all_s = statistics.median(r["all_loaded"] for r in cold) if cold else nan
            results.append(
                {
                    "repo": str(repo),
                    "commit": _commit(repo),
                    "warm_first_row_s": round(warm_s, 3),
                    "warm_over_empty_s": round(warm_s - empty_s, 3),
                    "warm_runs_s": [round(r["first_row"], 3) for r in warm],
                    "warm_first_frame_s": round(frame_s, 3),
                    "warm_frame_runs_s": [round(r["first_frame"], 3) for r in warm],
                    # CPU time (all threads) to them: what the machine's load inflates least
                    "warm_first_row_cpu_s": round(
                        statistics.median(r["cpu_first_row"] for r in warm), 3
                    ),
                    "warm_first_frame_cpu_s": round(
                        statistics.median(r["cpu_first_frame"] for r in warm), 3
                    ),
                    "warm_rows_at_first_paint": warm[0]["rows_at_first_paint"],
                    "cold_first_row_s": round(cold_s, 3),
                    "cold_over_empty_s": round(cold_s - empty_s, 3),
                    "cold_rows_at_first_paint": [r["rows_at_first_paint"] for r in cold],
                    "cold_all_loaded_s": round(cold_all_s, 3),
                    "cold_runs_s": [
                        (round(r["first_row"], 3), round(r["all_loaded"], 3)) for r in cold
                    ],
                    "warm_target_met": warm_s <= empty_s + 0.25,
                    "cold_target_met": cold_s <= empty_s + 0.5,
                }
            )
        result = {
            "sessions": sessions,
            "store_mb": round(store_bytes / 2**20, 1),
            "cpus": os.cpu_count(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "empty_app_first_frame_s": round(empty_s, 3),
            "empty_app_runs_s": [round(t, 3) for t in empty],
            "empty_app_first_frame_cpu_s": round(statistics.median(empty_cpu), 3),
            "targets": "warm <= empty + 0.25 s; cold first rows <= empty + 0.5 s",
            **(results[0] if len(results) == 1 else {"checkouts": results}),
        }
        print(json.dumps(result, indent=2))
    finally:
        for cache in caches.values():
            shutil.rmtree(cache, ignore_errors=True)
        if args.keep is None:
            shutil.rmtree(agent, ignore_errors=True)


def _commit(repo: Path) -> str:
    found = subprocess.run(
        ["git", "-C", str(repo), "log", "-1", "--format=%h %s"],
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.strip()[:72]


if __name__ == "__main__":
    main()
