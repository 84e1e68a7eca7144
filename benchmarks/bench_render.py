"""Time the built-in renderers on the 200 visible messages of a long session.

Run by hand: ``python benchmarks/bench_render.py [SESSION.jsonl] [--width 100] [--height 50]``.

The messages are the last 200 of the session's built context (what the preview pane shows), by
default from the ``long-5000`` fixture, or from ``/tmp/big200`` when that exists (a session file,
or a folder holding one). Each message is drawn through the default registry (renderer call,
the registry's checks, and the drawing into lines at the given width), in order, the way a
scrolling view would fill screens. Messages are grouped into screenfuls of ``--height`` lines;
the first screenful pays for warming up (Pygments lexers, Markdown parser), the rest show the
steady state (``--warm-up`` prepares the common Pygments lexers first, as the app can do in a
worker at start-up). Target: at most 50 ms per screenful after the first. Times are wall clock, with
CPU time beside them (the two differ on a busy machine).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pitui.core.context import build_session_context
from pitui.core.session import Session
from pitui.render import RenderContext, default_registry, tool_calls_by_id
from pitui.render.builtin import message_entry
from pitui.render.parts import COMMON_LEXERS, warm_up

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
LONG = "pi-written/agent/sessions/--home-alice-code-pi-tools--"
TARGET_MS = 50.0


def default_session() -> Path:
    big = Path("/tmp/big200")
    if big.is_file():
        return big
    if big.is_dir():
        found = sorted(big.glob("**/*.jsonl"))
        if found:
            return found[0]
    folder = SHARED / "fixtures" / LONG
    # the long-5000 fixture is the largest session of that folder
    return max(folder.glob("*.jsonl"), key=lambda path: path.stat().st_size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("session", nargs="?", type=Path, default=None)
    parser.add_argument("--width", type=int, default=100)
    parser.add_argument("--height", type=int, default=50, help="lines per screenful")
    parser.add_argument("--count", type=int, default=200, help="messages drawn")
    parser.add_argument("--slowest", type=int, default=0, help="list the N slowest messages")
    parser.add_argument(
        "--warm-up", action="store_true", help="prepare the common lexers first (as the app may)"
    )
    args = parser.parse_args()

    path: Path = args.session or default_session()
    session = Session.open(path)
    context = build_session_context(session)
    messages: list[dict[str, Any]] = context.messages[-args.count :]
    calls = tool_calls_by_id(context.messages)
    print(f"{path.name}: {len(session.entries):,} entries, {len(context.messages):,} context "
          f"messages; drawing the last {len(messages)} at width {args.width}")  # fmt: skip

    registry = default_registry()
    if args.warm_up:
        start = time.perf_counter()
        warm_up()
        print(
            f"warm-up of {len(COMMON_LEXERS)} lexers: {(time.perf_counter() - start) * 1000:.0f} ms"
        )
    console = Console(width=args.width, file=io.StringIO(), color_system="truecolor")
    options = console.options
    base = RenderContext(width=args.width, session=session)

    # (wall seconds, cpu seconds, lines) per message, in order
    timings: list[tuple[float, float, int]] = []
    for message in messages:
        ctx = base
        if message.get("role") == "toolResult":
            call = calls.get(message.get("toolCallId"))  # type: ignore[arg-type]
            if call is not None:
                ctx = RenderContext(width=args.width, session=session, tool_call=call)
        wall, cpu = time.perf_counter(), time.process_time()
        drawn = registry.render(registry.entry(message_entry(message)), ctx)
        rows = console.render_lines(drawn, options, pad=False)
        timings.append((time.perf_counter() - wall, time.process_time() - cpu, len(rows)))

    screens: list[tuple[float, float, int, int]] = []  # wall, cpu, lines, messages
    wall = cpu = 0.0
    lines = count = 0
    for m_wall, m_cpu, m_lines in timings:
        wall, cpu, lines, count = wall + m_wall, cpu + m_cpu, lines + m_lines, count + 1
        if lines >= args.height:
            screens.append((wall, cpu, lines, count))
            wall = cpu = 0.0
            lines = count = 0
    if count:
        screens.append((wall, cpu, lines, count))

    total_wall = sum(t[0] for t in timings)
    total_cpu = sum(t[1] for t in timings)
    total_lines = sum(t[2] for t in timings)
    print(f"all {len(messages)} messages: {total_wall * 1000:.1f} ms wall, "
          f"{total_cpu * 1000:.1f} ms cpu, {total_lines:,} lines "
          f"({total_wall / max(len(messages), 1) * 1000:.2f} ms per message)")  # fmt: skip
    first = screens[0]
    print(f"first screenful: {first[0] * 1000:.1f} ms wall, {first[1] * 1000:.1f} ms cpu "
          f"({first[3]} messages, {first[2]} lines; includes warm-up)")  # fmt: skip
    rest = screens[1:]
    if not rest:
        print("only one screenful")
        return
    walls = sorted(s[0] * 1000 for s in rest)
    cpus = sorted(s[1] * 1000 for s in rest)
    p95 = walls[min(len(walls) - 1, int(len(walls) * 0.95))]
    print(f"next {len(rest)} screenfuls: median {statistics.median(walls):.1f} ms, "
          f"p95 {p95:.1f} ms, max {walls[-1]:.1f} ms wall "
          f"(cpu median {statistics.median(cpus):.1f} ms, max {cpus[-1]:.1f} ms)")  # fmt: skip
    verdict = "OK" if statistics.median(walls) <= TARGET_MS else "OVER"
    print(f"target ≤ {TARGET_MS:.0f} ms per screenful after the first: {verdict}")
    slowest = sorted(range(len(timings)), key=lambda i: -timings[i][1])[: args.slowest]
    for index in slowest:
        message = messages[index]
        kinds = [b.get("type") for b in message.get("content") or [] if isinstance(b, dict)]
        print(f"  {timings[index][1] * 1000:6.1f} ms cpu  {timings[index][2]:4d} lines  "
              f"{message.get('role')} {kinds}")  # fmt: skip
    if registry.failures:
        print(f"renderer failures: {registry.failures}")


if __name__ == "__main__":
    main()
