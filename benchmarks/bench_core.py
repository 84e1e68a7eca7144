"""Open a 200 MB session (tree, leaf path, context), next to orjson parsing the same lines.

Run by hand (not in CI):  python benchmarks/bench_core.py [--mb 200] [--keep DIR] [--runs 3]
[--floors]
(``--keep /work/benchdata/big200`` reuses a generated store; run it under the bench lock.)

Two pairs are timed, each measurement in a fresh process, one process each (pitui never forks to
read a session):

- in process: ``Session.open`` + branch + ``build_session_context``, against a loop that splits
  the file on ``\\n`` and ``orjson.loads`` every line (the clock starts after the imports);
- whole process: ``python -m pitui inspect --json FILE`` (to its last byte of output), against
  the same loop run as a whole process (interpreter start and imports included).

A third pair times pitui's typed decode of every line alone (the reads and decode of
``Session.open``, no record, link or report): the floor of the open, so that what the ratios above
it hold is seen as the index's own Python work. ``--floors`` adds two whole-process pairs against
the same orjson process: that decode alone, and the decode making the barest Python object per line
(six fields; no link, role, usage or report): the floor of any index of one object per entry (on
the development machine 0.78x and 1.05x: the inspect target of 1.0x is below the second). They
alternate (orjson, pitui, orjson, ...) so that a busy machine slows them alike; the best, the
median and the ratio within each pair are printed (this machine's speed drifts from minute to
minute: a pair runs within a second or two). Peak RSS (``ru_maxrss`` of each process, the file's
mapped pages included) is printed beside the file's size. Targets (issue 18): ratio <= 1.0 for the
open and inspect pairs, peak RSS <= file size + 80 MB.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GEN_STORE = REPO.parent / "shared" / "tools" / "gen_store.py"
MIB = 1024 * 1024

ORJSON_ONLY = r"""
import gc, mmap, os, resource, sys, time, orjson
path = sys.argv[1]
gc.disable()
start, cpu = time.perf_counter(), time.process_time()
with open(path, "rb") as handle:
    buf = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    pos, size, find, loads = 0, len(buf), buf.find, orjson.loads
    while pos < size:
        end = find(b"\n", pos)
        end = size if end < 0 else end
        loads(buf[pos:end])
        pos = end + 1
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, cpu)
"""

# pitui's own typed decode of every line (records.decode_fields over Lines.batches, the reads
# of Session.open), keeping nothing: what opening costs before any record, link or report is
# made, so the rest of the open's ratio is the index's own Python work (printed as a third pair).
# With "records" it also makes the barest record per line (six fields; no link, role, usage or
# report): with --floors both run as whole processes, the floor of any index of Python objects.
FLOOR = r"""
import gc, os, resource, sys, time
import pitui.core.session  # what an open imports
from pitui.core.jsonl import Lines
from pitui.core.records import decode_fields
path, records = sys.argv[1], sys.argv[2:] == ["records"]

class Bare:
    __slots__ = ("id", "parent_id", "timestamp", "line", "offset", "length")

gc.disable()  # as Session.open pauses the collector
start, cpu = time.perf_counter(), time.process_time()
fd = os.open(path, os.O_RDONLY)
lines = Lines(fd, final=True)
next(iter(lines))  # the header (its BOM): read by iterating, as Session.open does
kept, new = [], object.__new__
for line_no, offset, batch in lines.batches():
    for line in batch:
        if not line.isascii():
            line.decode()
    try:
        decoded = list(map(decode_fields, batch))
    except ValueError:  # a line the typed decode refuses (msgspec's errors are ValueErrors)
        continue
    if records:
        for number, (line, rec) in enumerate(zip(batch, decoded), line_no):
            bare = new(Bare)
            bare.id = getattr(rec, "id", None)
            bare.parent_id = getattr(rec, "parentId", None)
            bare.timestamp = getattr(rec, "timestamp", None)
            bare.line = number
            bare.offset = offset
            bare.length = len(line)
            offset += len(line)
            kept.append(bare)
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, cpu)
"""

PITUI_OPEN = r"""
import resource, sys, time
from pitui.core.context import build_session_context
from pitui.core.session import Session
path = sys.argv[1]
start, cpu = time.perf_counter(), time.process_time()
session = Session.open(path, final=True)
branch = session.branch()
context = build_session_context(session)
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
own = resource.getrusage(resource.RUSAGE_SELF)
print(elapsed, own.ru_maxrss * 1024, cpu, len(session.entries), len(branch), len(context.messages))
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def run(code: str, path: Path) -> list[float]:
    """What ``code`` prints (its own clock, after its imports)."""
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        check=True,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=_env(),
    ).stdout
    return [float(x) for x in out.split()]


