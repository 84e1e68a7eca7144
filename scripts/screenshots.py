"""Regenerate ``screenshots/`` from the demo store: drives the app headless, saves SVGs, and PNGs
where ``rsvg-convert`` exists. Never edit the pictures by hand: run this.

    python scripts/screenshots.py            # all of them
    python scripts/screenshots.py picker     # only those whose name contains "picker"
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "screenshots"
SIZE = (160, 45)
SMALL = (80, 24)  # the ``*-80x24`` pictures: a small terminal
# A fixed "now" shortly after the demo store's newest session, so ages and layout never drift.
BASE_TIME = 1_764_460_800.0  # 2025-11-30T00:00:00Z

sys.path.insert(0, str(REPO))

from textual.widgets import Input  # noqa: E402
from textual.worker import WorkerCancelled  # noqa: E402

from pitui.config import Settings  # noqa: E402
from pitui.core.diff import branch_diff  # noqa: E402
from pitui.core.pins import Pins  # noqa: E402
from pitui.core.session import Session  # noqa: E402
from pitui.core.store import Store, sort_sessions  # noqa: E402
from pitui.demo import DemoStore, ensure_demo_store  # noqa: E402
from pitui.ui.app import AppOptions, PituiApp, make_app  # noqa: E402
from pitui.ui.catalog import StoreCatalog  # noqa: E402

Pilot = object  # the pilot is typed loosely: textual.pilot.Pilot[...]
Steps = Callable[[PituiApp, object], Awaitable[None]]


async def settle(app: PituiApp, pilot: object, rounds: int = 6) -> None:
    """Let workers finish and the screen repaint (previews load in workers)."""
    for _ in range(rounds):
        # (a worker the app cancelled for a newer one, a preview or a search: wait on)
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
        await pilot.pause(0.05)  # type: ignore[attr-defined]


def find_sessions(demo: DemoStore) -> dict[str, tuple[str, str | None]]:
    """Sessions worth showing: (path, entry to select) for a branchy one and a compaction."""
    branchy: tuple[int, str] = (0, "")
    compaction: tuple[str, str | None] = ("", None)
    for path in sorted((demo.agent_dir / "sessions").glob("*/*.jsonl")):
        with Session.open(path, final=True) as session:
            ends = sum(1 for meta in session.entries if not meta.children)
            labels = len(session.labels)
            if ends + labels > branchy[0]:
                branchy = (ends + labels, str(path))
            for meta in session.branch():
                if meta.type == "compaction" and not compaction[0]:
                    compaction = (str(path), meta.uid)
    return {
        "branchy": (branchy[1], None),
        "compaction": compaction,
        "prunable": prunable(branchy[1]),
    }


def prunable(path: str) -> tuple[str, str | None]:
    """A user message off the active path whose branch can be pruned (the confirmation shot)."""
    from pitui.core.prune import PruneRefusedError, plan_prune

    with Session.open(path, final=True) as session:
        active = {meta.uid for meta in session.branch()}
        for meta in session.entries:
            if meta.uid in active or meta.role != "user" or meta.parent is None:
                continue
            if meta.parent.uid not in active:
                continue
            try:
                plan_prune(session, [meta.uid], drop_labels=True)
            except PruneRefusedError:
                continue
            return path, meta.uid
    return path, None


def find_diff(demo: DemoStore, rows: int = 30) -> tuple[str, str, str]:
    """(path, A, B): the two branch ends of a demo session whose sides touched the most files
    between them while each fits on the screen (at most ``rows`` entries)."""
    best: tuple[int, str, str, str] = (-1, "", "", "")
    for path in sorted((demo.agent_dir / "sessions").glob("*/*.jsonl")):
        with Session.open(path, final=True) as session:
            ends = [meta for meta in session.entries if not meta.children]
            for index, a in enumerate(ends):
                for b in ends[index + 1 :]:
                    diff = branch_diff(session, a, b)
                    if max(len(diff.a.entries), len(diff.b.entries)) > rows:
                        continue
                    touched = len(diff.a.files) + len(diff.b.files)
                    if touched > best[0]:
                        best = (touched, str(path), a.uid, b.uid)
    return best[1], best[2], best[3]


async def shoot(name: str, app: PituiApp, steps: Steps, size: tuple[int, int] = SIZE) -> Path:
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await steps(app, pilot)
        await settle(app, pilot)
        for field in app.screen.query(Input):
            field.cursor_blink = False  # a steady cursor: the picture must not depend on timing
        await settle(app, pilot, 1)
        svg = OUT / f"{name}.svg"
        app.save_screenshot(filename=svg.name, path=str(OUT))
    preserve_spaces(svg)
    return svg


def preserve_spaces(svg: Path) -> None:
    """Mark the picture's white space as significant (SVG's ``xml:space``): rsvg-convert moves
    a span's leading space to the end of the span before it otherwise, so the PNG showed
    ``useCallbackis the right one.  useCallback`` where the terminal shows the spaces right."""
    text = svg.read_text(encoding="utf-8")
    if 'xml:space="preserve"' not in text:
        svg.write_text(text.replace("<svg ", '<svg xml:space="preserve" ', 1), encoding="utf-8")


def to_png(svg: Path) -> None:
    converter = shutil.which("rsvg-convert")
    if converter is not None:
        subprocess.run([converter, "-o", str(svg.with_suffix(".png")), str(svg)], check=True)


async def main(only: str | None) -> None:
    # the demo store's path shows in the preview: the same path on every run, a fresh store
    cache = Path(tempfile.gettempdir()) / "pitui-screenshots-cache"
    shutil.rmtree(cache, ignore_errors=True)
    os.environ["XDG_CACHE_HOME"] = str(cache)
    # pitui's data dir (pins) apart from the user's: only the pins made here show
    data = Path(tempfile.gettempdir()) / "pitui-screenshots-data"
    shutil.rmtree(data, ignore_errors=True)
    os.environ["XDG_DATA_HOME"] = str(data)
    demo = ensure_demo_store(base_time=BASE_TIME)
    OUT.mkdir(exist_ok=True)
    picks = find_sessions(demo)
    diff_pick = find_diff(demo)
    settings = Settings(theme="pi-dark", watch=False)

    def app(**options: object) -> PituiApp:
        store = Store(cwd=demo.cwd, agent=demo.agent_dir, use_index=False)
        base = {"settings": settings, "cwd": demo.cwd, "watch": False, "clock": lambda: BASE_TIME}
        return make_app(StoreCatalog(store), AppOptions(**{**base, **options}))  # type: ignore[arg-type]

    async def nothing(app: PituiApp, pilot: object) -> None:
        return None

    async def press(*keys: str) -> Steps:
        async def steps(app: PituiApp, pilot: object) -> None:
            for key in keys:
                await pilot.press(key)  # type: ignore[attr-defined]
                await settle(app, pilot, 2)

        return steps

    async def marked(first: str, second: str) -> Steps:
        """Mark ``first`` (alt+m), select ``second`` and open the branch diff (alt+d)."""

        async def steps(app: PituiApp, pilot: object) -> None:
            for uid, key in ((first, "alt+m"), (second, "alt+d")):
                assert app.screen.query_one("BranchTree").select_uid(uid)  # type: ignore[attr-defined]
                await pilot.press(key)  # type: ignore[attr-defined]
                await settle(app, pilot, 2)

        return steps

    async def typed(text: str) -> Steps:
        async def steps(app: PituiApp, pilot: object) -> None:
            for char in text:
                await pilot.press(char)  # type: ignore[attr-defined]
            await settle(app, pilot)

        return steps

    def pinned() -> PituiApp:
        # the fourth session of this folder, pinned (as alt+t does): first, marked
        with Store(cwd=demo.cwd, agent=demo.agent_dir, use_index=False) as store:
            listed = sort_sessions(store.load("current"))
        pins = Pins()
        if not pins.load():
            pins.toggle(listed[3].path)
        return app()

    shots: list[tuple[str, Callable[[], PituiApp], Steps]] = [
        ("picker", lambda: app(), nothing),
        ("picker-labels", lambda: app(scope="all"), await typed("label:")),
        ("picker-pinned", pinned, nothing),
        ("picker-all-scope", lambda: app(scope="all"), nothing),
        ("picker-search", lambda: app(scope="all"), await typed("test")),
        ("picker-delete-confirm", lambda: app(), await press("down", "ctrl+d")),
        ("session-tree", lambda: app(open_path=picks["branchy"][0]), nothing),
        ("session-tree-all", lambda: app(open_path=picks["branchy"][0]), await press("ctrl+a")),
        (
            "session-compaction-preview",
            lambda: app(open_path=picks["compaction"][0], open_entry=picks["compaction"][1]),
            nothing,
        ),
        (
            "session-diff",
            lambda: app(open_path=diff_pick[0]),
            await marked(diff_pick[1], diff_pick[2]),
        ),
        (
            "session-prune-confirm",
            lambda: app(open_path=picks["prunable"][0], open_entry=picks["prunable"][1]),
            await press("D"),
        ),
        ("help", lambda: app(), await press("f1")),
        ("stats", lambda: app(scope="all"), await press("f2")),
        ("doctor", lambda: app(), await press("f3")),
    ]
    small: list[tuple[str, Callable[[], PituiApp], Steps]] = [
        ("picker-80x24", lambda: app(), nothing),
        ("picker-preview-80x24", lambda: app(), await press("f4")),
        ("picker-search-80x24", lambda: app(scope="all"), await typed("test")),
        ("session-tree-80x24", lambda: app(open_path=picks["branchy"][0]), nothing),
    ]
    sized = [(shot, SIZE) for shot in shots] + [(shot, SMALL) for shot in small]
    for (name, build, steps), size in sized:
        if only and only not in name:
            continue
        svg = await shoot(name, build(), steps, size)
        to_png(svg)
        print(f"wrote {svg.relative_to(REPO)}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else None))
