"""Typing in the picker as a person sees it: the first frame with rows, and each key's rows.

Run by hand (not in CI), under the bench lock:
    flock /work/coord/bench.lock python benchmarks/bench_keys.py [--stores 3k,10k] [--repeats 2]
        [--compare /work/main]

``pitui --all`` runs in tmux at 160x45 on the pre-generated stores (``/work/benchdata/store3k``
and ``store10k``, or ``--store DIR``: only read, never written; the index lives in a cache of
this run, warmed first by a ``pitui list --all --search`` as a previous run would have left it),
the screen read every 10 ms. In the same run, an empty Textual app (an ``Input`` holding ``"> "``)
gets the same treatment: the floor of any Textual app in this terminal, on this machine, now.

- **First frame**: from the start of the process to the first screen with rows (a selected row
  and the ``(1/N)`` counter), and to the whole listing (``(1/total)``), next to the empty app's
  first frame.
- **Keys**: for three query kinds (fuzzy words, a ``"phrase"`` typed between its quotes, a
  ``re:`` pattern) a text is typed one key at a time and then erased one backspace at a time.
  A key's time runs from ``tmux send-keys`` to the screen showing the rows of THAT query: the
  list and its ``(n/N)`` counter exactly as pitui draws them once it has settled on that query
  (taken in a first, untimed pass). A key whose rows look the same as the previous key's is left
  out (its time would be 0). The empty app gets the same keys; its time is the echo of each key.
- **Another checkout** (``--compare DIR``): its first frames between this checkout's, and its
  pitui types the same keys in the same run, for a before/after at the same load. The programs
  take turns pass by pass (each kind: an untimed pass on each, then a timed pass of each
  program, ``--repeats`` times): a change of load on the shared machine falls on all of them,
  not on one kind of one program.
- **Burst**: the whole text sent at once (faster than any result comes): the time until its
  rows show, and how many other queries' lists were drawn on the way (0 when only the latest
  query is drawn).

Targets (issue 22): first frame with rows at most +0.15 s over the empty app on 3,000 sessions,
+0.25 s on 10,000; per key (median) at most +50 ms over the empty app's echo on 3,000, +100 ms
on 10,000. The machine is shared (2 cores): the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tmux_term as term  # (the benchmarks' shared tmux helpers, beside this file)

BENCHDATA = Path("/work/benchdata")
STORES = {"3k": BENCHDATA / "store3k", "10k": BENCHDATA / "store10k"}
# (first frame over the empty app's, per-key median over the empty app's), in seconds
TARGETS = {3000: (0.15, 0.050), 10000: (0.25, 0.100)}
PREVIEW_EDGE = "▏"  # the preview's left edge: the list is what lies left of it
SETTLE = 0.6  # a screen unchanged this long has settled
CHANGE_WAIT = 4.0  # a key's screen that has not changed after this long shows the same rows
KEY_TIMEOUT = 15.0
GAP = 0.25  # pause after a key's rows show, before the next key (a person typing ~4 keys/s)


@dataclass(frozen=True)
class Kind:
    name: str
    prefix: tuple[tuple[str, bool], ...]  # keys typed (untimed) before the text: (key, literal)
    text: str  # typed one key at a time, then erased


KINDS = (
    Kind("fuzzy", (), "cache lock"),
    Kind("phrase", (('""', True), ("Left", False)), "cache lock"),  # typed between the quotes
    Kind("regex", (("re:", True),), "cache.?lock"),
)


# ------------------------------------------------------------------------------ screens
def list_part(screen: str) -> str:
    """pitui's list and its counter: the lines below the search row, left of the preview."""
    lines = screen.splitlines()
    search_row = next((i for i, line in enumerate(lines) if line.startswith(" > ")), 0)
    body = lines[search_row + 1 : -1]  # (the last line is the footer)
    return "\n".join(line.split(PREVIEW_EDGE, 1)[0].rstrip() for line in body)


def whole(screen: str) -> str:
    return screen


def settle(
    session: str,
    signature: Callable[[str], str],
    before: str | None,
    change_wait: float = CHANGE_WAIT,
) -> str:
    """The screen once it settles: changed from ``before`` (or not within ``change_wait``),
    then unchanged for SETTLE seconds."""
    start = time.perf_counter()
    current = signature(term.pane(session))
    while before is not None and current == before:
        if time.perf_counter() - start > change_wait:
            break
        time.sleep(term.POLL)
        current = signature(term.pane(session))
    stable_since = time.perf_counter()
    while time.perf_counter() - stable_since < SETTLE:
        time.sleep(term.POLL)
        seen = signature(term.pane(session))
        if seen != current:
            current, stable_since = seen, time.perf_counter()
    return current


def shows(signature: Callable[[str], str], wanted: str, screen: str) -> bool:
    return signature(screen) == wanted


