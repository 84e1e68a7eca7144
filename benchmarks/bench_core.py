"""Open a 200 MB session: tree, leaf path and context, next to orjson parsing the same lines.

Run by hand (not in CI):  python benchmarks/bench_core.py [--mb 200] [--keep DIR]

Each measurement runs in a fresh subprocess so peak memory (ru_maxrss) is that of one open. The two
measurements alternate (orjson, pitui, orjson, ...) so that a busy machine slows both alike; the
best and the median of the runs are printed, and the ratio within each pair (this machine's speed
drifts by a third from minute to minute: a pair runs within a second or two).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
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
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
      len(session.entries), len(branch), len(context.messages))
"""


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
    for _ in range(args.runs):
        bases.append(run(ORJSON_ONLY, path))
        runs.append(run(PITUI_OPEN, path))
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
        "pitui_peak_mb": round(max(r[1] for r in runs) / mib, 1),
        "peak_minus_file_mb": round((max(r[1] for r in runs) - size) / mib, 1),
        "targets": "ratio <= 1.5, peak <= file + 150 MB",
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
