"""Time the safety layer on large untrusted text.

Run by hand: ``python benchmarks/bench_render_safe.py``.

Prints, for 5 MB strings of several kinds, the best of a few runs of ``safe_text`` (no limit),
``sanitize_plain``, the default truncated ``safe_text``, and the cost the registry adds to
drawing a screenful of entries (its output check on every segment).
"""

from __future__ import annotations

import io
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from rich.console import Console, Group, RenderableType
from rich.text import Text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pitui.render import (
    RenderContext,
    RenderEntry,
    RendererRegistry,
    safe_line,
    safe_text,
    sanitize_plain,
)

SIZE = 5_000_000


def _fill(unit: str) -> str:
    return (unit * (SIZE // len(unit) + 1))[:SIZE]


CASES: dict[str, str] = {
    "ascii log": _fill("2025-03-10 12:00:01 INFO request handled in 12 ms path=/api/v1/items\n"),
    "ansi log": _fill("\x1b[31mERROR\x1b[0m something failed in module foo.bar line 42\n"),
    "cjk+arabic prose": _fill("日本語のテキストとhello world 😀 مرحبا “quoted” — dash…\n"),
    "box drawing": _fill("│   ├── src/pitui/render/registry.py\n"),
    "bidi+zwj each line": _fill("text \u202e reversed 👩\u200d💻 emoji\n"),
    "lone surrogates": _fill("abc\ud83d def "),
    "all controls (worst)": _fill("\x1b\x07\x00\x7f\x9b\u202e"),
}


def best_ms(func: Callable[[], object], runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def bench_strings() -> None:
    print(f"{'5 MB string':24} {'safe_text':>10} {'plain':>10} {'truncated':>10} {'line':>10}")
    for name, s in CASES.items():
        full = best_ms(partial(safe_text, s, max_chars=None))
        plain = best_ms(partial(sanitize_plain, s))
        cut = best_ms(partial(safe_text, s))
        line = best_ms(partial(safe_line, s))
        print(f"{name:24} {full:8.1f}ms {plain:8.1f}ms {cut:8.1f}ms {line:8.1f}ms")


def bench_registry_overhead() -> None:
    """200 entries drawn directly vs. through the registry (guarded, output checked)."""
    raws = [
        {"type": "custom", "id": f"{i:08x}", "customType": "log", "data": f"line {i} " * 30}
        for i in range(200)
    ]

    def draw(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
        # a Group, so the registry wraps it and checks its segments
        return Group(Text("log", style="bold"), safe_text(str(entry.raw["data"])))

    registry = RendererRegistry(discover=False)
    registry.register(draw, custom_type="log")
    ctx = RenderContext(width=100)
    entries = [registry.entry(raw) for raw in raws]

    def paint(renderables: list[RenderableType]) -> None:
        console = Console(file=io.StringIO(), width=100, force_terminal=True, color_system=None)
        for renderable in renderables:
            console.print(renderable)

    direct = best_ms(lambda: paint([draw(entry, ctx) for entry in entries]))
    guarded = best_ms(lambda: paint([registry.render(entry, ctx) for entry in entries]))
    empty = RendererRegistry(discover=False)
    fallback = best_ms(lambda: paint([empty.render(RenderEntry(raw), ctx) for raw in raws]))
    print(f"\n200 entries, direct {direct:.1f} ms, through the registry {guarded:.1f} ms")
    big = RenderEntry({"type": "mystery", "data": "x" * SIZE})
    folded = best_ms(lambda: paint([empty.render(big, ctx)]))
    print(f"fallback view of a 5 MB unknown entry (folded): {folded:.1f} ms")
    print(f"200 unknown entries through the fallback: {fallback:.1f} ms")


def main() -> None:
    bench_strings()
    bench_registry_overhead()


if __name__ == "__main__":
    main()
