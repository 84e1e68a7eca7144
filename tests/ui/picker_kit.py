"""Shared helpers for the picker's Pilot and snapshot tests.

* :class:`FakeItem` / :class:`FakeCatalog`: sessions in memory with exact ages (the rows go
  through the real :func:`pitui.core.search.filter_and_sort`).
* :func:`write_session` / :func:`store_app`: real session files in a temp agent dir, listed by a
  real :class:`~pitui.ui.catalog.StoreCatalog`.
* :func:`settle`, :func:`row_texts`, :func:`wait_for`: drive and read the running screen.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import orjson
import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from pitui.config import Settings
from pitui.core.labels import ListedLabel, listed_labels
from pitui.core.paths import session_dir_for
from pitui.core.search import Row, filter_and_sort, searchable_text
from pitui.core.store import Store
from pitui.ui.app import AppOptions, PituiApp, make_app
from pitui.ui.catalog import (
    Batch,
    Catalog,
    FullTextHit,
    PickerItem,
    Progress,
    Scope,
    SortMode,
    StoreCatalog,
    sort_items,
)
from pitui.ui.screens.picker import PickerScreen
from pitui.ui.screens.picker.state import StatusKind
from pitui.ui.widgets.preview import SessionPreview
from pitui.ui.widgets.session_list import SessionList
from tests.core.sessiondata import HEADER, jsonl

# 2025-06-01T12:00:00Z: every fake age is measured from here.
NOW = 1748779200.0
MINUTE, HOUR, DAY = 60_000, 3_600_000, 86_400_000


@dataclass
class FakeItem:
    path: str
    id: str
    first_message: str
    modified: float  # epoch ms
    name: str | None = None
    cwd: str = ""
    parent_session_path: str | None = None
    message_count: int = 3
    text: str = ""  # all message text (searched)
    labels: dict[str, str] = field(default_factory=dict)  # entry id -> label
    label_times: dict[str, str] = field(default_factory=dict)  # entry id -> ISO time
    header_problem: str | None = None

    @property
    def search_text(self) -> str:
        return searchable_text(self.id, self.name, self.text or self.first_message, self.cwd)


def aged(ms_ago: float) -> float:
    return NOW * 1000 - ms_ago


@dataclass
class FakeCatalog:
    """A :class:`Catalog` over in-memory items; ``gate`` holds a scope's load until it is set."""

    scopes: dict[Scope, list[FakeItem]] = field(default_factory=dict)
    gates: dict[Scope, threading.Event] = field(default_factory=dict)
    hits: list[FullTextHit] = field(default_factory=list)
    loads: list[Scope] = field(default_factory=list)
    first_pages: dict[Scope, list[FakeItem]] = field(default_factory=dict)
    prepared: list[int] = field(default_factory=list)  # prepare_search calls: how many items
    unreadable: dict[str, str] = field(default_factory=dict)  # folder → why

    def load(
        self,
        scope: Scope,
        on_progress: Progress,
        on_batch: Batch | None = None,
        cancel: threading.Event | None = None,
    ) -> Sequence[PickerItem]:
        self.loads.append(scope)
        gate = self.gates.get(scope)
        if gate is not None:
            gate.wait(10)
        items = list(self.scopes.get(scope, []))
        on_progress(len(items), len(items))
        return sort_items(items)

    def first_page(self, scope: Scope) -> Sequence[PickerItem]:
        return self.first_pages.get(scope, [])

    def rows(
        self, items: Sequence[PickerItem], query: str, mode: SortMode, named_only: bool
    ) -> list[Row[Any]]:
        return list(filter_and_sort(items, query, mode, named_only))

    def full_text(
        self, query: str, scope: Scope, on_progress: Progress | None = None
    ) -> Sequence[FullTextHit]:
        return [hit for hit in self.hits if query.lower() in hit.snippet.lower()]

    def labels(self, items: Sequence[PickerItem]) -> Sequence[ListedLabel]:
        return listed_labels(cast("Sequence[FakeItem]", items))

    def prepare_search(
        self, items: Sequence[PickerItem], cancel: threading.Event | None = None
    ) -> None:
        self.prepared.append(len(items))

    def watch_root(self) -> str | None:
        return None

    def unreadable_folders(self) -> Mapping[str, str]:
        return self.unreadable


def fake_app(catalog: Catalog, **options: Any) -> PituiApp:
    options.setdefault("clock", lambda: NOW)
    options.setdefault("cwd", "/home/ana/proj")
    options.setdefault("watch", False)
    options.setdefault("settings", Settings(theme="pi-dark"))
    return make_app(catalog, AppOptions(**options))