def whole_process(argv: list[str]) -> tuple[float, int, float]:
    """Wall time of a whole process (start to exit, its output read), its peak RSS and its CPU
    time (user + system: less swayed by a busy machine than the wall time)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, cwd=REPO, env=_env())
    assert proc.stdout is not None
    while proc.stdout.read(1 << 20):
        pass
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv} exited {proc.returncode}")
    return elapsed, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def _pairs(bases: Sequence[Sequence[float]], ours: Sequence[Sequence[float]]) -> dict[str, object]:
    """Wall (``[0]``) and CPU (``[2]``) times of each pair: best, median and ratios."""
    result: dict[str, object] = {}
    for clock, index in (("wall", 0), ("cpu", 2)):
        base = [b[index] for b in bases]
        own = [o[index] for o in ours]
        ratios = sorted(o / b for b, o in zip(base, own, strict=True))
        result[clock] = {
            "orjson_best_s": round(min(base), 3),
            "pitui_best_s": round(min(own), 3),
            "orjson_median_s": round(statistics.median(base), 3),
            "pitui_median_s": round(statistics.median(own), 3),
            "pair_ratios": [round(r, 2) for r in ratios],
            "pair_ratio_median": round(statistics.median(ratios), 2),
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=200, help="size of the generated session")
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this agent dir")
    parser.add_argument("--runs", type=int, default=3, help="runs of each (best and median)")
    parser.add_argument(
        "--floors",
        action="store_true",
        help="also time the decode alone and the decode with a bare record per line as whole "
        "processes, against the same orjson process",
    )
    args = parser.parse_args()
    agent = args.keep or Path(tempfile.mkdtemp(prefix="pitui-bench-core-"))
    if not (agent / "gen_store.manifest.json").exists():
        subprocess.run(
            [sys.executable, str(GEN_STORE), str(agent), "--sessions", "0",
             "--big-session-mb", str(args.mb), "-q"],
            check=True,
        )  # fmt: skip
    # pitui's bytecode written first, as an installed package has it (with PYTHONDONTWRITEBYTECODE
    # set, each run would otherwise compile every module it imports)
    compileall.compile_dir(REPO / "pitui", quiet=1)
    sessions = sorted((agent / "sessions").glob("*/*.jsonl"), key=lambda p: p.stat().st_size)
    path = sessions[-1]
    size = path.stat().st_size
    orjson_argv = [sys.executable, "-c", ORJSON_ONLY, str(path)]
    inspect_argv = [sys.executable, "-m", "pitui", "inspect", "--json", str(path)]
    bases: list[list[float]] = []
    decodes: list[list[float]] = []
    opens: list[list[float]] = []
    process_bases: list[tuple[float, int, float]] = []
    inspects: list[tuple[float, int, float]] = []
    floor_argv = [sys.executable, "-c", FLOOR, str(path)]
    decode_bases: list[tuple[float, int, float]] = []
    decode_floors: list[tuple[float, int, float]] = []
    record_bases: list[tuple[float, int, float]] = []
    record_floors: list[tuple[float, int, float]] = []
    for _ in range(args.runs):
        bases.append(run(ORJSON_ONLY, path))
        opens.append(run(PITUI_OPEN, path))
        decodes.append(run(FLOOR, path))
        process_bases.append(whole_process(orjson_argv))
        inspects.append(whole_process(inspect_argv))
        if args.floors:
            decode_bases.append(whole_process(orjson_argv))
            decode_floors.append(whole_process(floor_argv))
            record_bases.append(whole_process(orjson_argv))
            record_floors.append(whole_process([*floor_argv, "records"]))
    peak = max(max(r[1] for r in opens), max(r[1] for r in inspects))
    result = {
        "file_mb": round(size / MIB, 1),
        "entries": int(opens[0][3]),
        "branch_len": int(opens[0][4]),
        "context_messages": int(opens[0][5]),
        "runs": args.runs,
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "open_in_process": _pairs(bases, opens),
        "decode_only_in_process": _pairs(bases, decodes),
        "inspect_json_whole_process": _pairs(process_bases, inspects),
        **(
            {
                "decode_only_whole_process": _pairs(decode_bases, decode_floors),
                "decode_and_bare_records_whole_process": _pairs(record_bases, record_floors),
            }
            if args.floors
            else {}
        ),
        "orjson_peak_rss_mb": round(max(r[1] for r in bases) / MIB, 1),
        "open_peak_rss_mb": round(max(r[1] for r in opens) / MIB, 1),
        "inspect_peak_rss_mb": round(max(r[1] for r in inspects) / MIB, 1),
        "peak_rss_minus_file_mb": round((peak - size) / MIB, 1),
        "targets": "pair ratios <= 1.0; peak RSS minus the file <= 80 MB",
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
