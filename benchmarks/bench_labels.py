"""Every label of a store: ``pitui labels --all`` and the picker's ``label:`` rows, warm.

Run by hand (not in CI), on an existing agent dir (read only; the index goes to a temp cache):

    python benchmarks/bench_labels.py /work/benchdata/store10k [--runs 5]

- ``list``: ``pitui list --all --json`` (whole process): the limit, measured in the same run;
- ``labels``: ``pitui labels --all --json`` (whole process): every label from the index;
- in process, over the scope's listed sessions (what the picker holds after its load): the
  ``label:`` rows the first time (labels gathered from the listing and the rows made), then
  narrowed by a word (every key typed after ``label:``).

Medians of ``--runs`` (and the best), wall and CPU; the machine may be busy with other work, so
the ratio of each pair of whole-process runs is printed too.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

IN_PROCESS = r"""
import sys, time
from pitui.core.store import Store
from pitui.ui.catalog import StoreCatalog
from pitui.ui.screens.picker.labels import label_rows, matching
runs, word = int(sys.argv[1]), sys.argv[2]
items = Store(cwd="/").load("all")
first, narrowed = [], []
for _ in range(runs):
    catalog = StoreCatalog(Store(cwd="/"))  # a fresh catalog: nothing cached
    start = time.perf_counter()
    rows = label_rows(matching(catalog.labels(items), ""), items, all_scope=True, current=None)
    first.append(time.perf_counter() - start)
    start = time.perf_counter()
    found = label_rows(matching(catalog.labels(items), word), items, all_scope=True, current=None)
    narrowed.append(time.perf_counter() - start)
print(len(items), len(rows[2]), len(found[2]), *sorted(first), "|", *sorted(narrowed))
"""


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agent", type=Path, help="an agent dir (with sessions/)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--word", default="bug", help="the word typed after label:")
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="bench-labels-")
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PI_CODING_AGENT_DIR": str(args.agent.resolve()),
        "XDG_CACHE_HOME": cache,
    }
    pitui = [sys.executable, "-m", "pitui"]
    print("building the index (cold listing)…", flush=True)
    timed([*pitui, "list", "--all", "--json"], env)
    results: dict[str, list[tuple[float, float]]] = {"list": [], "labels": []}
    ratios: list[float] = []
    for _ in range(args.runs):
        listed = timed([*pitui, "list", "--all", "--json"], env)
        labelled = timed([*pitui, "labels", "--all", "--json"], env)
        results["list"].append(listed)
        results["labels"].append(labelled)
        ratios.append(labelled[1] / listed[1])
    for name, found in results.items():
        walls, cpus = [w for w, _ in found], [c for _, c in found]
        print(
            f"{name:7} wall median {statistics.median(walls):.3f} s (best {min(walls):.3f}), "
            f"CPU median {statistics.median(cpus):.3f} s (best {min(cpus):.3f})"
        )
    print(f"labels / list CPU, per pair: median {statistics.median(ratios):.2f}")
    out = subprocess.run(
        [sys.executable, "-c", IN_PROCESS, str(args.runs), args.word],
        env=env, check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    sessions, rows, narrowed = out[:3]
    bar = out.index("|")
    first = [float(x) for x in out[3:bar]]
    then = [float(x) for x in out[bar + 1 :]]
    print(
        f"label: rows ({sessions} sessions, {rows} labels): median "
        f"{statistics.median(first) * 1000:.0f} ms (best {min(first) * 1000:.0f})"
    )
    print(
        f"label:{args.word} ({narrowed} rows), labels kept: median "
        f"{statistics.median(then) * 1000:.0f} ms (best {min(then) * 1000:.0f})"
    )
    print(f"load average {os.getloadavg()[0]:.1f} (others' work shares the machine)")


if __name__ == "__main__":
    main()