# ------------------------------------------------------------------------------ real files
def write_session(
    agent: Path,
    cwd: str,
    session_id: str,
    entries: Sequence[dict[str, Any] | bytes],
    *,
    created: str = "2025-01-01T00:00:00.000Z",
    parent: str | None = None,
    name: str | None = None,
    mtime: float | None = NOW - 3600,
) -> Path:
    """A session file where pi would write it for ``cwd``; its mtime is set an hour back so
    pitui's busy-file check (pi may be writing) does not fire."""
    folder = session_dir_for(cwd, agent)
    folder.mkdir(parents=True, exist_ok=True)
    header = {**HEADER, "id": session_id, "cwd": cwd, "timestamp": created}
    if parent is not None:
        header["parentSession"] = parent
    path = folder / (name or f"{created.replace(':', '-').replace('.', '-')}_{session_id}.jsonl")
    path.write_bytes(jsonl(*entries, header=header))
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


HOSTILE_TEXT = "[/bold][link=https://evil.example]x[/link] \x1b]0;pwned\x07\x1b[2J\u202e"


def write_hostile_session(agent: Path, cwd: str, *, mtime: float) -> Path:
    """A session in ``cwd``'s folder whose every string pi writes is markup and escapes: the
    ids and parents, its own folder, the name, labels and their targets, a branch to prune."""
    evil = HOSTILE_TEXT

    def at(n: int) -> str:
        return f"2025-03-01T10:00:{n:02d}.000Z"

    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.1}}
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "h" + evil, "timestamp": at(0),
         "cwd": "/x\x1b]0;pwned\x07" + evil},  # (the title's start: not cut at 80 columns)
        {"type": "message", "id": "u1", "parentId": None, "timestamp": at(1),
         "message": {"role": "user", "content": "hi " + evil, "timestamp": 1740823201000}},
        {"type": "message", "id": "a1" + evil, "parentId": "u1", "timestamp": at(2),
         "message": {"role": "assistant", "content": [
             {"type": "text", "text": evil},
             {"type": "toolCall", "id": "t" + evil, "name": "bash" + evil,
              "arguments": {"command": evil}}],
             "provider": evil, "model": evil, "stopReason": "toolUse", "usage": usage}},
        {"type": "message", "id": "r1", "parentId": "a1" + evil, "timestamp": at(3),
         "message": {"role": "toolResult", "toolCallId": "t" + evil, "toolName": evil,
                     "content": [{"type": "text", "text": evil}], "isError": True}},
        {"type": "message", "id": "u2", "parentId": "u1", "timestamp": at(4),
         "message": {"role": "user", "content": "a branch " + evil, "timestamp": 1740823204000}},
        {"type": "label", "id": "l1", "parentId": "u2", "timestamp": at(5), "targetId": "u2",
         "label": evil},
        {"type": "label", "id": "l2", "parentId": "l1", "timestamp": at(6),
         "targetId": "gone" + evil, "label": evil},
        {"type": "custom", "id": "c1", "parentId": "r1", "timestamp": at(7),
         "customType": evil, "data": {"x": evil}},
        {"type": "model_change", "id": "m1", "parentId": "c1", "timestamp": at(8),
         "provider": evil, "modelId": evil},
        {"type": "thinking_level_change", "id": "k1", "parentId": "m1", "timestamp": at(9),
         "thinkingLevel": evil},
        {"type": "session_info", "id": "n1", "parentId": "k1", "timestamp": at(10), "name": evil},
        {"type": "message", "id": "o1", "parentId": "nowhere" + evil, "timestamp": at(11),
         "message": {"role": "user", "content": "orphan", "timestamp": 1740823211000}},
        {"type": "message", "id": "a2", "parentId": "n1", "timestamp": at(12),
         "message": {"role": "assistant", "content": [], "stopReason": "error",
                     "errorMessage": evil, "provider": "p", "model": "m", "usage": usage}},
    ]  # fmt: skip
    folder = session_dir_for(cwd, agent)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "2025-03-01T10-00-00-000Z_hostile.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(line) for line in lines) + b"\n")
    os.utime(path, (mtime, mtime))
    return path


def copy_fixture(source: Path, agent: Path, cwd: str) -> Path:
    """A fixture file copied into ``cwd``'s session folder (its header cwd rewritten)."""
    lines = source.read_bytes().split(b"\n")
    header = orjson.loads(lines[0])
    header["cwd"] = cwd
    folder = session_dir_for(cwd, agent)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.name
    target.write_bytes(b"\n".join([orjson.dumps(header), *lines[1:]]))
    shutil.copystat(source, target)
    return target


