"""Open a 200 MB session: tree, leaf path and context, next to orjson parsing the same lines.

Run by hand (not in CI):  python benchmarks/bench_core.py [--mb 200] [--keep DIR]

Each measurement runs in a fresh subprocess. They alternate (orjson, pitui, pitui in one process,
orjson, ...) so that a busy machine slows them alike; the best and the median of the runs are
printed, and the ratio within each pair (this machine's speed drifts by a third from minute to
minute: a pair runs within a second or two). A big session is read by two processes where the
machine has two cores (see pitui.core.forkscan): the CPU time of both is printed, the same open
in one process beside it, and the peak of their private memory (sampled; the file's own pages,
which orjson's parse maps as well, are not counted) against the target of 150 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GEN_STORE = REPO.parent / "shared" / "tools" / "gen_store.py"

ORJSON_ONLY = r"""
import gc, mmap, os, resource, sys, time, orjson
path = sys.argv[1]
gc.disable()
start = time.perf_counter()
with open(path, "rb") as handle:
    buf = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    pos, size, find, loads = 0, len(buf), buf.find, orjson.loads
    while pos < size:
        end = find(b"\n", pos)
        end = size if end < 0 else end
        loads(buf[pos:end])
        pos = end + 1
elapsed = time.perf_counter() - start
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""

PITUI_OPEN = r"""
import resource, sys, time
from pitui.core.context import build_session_context
from pitui.core.session import Session
path = sys.argv[1]
start = time.perf_counter()
session = Session.open(path, final=True)
branch = session.branch()
context = build_session_context(session)
elapsed = time.perf_counter() - start
own = resource.getrusage(resource.RUSAGE_SELF)
helper = resource.getrusage(resource.RUSAGE_CHILDREN)  # the forked reader of a big file's end
cpu = own.ru_utime + own.ru_stime + helper.ru_utime + helper.ru_stime
print(elapsed, own.ru_maxrss * 1024, len(session.entries), len(branch), len(context.messages),
      cpu, helper.ru_maxrss * 1024)
"""

# The same, read by one process (the split off): what the helper process gains.
PITUI_ONE_PROCESS = PITUI_OPEN.replace(
    "path = sys.argv[1]\n",
    "path = sys.argv[1]\nimport pitui.core.session\npitui.core.session.SPLIT_MIN_BYTES = 1 << 62\n",
)


def run(code: str, path: Path) -> list[float]:
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        check=True,
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    ).stdout
    return [float(x) for x in out.split()]


def _anon_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            return [int(child) for child in children.read().split()]
    except OSError:
        return []


def private_peak(code: str, path: Path) -> float:
    """Peak of the anonymous memory (not the file's pages) of the process and its helper
    together, sampled every 5 ms (Linux; pages the helper shares with its parent count twice)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(path)],
        stdout=subprocess.DEVNULL,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    peak = 0
    while proc.poll() is None:
        pids = [proc.pid, *_children(proc.pid)]
        peak = max(peak, sum(map(_anon_bytes, pids)))
        time.sleep(0.005)
    return float(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=200, help="size of the generated session")
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this agent dir")
    parser.add_argument("--runs", type=int, default=3, help="runs of each (best and median)")
    args = parser.parse_args()
    agent = args.keep or Path(tempfile.mkdtemp(prefix="pitui-bench-core-"))
    manifest = agent / "gen_store.manifest.json"
    if not manifest.exists():
        subprocess.run(
            [sys.executable, str(GEN_STORE), str(agent), "--sessions", "0",
             "--big-session-mb", str(args.mb), "-q"],
            check=True,
        )  # fmt: skip
    sessions = sorted((agent / "sessions").glob("*/*.jsonl"), key=lambda p: p.stat().st_size)
    path = sessions[-1]
    size = path.stat().st_size
    bases: list[list[float]] = []
    runs: list[list[float]] = []
    singles: list[list[float]] = []
    for _ in range(args.runs):
        bases.append(run(ORJSON_ONLY, path))
        runs.append(run(PITUI_OPEN, path))
        singles.append(run(PITUI_ONE_PROCESS, path))
    base = min(bases, key=lambda r: r[0])
    ours = min(runs, key=lambda r: r[0])
    base_median = statistics.median(r[0] for r in bases)
    ours_median = statistics.median(r[0] for r in runs)
    pair_ratios = sorted(o[0] / b[0] for b, o in zip(bases, runs, strict=True))
    mib = 1024 * 1024
    result = {
        "file_mb": round(size / mib, 1),
        "entries": int(ours[2]),
        "branch_len": int(ours[3]),
        "context_messages": int(ours[4]),
        "runs": args.runs,
        "orjson_parse_s": round(base[0], 3),
        "pitui_open_s": round(ours[0], 3),
        "ratio": round(ours[0] / base[0], 2),
        "orjson_parse_median_s": round(base_median, 3),
        "pitui_open_median_s": round(ours_median, 3),
        "ratio_median": round(ours_median / base_median, 2),
        "pair_ratios": [round(r, 2) for r in pair_ratios],
        "pair_ratio_median": round(statistics.median(pair_ratios), 2),
        "one_process_open_median_s": round(statistics.median(r[0] for r in singles), 3),
        "one_process_ratio_median": round(
            statistics.median(s[0] / b[0] for b, s in zip(bases, singles, strict=True)), 2
        ),
        "cpu_s_median": round(statistics.median(r[5] for r in runs), 3),
        "pitui_peak_mb": round(max(r[1] for r in runs) / mib, 1),
        "helper_peak_mb": round(max(r[6] for r in runs) / mib, 1),
        "one_process_peak_minus_file_mb": round((max(r[1] for r in singles) - size) / mib, 1),
        "private_peak_mb": round(private_peak(PITUI_OPEN, path) / mib, 1),
        "targets": "ratio <= 1.5, private memory (peak beyond the file) <= 150 MB",
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
