"""The branch diff on a big session: only the two paths are read.

Run by hand (not in CI), on one session file (read only):

    python benchmarks/bench_diff.py /work/benchdata/big200/sessions/*/*.jsonl [--runs 5]

The file is opened once (not timed). Then, each ``--runs`` times (best and median printed):

- ``limit``: reading every entry of the file once (``Session.raw``), what a diff that read the
  whole session would pay at least; measured in the same run;
- ``siblings``: two branch ends that part at the deepest branch point of the leaf's path (deep
  shared part, short sides): the common case, and the one a deep session must not slow;
- ``root-leaf``: the root against the leaf, the whole active branch as one side (the worst case
  the screen can be asked for);
- ``same``: the leaf against itself (no side at all).

Each is printed with its ratio to ``limit``. The machine may be busy with other work.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pitui.core.diff import branch_diff
from pitui.core.session import EntryMeta, Session


def _timed(work: Callable[[], object], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def _end(meta: EntryMeta) -> EntryMeta:
    while meta.children:
        meta = meta.children[0]
    return meta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    session = Session.open(args.path, final=True)
    leaf = session.leaf
    assert leaf is not None, "an empty session"
    branch = session.path_to(leaf)
    forks = [meta for meta in branch if meta.children and len(meta.children) > 1]
    assert forks, "the leaf's path has no branch point"
    fork = forks[-1]
    a, b = _end(fork.children[0]), _end(fork.children[1])  # type: ignore[index]
    print(f"{args.path}: {len(session.entries):,} entries, leaf {len(branch):,} deep")
    limit = _timed(lambda: [session.raw(meta) for meta in session.entries], 1)
    print(f"limit (read every entry once): {limit[0] * 1000:,.0f} ms")
    cases = {"siblings": (a, b), "root-leaf": (branch[0], leaf), "same": (leaf, leaf)}
    for name, (x, y) in cases.items():
        diff = branch_diff(session, x, y)
        best, median = _timed(partial(branch_diff, session, x, y), args.runs)
        print(
            f"{name}: shared {diff.shared:,}, sides {len(diff.a.entries):,}/"
            f"{len(diff.b.entries):,}: best {best * 1000:,.1f} ms, median {median * 1000:,.1f} ms"
            f" ({best / limit[0]:.3f} of the limit)"
        )


if __name__ == "__main__":
    main()