def clear(session: str) -> None:
    """Empty the search (with the cursor at its end: Ctrl+U deletes what is left of it)."""
    term.send(session, "End")
    term.send(session, "C-u")


def send_step(session: str, step: tuple[str, bool]) -> None:
    key, literal = step
    term.send(session, key, literal=literal)


# --------------------------------------------------------------------------------- keys
@dataclass
class KindResult:
    times: list[float]  # seconds per measured key
    left_out: int  # keys whose rows looked like the previous key's
    burst: float  # seconds from sending the whole text to its rows
    burst_others: int  # other queries' lists drawn during the burst
    first_use: float  # seconds from the text (all at once) to its settled screen, the first time


@dataclass
class Typed:
    """A kind typed once, untimed, on one program: the screens its keys settle on."""

    steps: list[tuple[str, bool]]
    before: str  # the screen with the search empty
    start_screen: str  # after the kind's prefix
    references: list[str]  # the screen each step settles on
    measured: list[int]  # the steps whose screen differs from the one before
    first_use: float


def type_once(session: str, signature: Callable[[str], str], kind: Kind) -> Typed:
    shown = signature(term.pane(session))
    clear(session)
    before = settle(session, signature, shown)  # (unchanged after CHANGE_WAIT: already clear)
    for step in kind.prefix:
        send_step(session, step)
    start_screen = settle(session, signature, before if kind.prefix else None)
    # the first query of a kind can prepare what later ones reuse (texts in the form it
    # searches): timed apart, once, so that the keys below see the steady state
    begin = time.perf_counter()
    term.send(session, kind.text, literal=True)
    settled = settle(session, signature, start_screen, change_wait=120.0)
    first_use = time.perf_counter() - begin - SETTLE
    for _ in kind.text:
        term.send(session, "BSpace")
    if settle(session, signature, settled, change_wait=120.0) != start_screen:
        print(f"WARNING {kind.name}: erasing the text did not give the first screen back")
    steps = [(ch, True) for ch in kind.text] + [("BSpace", False)] * len(kind.text)
    references: list[str] = []
    previous = start_screen
    for step in steps:  # untimed: the rows each query settles on
        send_step(session, step)
        previous = settle(session, signature, previous)
        references.append(previous)
    if references[-1] != start_screen:
        print(f"WARNING {kind.name}: the reference pass ended on another screen")
    measured = [
        i for i, ref in enumerate(references) if ref != (references[i - 1] if i else start_screen)
    ]
    return Typed(steps, before, start_screen, references, measured, first_use)


def timed_pass(session: str, signature: Callable[[str], str], typed: Typed) -> list[float]:
    """Each key's time to its screen, the keys left out (see the module's docstring) dropped."""
    times: list[float] = []
    for i, step in enumerate(typed.steps):
        wanted = typed.references[i]
        begin = time.perf_counter()
        send_step(session, step)
        took = term.wait_for(session, partial(shows, signature, wanted), KEY_TIMEOUT, begin)
        if i in typed.measured:
            times.append(took)
        time.sleep(GAP)
    return times


def burst(
    session: str, signature: Callable[[str], str], kind: Kind, typed: Typed
) -> tuple[float, int]:
    """The whole text at once: seconds to its rows, and how many other lists showed first."""
    references = typed.references
    final = references[len(kind.text) - 1]
    seen: set[str] = set()
    begin = time.perf_counter()
    term.send(session, kind.text, literal=True)
    took = float("nan")
    while time.perf_counter() - begin < KEY_TIMEOUT:
        screen = signature(term.pane(session))
        if screen == final:
            took = time.perf_counter() - begin
            break
        seen.add(screen)
        time.sleep(term.POLL)
    others = len(seen & set(references[: len(kind.text) - 1]) - {final})
    clear(session)
    settle(session, signature, typed.before)
    return took, others


def measure_kinds(
    apps: list[str], signature_of: Callable[[str], Callable[[str], str]], repeats: int
) -> dict[str, dict[str, KindResult]]:
    """Every kind on every program (a tmux session each, all running): for each kind, each
    program types it once untimed, then the timed passes take turns (a pass of each program,
    ``repeats`` times), then the bursts: a change of load during a run falls on all of them."""
    results: dict[str, dict[str, KindResult]] = {app: {} for app in apps}
    for kind in KINDS:
        typed = {app: type_once(f"bench-keys-{app}", signature_of(app), kind) for app in apps}
        times: dict[str, list[float]] = {app: [] for app in apps}
        for _ in range(repeats):
            for app in apps:
                times[app] += timed_pass(f"bench-keys-{app}", signature_of(app), typed[app])
        for app in apps:
            took, others = burst(f"bench-keys-{app}", signature_of(app), kind, typed[app])
            left_out = len(typed[app].steps) - len(typed[app].measured)
            results[app][kind.name] = KindResult(
                times[app], left_out, took, others, typed[app].first_use
            )
    return results


