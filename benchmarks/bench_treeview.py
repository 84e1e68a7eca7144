"""Time the tree selector model (pitui.core.treeview) on big sessions. Run by hand, not in CI:

    python benchmarks/bench_treeview.py [SESSION.jsonl ...] [--chain N] [--window 40]

Without arguments it uses the long-5000 fixture and, if present, the 116k-entry session that
``../shared/tools/gen_store.py /tmp/big200 --sessions 0 --big-session-mb 200`` writes, plus a
synthetic chain of ``--chain`` entries (one branch at the end) to show the deep-chain worst case.
For each: core open, building the rows, drawing one window, each filter change, page moves,
fold/segment jumps, computing every searchable text, and a search.
"""

from __future__ import annotations

import argparse
import gc
import glob
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pitui.core.session import Session  # noqa: E402
from pitui.core.treeview import FILTER_MODES, TreeView  # noqa: E402

SHARED = REPO.parent / "shared"


def _timed(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def _draw(view: TreeView, height: int) -> None:
    start = view.window_start(height)
    for index in range(start, min(view.count, start + height)):
        view.row(index).plain()


def _chain_session(length: int) -> bytes:
    header = {"type": "session", "version": 3, "id": "bench-chain", "timestamp":
              "2025-01-01T00:00:00.000Z", "cwd": "/tmp"}  # fmt: skip
    lines = [orjson.dumps(header)]
    parent = None
    for i in range(length):
        eid = f"e{i:07d}"
        role = "user" if i % 2 == 0 else "assistant"
        content: Any = f"message {i}" if role == "user" else [{"type": "text", "text": f"ok {i}"}]
        message: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant":
            message["stopReason"] = "stop"
        lines.append(
            orjson.dumps(
                {
                    "type": "message",
                    "id": eid,
                    "parentId": parent,
                    "timestamp": "2025-01-01T00:00:00.000Z",
                    "message": message,
                }
            )
        )
        parent = eid
    # a branch at the very end: the leaf is the last line, its sibling before it
    side = {"type": "message", "id": "side", "parentId": f"e{length - 2:07d}",
            "timestamp": "2025-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": "side"}}  # fmt: skip
    lines.insert(-1, orjson.dumps(side))
    return b"\n".join(lines) + b"\n"


def bench(name: str, opener: Callable[[], Session], window: int) -> None:
    gc.collect()
    start = time.perf_counter()
    session = opener()
    opened = time.perf_counter() - start
    print(f"\n{name}: {len(session.entries):,} entries")
    print(f"  core open                    {_ms(opened)}")
    holder: list[TreeView] = []
    build = _timed(lambda: holder.append(TreeView(session)))
    view = holder[0]
    print(f"  TreeView (rows + filter)     {_ms(build)}   ({view.total_rows:,} rows)")
    print(f"  first window ({window} rows)      {_ms(_timed(lambda: _draw(view, window)))}")
    print(f"  window again (cached texts)  {_ms(_timed(lambda: _draw(view, window)))}")
    for mode in (*FILTER_MODES[1:], "default"):
        spent = _timed(lambda m=mode: view.set_filter(m))  # type: ignore[misc]
        drawn = _timed(lambda: _draw(view, window))
        print(f"  filter -> {mode:<13}       {_ms(spent)}   + draw {_ms(drawn)}   "
              f"({view.count:,} visible)")  # fmt: skip

    def page_and_draw() -> None:
        view.page_up(window)
        _draw(view, window)

    pages = [_timed(page_and_draw) for _ in range(20)]
    print(f"  page up + draw (median/max)  {_ms(statistics.median(pages))} / {_ms(max(pages))}")
    view.select_index(view.count - 1)
    ups = [_timed(view.fold_or_up) for _ in range(5)]
    print(f"  fold-or-up (max of 5)        {_ms(max(ups))}")
    view.select_index(0)
    view.clear_folds()
    downs = [_timed(view.unfold_or_down) for _ in range(5)]
    print(f"  unfold-or-down (max of 5)    {_ms(max(downs))}")
    view.select_index(0)
    index_box: list[Any] = []
    compute = _timed(lambda: index_box.append(view.compute_search_texts()))
    print(f"  compute all search texts     {_ms(compute)}   (meant for a worker thread)")
    install = _timed(lambda: view.set_search_texts(index_box[0]))
    print(f"  install search texts         {_ms(install)}")
    first_query = _timed(lambda: view.set_query("e"))
    more = _timed(lambda: view.set_query("er"))
    print(f"  query 'e' (first, aligns)    {_ms(first_query)}   ({view.count:,} visible)")
    print(f"  query 'er'                   {_ms(more)}   ({view.count:,} visible)")
    print(f"  clear query                  {_ms(_timed(view.clear_query))}")
    session.close()


def _opener(path: str) -> Callable[[], Session]:
    return lambda: Session.open(path, final=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sessions", nargs="*", help="session files (default: see above)")
    parser.add_argument("--chain", type=int, default=100_000, help="synthetic chain length")
    parser.add_argument("--window", type=int, default=40, help="rows drawn per frame")
    args = parser.parse_args()
    start = time.perf_counter()
    for _ in range(1_000_000):
        pass
    # scale every number below by this: ~10-20 ms on a typical developer machine
    print(f"machine: 1M empty loop iterations take {_ms(time.perf_counter() - start)}")
    paths = list(args.sessions)
    if not paths:
        long = glob.glob(str(SHARED / "fixtures/pi-written/agent/sessions/*/*0195c63a*.jsonl"))
        paths.extend(long)
        paths.extend(glob.glob("/tmp/big200/sessions/*/*.jsonl"))
    for path in paths:
        bench(Path(path).name, _opener(path), args.window)
    if args.chain:
        data = _chain_session(args.chain)
        bench(f"synthetic chain of {args.chain:,}", lambda: Session.from_bytes(data), args.window)


if __name__ == "__main__":
    main()