def store_catalog(agent: Path, cwd: str) -> StoreCatalog:
    return StoreCatalog(Store(cwd=cwd, agent=agent, workers=1))


def store_app(agent: Path, store_cwd: str, **options: Any) -> PituiApp:
    """The app over a real store whose current folder is ``store_cwd`` (also the app's cwd
    unless ``cwd=`` says otherwise)."""
    options.setdefault("cwd", store_cwd)
    return fake_app(store_catalog(agent, store_cwd), **options)


# ------------------------------------------------------------------------------ driving
def picker(app: PituiApp) -> PickerScreen:
    """The picker, also while a dialog or the session view is on top of it."""
    return next(s for s in reversed(app.screen_stack) if isinstance(s, PickerScreen))


# Workers that live as long as their screen (file watching): never waited for.
LONG_LIVED = {"watch", "picker-watch"}


async def settle(pilot: Pilot[Any], rounds: int = 4) -> None:
    """Let loads, filters and the preview finish (each can start the next)."""
    for _ in range(rounds):
        workers = [w for w in pilot.app.workers if w.group not in LONG_LIVED]
        # (not WorkerManager.wait_for_complete: given no workers it waits for all of them)
        await asyncio.gather(*(w.wait() for w in workers), return_exceptions=True)
        await pilot.pause()


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 20.0, what: str = ""
) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        await pilot.pause(0.05)


async def preview_loaded(pilot: Pilot[Any]) -> None:
    """Until the preview shows its target, scrolled to its end (the pane shows the last
    messages; the scroll happens after the layout, a few frames later)."""
    screen = pilot.app.screen
    preview = screen.query_one(SessionPreview)

    # (after typing, the picker gives the preview its target once typing pauses)
    def turn_come() -> bool:
        return not (isinstance(screen, PickerScreen) and screen.preview_pending)

    await wait_for(pilot, turn_come, timeout=30.0, what="the preview's turn")
    await wait_for(
        pilot,
        lambda: preview.target is None
        or (preview.loaded is not None and (preview.loaded.path, preview.loaded.entry_id)
            == preview.target),
        timeout=30.0,
        what="the preview",
    )  # fmt: skip
    lines = preview.lines
    seen: list[tuple[float, float, int]] = []
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline:
        await pilot.pause()
        seen.append((lines.scroll_y, lines.max_scroll_y, lines.virtual_size.height))
        if len(seen) >= 4 and len(set(seen[-4:])) == 1 and seen[-1][0] >= seen[-1][1]:
            break
    await pilot.pause()


def record_statuses(
    app: PituiApp, monkeypatch: pytest.MonkeyPatch, kinds: list[str] | None = None
) -> list[str]:
    """Every status the picker shows from now on, in order (their kinds into ``kinds``): a
    status lasts 2 s, which a loaded machine can spend inside one key press, so reading the
    status line afterwards may miss it."""
    screen = picker(app)
    seen: list[str] = []
    show = screen.show_status

    def recording(message: str, kind: StatusKind = "info") -> None:
        seen.append(message)
        if kinds is not None:
            kinds.append(kind)
        show(message, kind)

    monkeypatch.setattr(screen, "show_status", recording)
    return seen


def row_texts(app: PituiApp) -> list[str]:
    """The list's lines as drawn (trailing spaces kept: they show the right alignment)."""
    widget = picker(app).query_one(SessionList)
    count = max(len(widget.rows), 1)
    return [widget.render_line(y).text for y in range(min(count, widget.size.height))]


def titles(app: PituiApp) -> list[str]:
    return [row.title for row in picker(app).query_one(SessionList).rows]


def static_text(app: PituiApp, selector: str) -> str:
    return str(picker(app).query_one(selector, Static).visual)


# ------------------------------------------------------------------------------ snapshot steps
Step = Callable[[Pilot[Any]], Awaitable[None]]


def ready(*then: Step) -> Step:
    """Wait for loads, filters and the preview; run ``then`` steps, waiting after each."""

    async def run_before(pilot: Pilot[Any]) -> None:
        # a blinking cursor would be on or off depending on timing
        picker(pilot.app).search.cursor_blink = False  # type: ignore[arg-type]
        await settle(pilot)
        await preview_loaded(pilot)
        for step in then:
            await step(pilot)
            await settle(pilot)
            if isinstance(pilot.app.screen, PickerScreen):
                await preview_loaded(pilot)
            for editor in pilot.app.screen.query(Input):  # a dialog's input too
                editor.cursor_blink = False
        await pilot.pause()

    return run_before


def press(*keys: str) -> Step:
    async def step(pilot: Pilot[Any]) -> None:
        await pilot.press(*keys)

    return step
