"""List a store of 10,000 sessions: cold, warm, after 10 files grew, full text; next to orjson.

Run by hand (not in CI):  python benchmarks/bench_store.py [--sessions 10000] [--keep DIR]

Builds the store with ``../shared/tools/gen_store.py`` (10,000 sessions x ~100 entries, about
1.9 GB; deleted afterwards unless ``--keep DIR`` names where to build or reuse it). Every
measurement is a whole process, as a user runs it:

- ``orjson``: a script that reads every file and parses every line with orjson (the baseline);
- ``cold``: ``pitui list --all --json`` with an empty index. This machine's speed drifts by a
  third from minute to minute, so each cold run (``--cold-runs``, default 3) comes right after an
  orjson run and the ratio is taken within each pair: the best and the median pair are printed;
- ``warm``: the same again, nothing changed (median of ``--runs``, and the best);
- ``grew10``: after appending two lines to 10 files (median of ``--runs`` rounds, new files
  each, and the best);
- ``fts_build``: ``pitui list --all --fts QUERY`` the first time (indexes every message body);
- ``fts_query``: the same query again (whole process), and the query alone inside a process.

``--skip-fts`` leaves the two full-text steps out (a listing-only run in a third of the time);
``--cold-only`` runs only the orjson-then-cold pairs and writes nothing into the store (for a
shared, read-only ``--keep``).
Warm runs also print their CPU time (user + system), steadier than wall time on a busy machine.

The machine may be busy with other work: repeated steps report medians (``--runs``, default 7).

With ``--keep`` the store is reused, and the appended lines stay in it.

Python may write bytecode caches (``__pycache__``, ignored by git) as an installed package has
them; a ``python -c pass`` run is printed as the floor of any process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
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

ORJSON_ONLY = r"""
import gc, os, sys, orjson
gc.disable()
root = os.path.join(sys.argv[1], "sessions")
loads, lines = orjson.loads, 0
for folder in os.scandir(root):
    if not folder.is_dir():
        continue
    for entry in os.scandir(folder.path):
        if entry.name.endswith(".jsonl"):
            with open(entry.path, "rb") as handle:
                data = handle.read()
            for line in data.split(b"\n"):
                if line:
                    loads(line)
                    lines += 1
print(lines)
"""

FTS_QUERY_ONLY = r"""
import sys, time
from pitui.core.store import Store
store = Store(cwd="/")
times = []
for _ in range(5):
    start = time.perf_counter()
    hits = store.text_search(sys.argv[1], limit=50)
    times.append(time.perf_counter() - start)
print(min(times), len(hits))
"""

FIRST_BATCH = r"""
import time
from pitui.core.store import Store
start = time.perf_counter()
store = Store(cwd="/")
batches = store.iter_load("all")
first = next(batches)
print(time.perf_counter() - start, len(first))
for _ in batches:
    pass
