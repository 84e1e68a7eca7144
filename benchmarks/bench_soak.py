"""The picker under load: RSS and key-to-screen latency while pi appends to its sessions.

Run by hand (not in CI):
    python benchmarks/bench_soak.py [--sessions 10000] [--keep DIR] [--minutes 5] [--cold]

``pitui --all`` runs in tmux at 160x45 on a store of ``--sessions`` sessions (built with
``../shared/tools/gen_store.py``, or reused from ``--keep DIR``, which is then appended to) while
this script appends one whole message line every 50 ms to a session picked at random, as pi
would (each line a child of that file's last entry). Every 30 s it prints the process's RSS and
the latency of a key as a person sees it: the time from ``tmux send-keys`` to the pane showing
the change (a letter typed into the search, then backspace), next to the same keys echoed by an
empty Textual app's ``Input`` measured at the start of the run (the floor of any app).

Target (issue 24.13): RSS after 5,000 appends within 30 MB of RSS after the first 500.
``--cold`` starts with an empty index (the first 30 s then include the cold listing).
``--probe DIR`` runs pitui under ``memory_probe.py`` and has it write what holds its memory into
DIR at every report (``--trace`` adds tracemalloc's allocation sites; it slows pitui down).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

import orjson
import tmux_term as term  # (the benchmarks' shared tmux helpers, beside this file)

REPO = term.REPO
GEN_STORE = REPO.parent / "shared" / "tools" / "gen_store.py"
APPEND_EVERY = 0.05
REPORT_EVERY = 30.0

NO_ROWS = "No sessions found"


def key_latency(session: str, marker: str, rounds: int = 5) -> list[float]:
    """Seconds from each key to its effect on screen: ``q`` makes ``marker`` appear, backspace
    makes it go. In pitui, with ``re:soak`` in the search (it matches the sessions this script
    appended to), the marker is "No sessions found": the filtered rows, which the appends (they
    move rows all the time) cannot fake. In the empty app, the marker is the echoed ``> q``."""
    times: list[float] = []
    for _ in range(rounds):
        for key, shown in (("q", True), ("BSpace", False)):
            start = time.perf_counter()
            term.send(session, key)
            times.append(term.wait_for(session, partial(_shows, marker, shown), 10.0, start))
            time.sleep(0.15)
    return times


def _shows(text: str, shown: bool, screen: str) -> bool:
    """The screen shows ``text`` (or, ``shown`` False, no longer)."""
    return (text in screen) == shown


def rss_mb(pid: int) -> float:
    """RSS of ``pid`` and its descendants, in MB (the pane's shell has pitui as its child)."""
    total = 0
    for proc in [pid, *descendants(pid)]:
        try:
            for line in Path(f"/proc/{proc}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def descendants(pid: int) -> list[int]:
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    found = [int(child) for child in children]
    for child in list(found):
        found.extend(descendants(child))
    return found


def probe(pid: int) -> None:
    """Ask the probed pitui (the pane's shell's child) to write a memory dump."""
    for proc in [pid, *descendants(pid)]:
        try:
            if "memory_probe.py" in Path(f"/proc/{proc}/cmdline").read_text():
                os.kill(proc, signal.SIGUSR1)
        except OSError:
            pass


class Appender(threading.Thread):
    """Appends a message line every ``APPEND_EVERY`` seconds to a random session, as pi does."""

    def __init__(self, files: list[Path]) -> None:
        super().__init__(daemon=True)
        self.files = files
        self.last_id: dict[Path, str | None] = {}
        self.count = 0
        self.stop = threading.Event()
        self.random = random.Random(0)

    def _last_id(self, path: Path) -> str | None:
        if path not in self.last_id:
            with path.open("rb") as handle:
                handle.seek(max(0, path.stat().st_size - 65536))
                tail = handle.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
            try:
                self.last_id[path] = orjson.loads(tail).get("id")
            except orjson.JSONDecodeError:
                self.last_id[path] = None
        return self.last_id[path]

    def run(self) -> None:
        while not self.stop.wait(APPEND_EVERY):
            path = self.random.choice(self.files)
            entry_id = f"{self.random.getrandbits(32):08x}"
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
            line = {
                "type": "message",
                "id": entry_id,
                "parentId": self._last_id(path),
                "timestamp": stamp,
                "message": {
                    "role": "user",
                    "content": [{"type": "text", "text": f"soak line {self.count}"}],
                    "timestamp": int(time.time() * 1000),
                },
            }
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, orjson.dumps(line) + b"\n")
            finally:
                os.close(fd)
            self.last_id[path] = entry_id
            self.count += 1


def floor_latency(env: dict[str, str]) -> list[float]:
    session = "pitui-soak-floor"
    term.start(session, term.empty_app_command(), env)
    try:
        term.wait_for_text(session, "> ")
        time.sleep(0.5)
        term.send(session, "End")
        return key_latency(session, "> q")
    finally:
        term.stop(session)


def summary(times: list[float]) -> str:
    return f"median {statistics.median(times) * 1000:5.0f} ms, max {max(times) * 1000:5.0f} ms"


def report(elapsed: float, appends: int, rss: float, latencies: list[float]) -> None:
    print(f"{elapsed:6.0f} {appends:8d} {rss:8.1f}  {summary(latencies)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this agent dir")
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--cold", action="store_true", help="start with an empty index")
    parser.add_argument("--probe", type=Path, help="write memory_probe.py dumps into this dir")
    parser.add_argument("--trace", action="store_true", help="the probe with tracemalloc")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("bench_soak needs tmux")
    work = Path(tempfile.mkdtemp(prefix="pitui-soak-"))
    agent = args.keep or work / "agent"
    if not (agent / "sessions").is_dir():
        subprocess.run(
            [sys.executable, str(GEN_STORE), str(agent), "--sessions", str(args.sessions), "-q"],
            check=True,
        )
    files = sorted((agent / "sessions").glob("*/*.jsonl"))
    env = term.app_env(agent, work / "cache")
    # glibc's malloc tunables (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_…), to compare
    env.update({key: value for key, value in os.environ.items() if key.startswith("MALLOC_")})
    pitui = f"{sys.executable} -m pitui --all"
    if args.probe is not None:
        env["PITUI_PROBE_DIR"] = str(args.probe.resolve())
        env["PITUI_PROBE_TRACE"] = "1" if args.trace else "0"
        env["PITUI_PROBE_CHAINS"] = os.environ.get("PITUI_PROBE_CHAINS", "")
        pitui = f"{sys.executable} {REPO / 'benchmarks' / 'memory_probe.py'} --all"
    if not args.cold:  # a previous run leaves the index warm (the texts are read by pitui)
        term.warm_index(env, texts=False)
    floor = floor_latency(env)
    print(f"{len(files):,} sessions; empty Textual app's key echo: {summary(floor)}")
    session = "pitui-soak"
    term.start(session, pitui, env)
    appender = Appender(files)
    try:
        term.wait_for_text(session, "Resume Session")
        appender.start()
        while appender.count < 20:  # some sessions hold "soak" now: re:soak lists them
            time.sleep(0.05)
        term.send(session, "re:soak", literal=True)
        # (the texts are read in the background after the first frame: until then no row matches)
        # (the query shows "No sessions found" until the picker has read the texts in the
        # background: give it time to get there, then wait for the rows)
        time.sleep(3)
        term.wait_for(session, partial(_shows, NO_ROWS, False), timeout=300)
        pid = term.pane_pid(session)
        print(f"{'time':>6} {'appends':>8} {'RSS MB':>8}  key to screen")
        report(0.0, appender.count, rss_mb(pid), key_latency(session, NO_ROWS))
        if args.probe is not None:
            probe(pid)
        start = time.monotonic()
        rss_at: dict[int, float] = {}
        reports: list[tuple[int, float]] = []  # (appends, RSS) at each report
        while (elapsed := time.monotonic() - start) < args.minutes * 60:
            time.sleep(min(REPORT_EVERY, args.minutes * 60 - elapsed))
            rss = rss_mb(pid)
            for mark in (500, 5000):
                if mark not in rss_at and appender.count >= mark:
                    rss_at[mark] = rss
            elapsed = time.monotonic() - start
            reports.append((appender.count, rss))
            report(elapsed, appender.count, rss, key_latency(session, NO_ROWS))
            if args.probe is not None:
                probe(pid)
        if 500 in rss_at and 5000 in rss_at:
            growth = rss_at[5000] - rss_at[500]
            print(f"RSS after 5,000 appends - after 500: {growth:+.1f} MB (target: at most +30)")
        if len(reports) >= 4:
            # (on a big store the texts a search needs are read for the first minutes: the
            # growth that lasts is the one after the first half of the run)
            (count_a, rss_a), (count_b, rss_b) = reports[len(reports) // 2 - 1], reports[-1]
            per = (rss_b - rss_a) * 1024 / max(1, count_b - count_a)
            print(
                f"second half: {rss_a:.1f} -> {rss_b:.1f} MB over {count_b - count_a:,} appends "
                f"({per:+.1f} KB per append)"
            )
        appender.stop.set()
        time.sleep(REPORT_EVERY)
        print(f"30 s after the appends stopped: RSS {rss_mb(pid):.1f} MB")
    finally:
        appender.stop.set()
        term.stop(session)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