# -------------------------------------------------------------------------- first frame
def first_frame(command: str, env: dict[str, str], shown: Callable[[str], bool]) -> float:
    session = "bench-keys-first"
    begin = time.perf_counter()
    term.start(session, command, env)
    try:
        return term.wait_for(session, shown, 120.0, begin)
    finally:
        term.stop(session)


def pitui_first_frames(env: dict[str, str], total: int) -> tuple[float, float]:
    """Seconds to the first screen with rows, and to the whole listing."""
    session = "bench-keys-first"
    begin = time.perf_counter()
    term.start(session, f"{sys.executable} -m pitui --all", env)
    try:
        rows = term.wait_for(session, has_rows, 120.0, begin)
        everything = term.wait_for(session, lambda s: f"(1/{total})" in s, 300.0, begin)
        return rows, everything
    finally:
        term.stop(session)


def has_rows(screen: str) -> bool:
    part = list_part(screen)
    return "›" in part and "(1/" in part


# --------------------------------------------------------------------------------- runs
def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def ms(seconds: float) -> str:
    return f"{seconds * 1000:6.0f}" if not math.isnan(seconds) else "   nan"


def key_figures(result: KindResult, floor: KindResult) -> dict[str, float]:
    """What the JSON report says of one checkout's keys of one kind, next to the empty app's."""
    return {
        "median_ms": round(median(result.times) * 1000, 1),
        "max_ms": round(maximum(result.times) * 1000, 1),
        "over_empty_ms": round((median(result.times) - median(floor.times)) * 1000, 1),
        "burst_other_lists": result.burst_others,
        "first_use_ms": round(result.first_use * 1000, 1),
    }


def median(values: list[float]) -> float:
    finite = [v for v in values if not math.isnan(v)]
    return statistics.median(finite) if finite else float("nan")


def maximum(values: list[float]) -> float:
    return max(values) if values else float("nan")


def store_state(agent: Path) -> tuple[int, int]:
    """(files, newest mtime) of the store's sessions: the benchmark must not change them."""
    files = list((agent / "sessions").glob("*/*.jsonl"))
    return len(files), max((f.stat().st_mtime_ns for f in files), default=0)


