"""Run ``pitui`` with a memory probe: on SIGUSR1 it writes what holds the memory.

Run by hand (``bench_soak.py --probe`` starts pitui this way):
    PITUI_PROBE_DIR=/tmp/probe python benchmarks/memory_probe.py --all

Each ``kill -USR1 PID`` writes ``N.txt`` into ``$PITUI_PROBE_DIR``: RSS, the C heap as glibc
counts it (``mallinfo2``: in use vs. free but kept), Python's allocated blocks, the number of
objects per type the garbage collector tracks, the threads; and, with ``PITUI_PROBE_TRACE=1``
(tracemalloc from the start, which slows pitui down), the lines that allocated the most since the
previous dump. The point is to tell a Python leak (objects or blocks grow) from a native one (the
C heap's in-use part grows) from fragmentation (its free part grows).
"""

from __future__ import annotations

import collections
import ctypes
import gc
import os
import signal
import sys
import threading
import tracemalloc
from pathlib import Path
from types import FrameType

_MALLINFO2 = (
    "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
    "fordblks", "keepcost",
)  # fmt: skip


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in _MALLINFO2]


def _mallinfo() -> dict[str, int]:
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = MallInfo2
        info = libc.mallinfo2()
    except (OSError, AttributeError):
        return {}
    return {name: getattr(info, name) for name in _MALLINFO2}


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def chain_to_root(type_name: str, depth: int = 14) -> list[str]:
    """What keeps the oldest live object of ``type_name``: one chain of referrers towards a
    module, a frame or a thread (the first referrer that is not this probe's own list)."""
    found = [obj for obj in gc.get_objects() if type(obj).__qualname__ == type_name]
    lines = [f"-- what holds the first of {len(found)} {type_name}:"]
    if not found:
        return lines
    target: object = found[0]
    seen = {id(found), id(target)}
    del found
    for _ in range(depth):
        referrers = [
            ref for ref in gc.get_referrers(target) if id(ref) not in seen and ref is not lines
        ]
        if not referrers:
            lines.append("   (no more referrers)")
            break
        target = referrers[0]
        seen.add(id(target))
        text = (
            repr(target)[:160] if not isinstance(target, dict) else f"dict keys {list(target)[:12]}"
        )
        lines.append(f"   <- {type(target).__qualname__}: {text}")
    return lines


class Probe:
    def __init__(self, folder: Path, trace: bool) -> None:
        self.folder = folder
        self.trace = trace
        self.count = 0
        self.previous: tracemalloc.Snapshot | None = None
        self.chains = os.environ.get("PITUI_PROBE_CHAINS", "").split()
        folder.mkdir(parents=True, exist_ok=True)
        if trace:
            tracemalloc.start(12)

    def dump(self, _signum: int, _frame: FrameType | None) -> None:
        self.count += 1
        lines = [f"rss_kb {_rss_kb()}", f"blocks {sys.getallocatedblocks()}"]
        lines += [f"malloc_{key} {value}" for key, value in _mallinfo().items()]
        lines.append(f"threads {[thread.name for thread in threading.enumerate()]}")
        memory = sys.modules.get("pitui.core.memory")
        if memory is not None:
            lines.append(f"malloc_trims {memory.trim_stats}")
        lines.append(f"gc_objects_before_collect {len(gc.get_objects())}")
        lines.append(f"gc_collected {gc.collect()} garbage {len(gc.garbage)}")
        lines.append(f"gc_stats {gc.get_stats()}")
        counts = collections.Counter(type(obj).__qualname__ for obj in gc.get_objects())
        lines.append(f"gc_objects {sum(counts.values())}")
        lines += [f"  {count:9d} {name}" for name, count in counts.most_common(40)]
        for name in self.chains:
            lines += chain_to_root(name)
        if self.trace:
            snapshot = tracemalloc.take_snapshot().filter_traces(
                [tracemalloc.Filter(False, tracemalloc.__file__)]
            )
            current, peak = tracemalloc.get_traced_memory()
            lines.append(f"traced {current} peak {peak}")
            if self.previous is not None:
                lines.append("-- grew since the previous dump (traceback):")
                for stat in snapshot.compare_to(self.previous, "traceback")[:15]:
                    lines.append(f"{stat.size_diff:+10d} B {stat.count_diff:+7d} blocks")
                    lines += ["      " + frame for frame in stat.traceback.format()[-8:]]
            lines.append("-- largest now (lineno):")
            lines += [str(stat) for stat in snapshot.statistics("lineno")[:25]]
            self.previous = snapshot
        (self.folder / f"{self.count}.txt").write_text("\n".join(lines) + "\n")


def main() -> None:
    folder = Path(os.environ.get("PITUI_PROBE_DIR", "pitui-probe"))
    probe = Probe(folder, os.environ.get("PITUI_PROBE_TRACE") == "1")
    signal.signal(signal.SIGUSR1, probe.dump)
    from pitui.cli import entry_point

    sys.argv[0] = "pitui"
    entry_point()


if __name__ == "__main__":
    main()