"""


CPU: dict[str, float] = {}  # CPU seconds (user + system, workers included) of the last run


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    cpu_before = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    CPU["last"] = _children_cpu() - cpu_before
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:6])}… failed:\n{proc.stderr[-2000:]}")
    if proc.stderr.strip():
        print(f"  stderr: {proc.stderr.strip()[:300]}", file=sys.stderr)
    return elapsed, proc.stdout


def grow(files: list[Path], rng: random.Random, count: int) -> None:
    """Append a user and an assistant message to ``count`` files, as pi would."""
    for path in rng.sample(files, count):
        last = path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        parent = json.loads(last).get("id")
        now = int(time.time() * 1000)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now / 1000)) + ".000Z"
        uid, aid = f"b{rng.getrandbits(28):07x}", f"b{rng.getrandbits(28):07x}"
        lines = [
            {"type": "message", "id": uid, "parentId": parent, "timestamp": stamp,
             "message": {"role": "user", "content": "one more question", "timestamp": now}},
            {"type": "message", "id": aid, "parentId": uid, "timestamp": stamp,
             "message": {"role": "assistant", "content": [{"type": "text", "text": "answer"}],
                         "provider": "anthropic", "model": "claude-sonnet-4-5",
                         "usage": {"totalTokens": 10, "cost": {"total": 0.001}},
                         "stopReason": "stop", "timestamp": now}},
        ]  # fmt: skip
        with open(path, "a", encoding="utf-8") as handle:
            for line in lines:
                handle.write(json.dumps(line, separators=(",", ":")) + "\n")


def full_text(pitui: list[str], args: argparse.Namespace, env: dict[str, str]) -> dict[str, Any]:
    """The full-text steps: the first ``--fts`` (indexing), the same again, the query alone."""
    py = sys.executable
    fts = [*pitui, "--fts", args.query]
    build_s, _ = timed(fts, env)
    process_s = statistics.median(timed(fts, env)[0] for _ in range(args.runs))
    query_s, hits = timed([py, "-c", FTS_QUERY_ONLY, args.query], env)[1].split()
    common_s, common_hits = timed([py, "-c", FTS_QUERY_ONLY, "cache"], env)[1].split()
    return {
        "fts_build_s": round(build_s, 3),
        "fts_query_process_s": round(process_s, 3),
        "fts_query_s": round(float(query_s), 4),
        "fts_query_hits": int(hits),
        "fts_common_word_query_s": round(float(common_s), 4),
        "fts_common_word_hits": int(common_hits),
    }


def _cold_figures(
    pairs: list[tuple[float, float, float, float]], sessions: int, listed: int, lines: int
) -> dict[str, Any]:
    """The cold pairs alone (``--cold-only``): each pair's ratio, their median and the load."""
    ratios = [cold / base for base, _, cold, _ in pairs]
    return {
        "sessions": sessions,
        "listed": listed,
        "lines": lines,
        "cold_pairs_s": [[round(base, 2), round(cold, 2)] for base, _, cold, _ in pairs],
        "cold_pair_ratios": [round(r, 2) for r in ratios],
        "cold_ratio_median": round(statistics.median(ratios), 2),
        "cold_cpu_ratios": [round(cold / base, 2) for _, base, _, cold in pairs],
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "target": "cold <= 0.8x orjson",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this agent dir")
    parser.add_argument("--runs", type=int, default=7, help="median of N for the repeated steps")
    parser.add_argument("--cold-runs", type=int, default=3, help="orjson-then-cold pairs")
    parser.add_argument("--query", default="regression benchmark", help="full-text query")
    parser.add_argument("--skip-fts", action="store_true", help="leave the full-text steps out")
    parser.add_argument(
        "--cold-only",
        action="store_true",
        help="only the orjson-then-cold pairs (writes nothing into the store: a read-only --keep)",
    )
    args = parser.parse_args()

    agent = args.keep or Path(tempfile.mkdtemp(prefix="pitui-bench-store-"))
    cache = Path(tempfile.mkdtemp(prefix="pitui-bench-cache-"))
    try:
        if not (agent / "gen_store.manifest.json").exists():
            print(f"generating {args.sessions} sessions in {agent} …", file=sys.stderr)
            subprocess.run(
                [sys.executable, str(GEN_STORE), str(agent), "--sessions", str(args.sessions),
                 "-q"],
                check=True,
            )  # fmt: skip
        files = sorted((agent / "sessions").glob("*/*.jsonl"))
        store_bytes = sum(p.stat().st_size for p in files)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(
            PI_CODING_AGENT_DIR=str(agent),
            XDG_CACHE_HOME=str(cache),
            PYTHONPATH=str(REPO),
        )
        py = sys.executable
        pitui = [py, "-m", "pitui", "list", "--all", "--json"]
        timed([py, "-m", "pitui", "--version"], env)  # compile bytecode once
        floor = statistics.median(timed([py, "-c", "pass"], env)[0] for _ in range(args.runs))
        timed([py, "-c", ORJSON_ONLY, str(agent)], env)  # the store in the page cache
        pairs: list[tuple[float, float, float, float]] = []  # orjson s, cpu; cold s, cpu
        out = ""
        lines = 0
        for _ in range(args.cold_runs):
            shutil.rmtree(cache / "pitui", ignore_errors=True)
            elapsed, found = timed([py, "-c", ORJSON_ONLY, str(agent)], env)
            orjson_cpu = CPU["last"]
            lines = int(found)
            cold_s, out = timed(pitui, env)
            pairs.append((elapsed, orjson_cpu, cold_s, CPU["last"]))
        listed = len(json.loads(out))
        ratios = sorted(cold / base for base, _, cold, _ in pairs)
        best_pair = min(pairs, key=lambda p: p[2] / p[0])
        orjson_s, orjson_cpu, cold_s, cold_cpu = best_pair
        if args.cold_only:
            print(json.dumps(_cold_figures(pairs, len(files), listed, lines), indent=2))
            return
        warm: list[float] = []
        warm_cpu: list[float] = []  # (steadier than wall time on a busy machine)
        for _ in range(args.runs):
            warm.append(timed(pitui, env)[0])
            warm_cpu.append(CPU["last"])
        rng = random.Random(7)
        grew: list[float] = []
        for _ in range(args.runs):
            grow(files, rng, 10)
            grew.append(timed(pitui, env)[0])
        warm_first_batch_s = float(timed([py, "-c", FIRST_BATCH], env)[1].split()[0])
        shutil.rmtree(cache / "pitui")  # cold again, to see when the first rows arrive
        cold_first_batch_s = float(timed([py, "-c", FIRST_BATCH], env)[1].split()[0])
        fts_figures = {} if args.skip_fts else full_text(pitui, args, env)
        index_mb = sum(p.stat().st_size for p in (cache / "pitui").glob("index.sqlite3*")) / 2**20

        result = {
            "sessions": len(files),
            "listed": listed,
            "lines": lines,
            "store_mb": round(store_bytes / 2**20, 1),
            "cpus": os.cpu_count(),
            "python_floor_s": round(floor, 3),
            "orjson_parse_all_s": round(orjson_s, 3),
            "cold_s": round(cold_s, 3),
            "cold_ratio_to_orjson": round(cold_s / orjson_s, 2),
            "cold_ratio_median": round(statistics.median(ratios), 2),
            "cold_pairs_s": [[round(base, 2), round(cold, 2)] for base, _, cold, _ in pairs],
            "orjson_cpu_s": round(orjson_cpu, 3),
            "cold_cpu_s": round(cold_cpu, 3),
            "cold_cpu_ratio": round(cold_cpu / orjson_cpu, 2),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "cold_first_batch_in_process_s": round(cold_first_batch_s, 3),
            "warm_s": round(statistics.median(warm), 3),
            "warm_best_s": round(min(warm), 3),
            "warm_cpu_s": round(statistics.median(warm_cpu), 3),
            "warm_first_batch_in_process_s": round(warm_first_batch_s, 3),
            "grew10_s": round(statistics.median(grew), 3),
            "grew10_best_s": round(min(grew), 3),
            "grew10_runs_s": [round(t, 3) for t in grew],
            **fts_figures,
            "index_mb": round(index_mb, 1),
            "targets": "cold <= 0.8x orjson; warm <= 0.3 s (10,000 sessions), 0.15 s (3,000); "
            "grew10 <= 0.35 s; fts query <= 0.1 s",
        }
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        if args.keep is None:
            shutil.rmtree(agent, ignore_errors=True)


if __name__ == "__main__":
    main()