def bench_store(
    name: str, agent: Path, cache: Path | None, runs: int, repeats: int, compare: Path | None
) -> dict:
    """``compare``: another checkout whose pitui types the same keys in the same run."""
    total, _ = before_state = store_state(agent)
    work = Path(tempfile.mkdtemp(prefix="pitui-bench-keys-"))
    cache_dir = cache or work / "cache"
    env = term.app_env(agent, cache_dir)
    try:
        print(f"\n== {name}: {total:,} sessions ({agent}); warming the index … (load {load()})")
        term.warm_index(env)
        empty_cmd = term.empty_app_command()
        pitui_cmd = f"{sys.executable} -m pitui --all"
        other_env = {**env, "PYTHONPATH": str(compare)} if compare is not None else None
        first_frame(empty_cmd, env, lambda s: "> " in s)  # bytecode, page cache
        pitui_first_frames(env, total)
        if other_env is not None:
            pitui_first_frames(other_env, total)
        empty_first: list[float] = []
        rows_first: list[float] = []
        all_first: list[float] = []
        other_first: list[float] = []
        for _ in range(runs):  # interleaved: all see the same load
            empty_first.append(first_frame(empty_cmd, env, lambda s: "> " in s))
            rows, everything = pitui_first_frames(env, total)
            rows_first.append(rows)
            all_first.append(everything)
            if other_env is not None:
                other_first.append(pitui_first_frames(other_env, total)[0])
        print(f"first frame (load {load()}), s:")
        print(f"  empty app      {' '.join(f'{t:.3f}' for t in empty_first)}")
        print(f"  pitui rows     {' '.join(f'{t:.3f}' for t in rows_first)}")
        print(f"  pitui all rows {' '.join(f'{t:.3f}' for t in all_first)}")
        if other_env is not None:
            print(f"  other rows     {' '.join(f'{t:.3f}' for t in other_first)}")

        # every program runs in its own terminal at once; they take turns (measure_kinds)
        apps = {"empty": (empty_cmd, env), "pitui": (pitui_cmd, env)}
        if other_env is not None:
            apps["other"] = (pitui_cmd, other_env)
        try:
            for app, (command, app_env) in apps.items():
                session = f"bench-keys-{app}"
                term.start(session, command, app_env)
                if app == "empty":
                    term.wait_for_text(session, "> ")
                    time.sleep(0.5)
                    term.send(session, "End")
                    continue
                term.wait_for_text(session, f"(1/{total})", timeout=300)
                # the first search reads the texts from the index: once, before the keys timed
                term.send(session, "re:^$", literal=True)
                term.wait_for_text(session, "No sessions found", timeout=300)
            results = measure_kinds(
                list(apps), lambda app: whole if app == "empty" else list_part, repeats
            )
        finally:
            for app in apps:
                term.stop(f"bench-keys-{app}")
        if store_state(agent) != before_state:
            print(f"WARNING: the store {agent} changed during the run")

        frame_target, key_target = TARGETS[min(TARGETS, key=lambda n: abs(n - total))]
        first_delta = median(rows_first) - median(empty_first)
        print(f"keys (load {load()}), ms: median / max, pitui vs empty app's echo")
        report: dict = {
            "store": name,
            "sessions": total,
            "load_average": load(),
            "empty_first_frame_s": round(median(empty_first), 3),
            "first_rows_s": round(median(rows_first), 3),
            "all_rows_s": round(median(all_first), 3),
            "first_rows_over_empty_s": round(first_delta, 3),
            "first_frame_target_s": frame_target,
            "keys": {},
        }
        for kind in KINDS:
            mine, floor = results["pitui"][kind.name], results["empty"][kind.name]
            delta = median(mine.times) - median(floor.times)
            print(
                f"  {kind.name:7} pitui {ms(median(mine.times))} / {ms(maximum(mine.times))}"
                f"   empty {ms(median(floor.times))} / {ms(maximum(floor.times))}"
                f"   over {ms(delta)} (target {key_target * 1000:.0f})"
                f"   [{len(mine.times)} keys, {mine.left_out} left out]"
                f"   burst {ms(mine.burst)} vs {ms(floor.burst)}, {mine.burst_others} other lists"
                f"   first use {ms(mine.first_use)}"
            )
            report["keys"][kind.name] = {
                **key_figures(mine, floor),
                "empty_median_ms": round(median(floor.times) * 1000, 1),
                "empty_max_ms": round(maximum(floor.times) * 1000, 1),
                "target_ms": key_target * 1000,
                "met": delta <= key_target,
                "keys": len(mine.times),
                "left_out": mine.left_out,
                "burst_ms": round(mine.burst * 1000, 1),
                "burst_empty_ms": round(floor.burst * 1000, 1),
            }
        if compare is not None:
            report["keys_other"] = {"checkout": str(compare)}
            print(f"  the other checkout ({compare}), same run:")
            for kind in KINDS:
                theirs, floor = results["other"][kind.name], results["empty"][kind.name]
                delta = median(theirs.times) - median(floor.times)
                print(
                    f"  {kind.name:7} other {ms(median(theirs.times))}"
                    f" / {ms(maximum(theirs.times))}"
                    f"   over {ms(delta)}   [{len(theirs.times)} keys, {theirs.left_out} left out]"
                    f"   burst {ms(theirs.burst)}, {theirs.burst_others} other lists"
                    f"   first use {ms(theirs.first_use)}"
                )
                report["keys_other"][kind.name] = key_figures(theirs, floor)
        print(
            f"  first frame with rows: {first_delta:+.3f} s over the empty app"
            f" (target +{frame_target:.2f}: {'met' if first_delta <= frame_target else 'NOT met'})"
        )
        report["first_frame_met"] = first_delta <= frame_target
        if other_first:
            other_delta = median(other_first) - median(empty_first)
            print(f"  the other checkout's first frame with rows: {other_delta:+.3f} s, same run")
            report["keys_other"]["first_rows_over_empty_s"] = round(other_delta, 3)
        return report
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", default="3k,10k", help="of: " + ", ".join(STORES))
    parser.add_argument("--store", type=Path, help="another agent dir (instead of --stores)")
    parser.add_argument("--cache", type=Path, help="reuse this XDG cache dir (one store only)")
    parser.add_argument("--runs", type=int, default=3, help="first-frame runs (median)")
    parser.add_argument("--repeats", type=int, default=2, help="timed passes over the keys")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument(
        "--compare", type=Path, help="another checkout (e.g. /work/main): its keys in the same run"
    )
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("bench_keys needs tmux")
    chosen = (
        [(args.store.name, args.store)]
        if args.store
        else [(name, STORES[name]) for name in args.stores.split(",")]
    )
    if args.cache is not None and len(chosen) > 1:
        raise SystemExit("--cache goes with one store")
    print(f"{os.cpu_count()} CPUs; load average {load()}; {term.SIZE[0]}x{term.SIZE[1]}")
    reports = [
        bench_store(n, agent, args.cache, args.runs, args.repeats, args.compare)
        for n, agent in chosen
    ]
    if args.json is not None:
        args.json.write_text(json.dumps(reports, indent=2) + "\n")


if __name__ == "__main__":
    main()
