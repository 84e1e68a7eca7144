"""Pruning a big session (issue 23 §1). Run by hand, not in CI:

    flock /work/coord/bench.lock python benchmarks/bench_prune.py [SESSION.jsonl] [--rounds 3]

Without an argument it takes the biggest session under /work/benchdata/big200 (or /tmp/big200).
The file is copied into a temp dir first (the source is never written). Each round, on a fresh
copy, it times:

- the limit, measured in the same run: ``Session.open`` of the file (a prune reads the file
  again after the rewrite, so it cannot cost less than one open) plus ``shutil.copyfile`` of it
  (the rewrite writes the whole file once);
- ``plan_stale`` (every branch with no label, ended 0 days ago: all of them) and ``plan_prune``
  of one branch, on the open index;
- ``actions.prune`` of that branch: refresh, guards, plan, the original to the trash (a hard
  link), the atomic rewrite, the re-read and its check;
- ``restore_pruned``: the original back.

Prints each median and prune / limit. Target: prune <= 1.5 x (open + copy).
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pitui.core import actions, prune  # noqa: E402
from pitui.core.session import Session  # noqa: E402


def default_session() -> str:
    for pattern in ("/work/benchdata/big200/sessions/*/*.jsonl", "/tmp/big200/sessions/*/*.jsonl"):
        found = glob.glob(pattern)
        if found:
            return max(found, key=os.path.getsize)
    raise SystemExit("no big session found: pass a SESSION.jsonl")


def timed(work: object) -> float:
    start = time.perf_counter()
    work()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("session", nargs="?", default=None)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    source = args.session or default_session()
    work = Path(tempfile.mkdtemp(prefix="bench-prune-"))
    os.environ["XDG_DATA_HOME"] = str(work / "data")  # the trash and the journal: private
    from send2trash import plat_other

    plat_other.XDG_DATA_HOME = os.fsencode(work / "data")
    plat_other.HOMETRASH_B = os.fsencode(work / "data" / "Trash")
    plat_other.HOMETRASH = str(work / "data" / "Trash")
    path = work / "s.jsonl"
    size = os.path.getsize(source)
    print(f"{source}: {size / 2**20:.0f} MiB, copied to {work}")
    limits, stales, plans, prunes, restores = [], [], [], [], []
    try:
        for _ in range(args.rounds):
            shutil.copyfile(source, path)
            past = time.time() - 3600
            os.utime(path, (past, past))
            copy = timed(lambda: shutil.copyfile(path, work / "copy.jsonl"))
            os.unlink(work / "copy.jsonl")
            start = time.perf_counter()
            session = Session.open(path)
            opened = time.perf_counter() - start
            limits.append(opened + copy)
            start = time.perf_counter()
            stale = prune.plan_stale(session, 0, now=2e9)
            stales.append(time.perf_counter() - start)
            if not stale.pruned:
                raise SystemExit("the session has no branch that can be pruned")
            top = max(stale.pruned, key=lambda b: b.entries).top.uid
            start = time.perf_counter()
            prune.plan_prune(session, [top])
            plans.append(time.perf_counter() - start)
            start = time.perf_counter()
            done = actions.prune(session, [top])
            prunes.append(time.perf_counter() - start)
            restores.append(timed(lambda: actions.restore_pruned(str(path))))
            session.close()
        print(
            f"branch {top}: {len(done.plan.entries)} entries, {done.plan.bytes_saved:,} bytes; "
            f"stale branches: {len(stale.pruned)} can go, {len(stale.refused)} stay"
        )
        for name, values in (
            ("limit (open + copy)", limits),
            ("plan_stale (all branches)", stales),
            ("plan_prune (one branch)", plans),
            ("prune (write + re-read)", prunes),
            ("restore_pruned", restores),
        ):
            print(f"  {name:<28} median {statistics.median(values):7.3f} s  {values}")
        ratio = statistics.median(prunes) / statistics.median(limits)
        print(f"prune / limit = {ratio:.2f} (target <= 1.5; the machine is shared and noisy)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
