"""Shared helpers for the session view's Pilot, snapshot and live tests.

A tiny app holds the real :class:`SessionScreen`; fixtures are copied to tmp (never written in
place) with their modification time set relative to a frozen clock, so the busy-file rule and label
times are deterministic. :func:`pi_view` reopens a file with the core and says what pi would see.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.app import App
from textual.notifications import SeverityLevel
from textual.worker import WorkerCancelled

from pitui.config import Settings
from pitui.core.context import build_session_context
from pitui.core.session import Session
from pitui.ui.app import stylesheets
from pitui.ui.screens.session import SessionScreen
from pitui.ui.themes import THEMES
from pitui.ui.widgets.branch_tree import BranchTree
from tests.conftest import fixture_by_scenario, load_expected
from tests.core.sessiondata import assistant, jsonl, user

# 2026-01-15 12:00 UTC: the session view's clock in tests (label times, busy checks, new entries)
FROZEN = datetime(2026, 1, 15, 12, 0, tzinfo=UTC).timestamp()


def copy_session(source: Path, folder: Path, *, age: float = 3600.0, name: str = "") -> Path:
    """A writable copy of ``source`` in ``folder``, last modified ``age`` seconds before FROZEN."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (name or source.name)
    shutil.copyfile(source, target)
    os.chmod(target, 0o644)
    os.utime(target, (FROZEN - age, FROZEN - age))
    return target


def copy_fixture(scenario: str, folder: Path, **options: Any) -> Path:
    return copy_session(fixture_by_scenario("pi-written", scenario), folder, **options)


def write_session(data: bytes, folder: Path, *, age: float = 3600.0, name: str = "s.jsonl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    target.write_bytes(data)
    os.utime(target, (FROZEN - age, FROZEN - age))
    return target


def two_branch_session() -> bytes:
    """Root u1 → a1 → {u3 "approach B" → a3, u2 "approach A" → a2 (the leaf: last line)}."""
    return jsonl(
        user("u1", None, "first", t=1),
        assistant("a1", "u1", "reply one", t=2),
        user("u3", "a1", "approach B", t=3),
        assistant("a3", "u3", "reply B", t=4),
        user("u2", "a1", "approach A", t=5),
        assistant("a2", "u2", "reply A", t=6),
    )


def pi_view(path: Path | str) -> dict[str, Any]:
    """What pi sees when it opens ``path``: leaf, branch, labels, context roles."""
    with Session.open(path, final=True) as session:
        context = build_session_context(session)
        return {
            "version": session.original_version,
            "leaf": session.leaf.id if session.leaf is not None else None,
            "branch": [meta.id for meta in session.branch()],
            "labels": dict(session.labels),
            "roles": [message.get("role") for message in context.messages],
            "sources": list(context.sources),
            "entries": len(session.entries),
        }


def pi_sees(
    path: Path | str, *, branch: list[Any], labels: dict[str, str], roles: list[Any]
) -> dict[str, Any]:
    """Reopen ``path`` as pi would and check all it sees: leaf (the branch's end), branch path,
    labels and the roles of the context messages."""
    view = pi_view(path)
    assert view["branch"] == branch
    assert view["leaf"] == (branch[-1] if branch else None)
    assert view["labels"] == labels
    assert view["roles"] == roles
    return view


def oracle_view(scenario: str, path: Path | str) -> dict[str, Any]:
    """``pi_view`` of an unchanged fixture copy, checked against the fixture's oracle (what pi
    0.73.1 itself reported for it)."""
    record = next(r for r in load_expected("pi-written")["sessions"].values()
                  if r["scenario"] == scenario)  # fmt: skip
    view = pi_view(path)
    assert view["leaf"] == record["leafId"]
    assert view["branch"] == record["branchIds"]
    assert view["labels"] == record["labels"]
    context = record["context"]
    assert view["roles"] == context["roles"]
    return view


def context_roles_at(path: Path | str, uid: str | None) -> list[Any]:
    with Session.open(path, final=True) as session:
        return [m.get("role") for m in build_session_context(session, uid).messages]


class ScreenApp(App[None]):
    """Nothing but the session view (pi-dark theme), recording notifications and resumes."""

    CSS_PATH = stylesheets()

    def __init__(
        self,
        path: Path | str,
        *,
        select: str | None = None,
        watch: bool = False,
        clock: Callable[[], float] = lambda: FROZEN,
        resumable: bool = True,
        debounce_ms: int = 50,
        settings: Settings | None = None,
    ) -> None:
        super().__init__()
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = "pi-dark"
        self.notes: list[tuple[str, str]] = []
        self.resumed: list[tuple[str, str, str]] = []
        self.session_screen = SessionScreen(
            str(path),
            settings=dataclasses.replace(
                settings or Settings(), watch=watch, watch_debounce_ms=debounce_ms
            ),
            select=select,
            standalone=True,
            on_resume=self._resume if resumable else None,
            watch=watch,
            clock=clock,
        )

    def on_mount(self) -> None:
        self.push_screen(self.session_screen)

    def _resume(self, path: str, cwd: str, session_id: str) -> None:
        self.resumed.append((path, cwd, session_id))

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        self.notes.append((severity, message))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    @property
    def branch_tree(self) -> BranchTree:
        return self.session_screen.query_one(BranchTree)

    def noted(self, text: str) -> bool:
        return any(text in message for _severity, message in self.notes)


async def wait_for(pilot: Any, condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the app run until ``condition()`` holds (fails the test after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the session view")
        await pilot.pause(0.02)


async def opened(app: ScreenApp, pilot: Any, *, workers: bool = True) -> None:
    """Until the file is read and the tree shown (and, with ``workers``, every worker done:
    only for apps that do not watch, whose watch worker never ends)."""
    screen = app.session_screen
    await wait_for(pilot, lambda: screen.session is not None and bool(screen.query(BranchTree)))
    await settle(app, pilot, workers=workers)


async def workers_done(app: App[Any]) -> None:
    """Until every worker has ended. One that a newer one of its group cancelled (the context
    of an entry selected a moment before the next) ended too; a worker's error is raised."""
    ended = await asyncio.gather(*(worker.wait() for worker in list(app.workers)),
                                 return_exceptions=True)  # fmt: skip
    for outcome in ended:
        if isinstance(outcome, BaseException) and not isinstance(outcome, WorkerCancelled):
            raise outcome


async def settle(app: ScreenApp, pilot: Any, *, workers: bool = True) -> None:
    if workers:
        await workers_done(app)
    await pilot.pause()
    if workers:
        await workers_done(app)
    await pilot.pause()


def row_texts(tree: BranchTree) -> list[str]:
    """Every visible row as pi prints it."""
    model = tree.model
    return [model.row(i).plain() for i in range(model.count)]


def selected_row(tree: BranchTree) -> str:
    model = tree.model
    return model.row(model.selected_index).plain()
