"""The session view's prune (issue 23 §1): ``D`` on an entry off the active path asks, naming what
goes, then removes that branch from the file; ``ctrl+z`` puts the original back.

The plan is made from the screen's index; the write runs in a thread on a fresh reading of the
file (:func:`pitui.core.actions.prune`, with every guard: pi writing it asks first), and the new
reading is installed on the event loop, under the screen's lock, like a migration's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text

from pitui.core import actions, prune, trash
from pitui.core.actions import FileBusyError, WriteError
from pitui.core.session import Session, SessionError
from pitui.render.safe_text import one_line
from pitui.ui.modals.confirm import ConfirmModal
from pitui.ui.modals.prune import PruneModal
from pitui.ui.screens.session.follow import install
from pitui.ui.screens.session.state import UndoStep

if TYPE_CHECKING:
    from pitui.ui.screens.session.screen import SessionScreen


def _pruned(
    path: str, uid: str, confirmed: frozenset[str], force: bool, clock: float
) -> tuple[actions.Pruned, Session]:
    """Prune on a fresh reading of the file (worker thread), only what was ``confirmed``;
    returns the new reading."""
    session = Session.open(path)
    try:
        if prune.plan_prune(session, [uid], drop_labels=True).uids != confirmed:
            raise WriteError("the branch changed since the question (pi wrote to it?); ask again")
        done = actions.prune(session, [uid], force=force, clock=clock, drop_labels=True)
        return done, session
    except BaseException:
        session.close()
        raise


def _restored(path: str, item: trash.TrashedItem | None, force: bool) -> Session:
    actions.restore_pruned(path, item, force=force)
    return Session.open(path)


class SessionPrune:
    """The prune flow of one session screen."""

    def __init__(self, screen: SessionScreen) -> None:
        self.screen = screen

    def _error(self, text: str) -> None:
        self.screen.notify(one_line(text, 300), severity="error")

    def _ask(self, title: str, reason: str, label: str, then: Callable[[], None]) -> None:
        self.screen.app.push_screen(
            ConfirmModal(title, Text(reason), confirm_label=label, danger=False),
            callback=lambda ok: then() if ok else None,
        )

    def ask(self, uid: str) -> None:
        """Plan the prune of the branch at ``uid`` and ask, naming what goes."""
        screen, session = self.screen, self.screen.session
        meta = session.get(uid) if session is not None else None
        if session is None or meta is None:
            return
        if screen.read_only:
            self._error("Not pruned: the file was deleted on disk; pitui does not write to it")
            return
        try:
            plan = prune.plan_prune(session, [uid], drop_labels=True)
        except prune.PruneRefusedError as exc:
            self._error(f"Not pruned: {exc}")
            return
        start = " ".join("".join(p.text for p in screen.branch_tree.model.entry_text(meta)).split())
        screen.app.push_screen(
            PruneModal(plan, start, now_ms=screen.clock() * 1000),
            callback=lambda ok: self.prune(uid, plan.uids) if ok else None,
        )

    def prune(self, uid: str, confirmed: frozenset[str], force: bool = False) -> None:
        """Prune the branch at ``uid``, if it is still the ``confirmed`` entries."""
        self.screen.run_worker(
            self._prune(uid, confirmed, force), group="write", exit_on_error=False
        )

    async def _prune(self, uid: str, confirmed: frozenset[str], force: bool) -> None:
        screen = self.screen
        async with screen.io_lock:
            session = screen.session
            if session is None or await screen.bring_up_to_date(follow=False) == "gone":
                return
            meta = session.get(uid)
            parent = meta.parent.uid if meta is not None and meta.parent is not None else None
            try:
                done, fresh = await asyncio.to_thread(
                    _pruned, screen.path, uid, confirmed, force, screen.clock()
                )
            except FileBusyError as exc:
                self._ask(
                    "pi may be writing this session",
                    f"{exc}\n\nPrune anyway?",
                    "Prune anyway",
                    partial(self.prune, uid, confirmed, True),
                )
                return
            except (WriteError, SessionError, OSError) as exc:
                self._error(f"Not pruned: {exc}")
                return
            install(session, screen.file, fresh)
            screen.replaced()
            if parent is not None:
                screen.branch_tree.select_uid(parent)
        screen.state.undo.append(UndoStep("prune", uid, original=done.original))
        screen.notify(
            one_line(f"Pruned {done.plan.summary()}. Ctrl+Z brings it back.", 300), timeout=8
        )

    def _undo_forced(self, step: UndoStep) -> None:
        if step in self.screen.state.undo:
            self.screen.state.undo.remove(step)
        self.undo(step, force=True)

    def undo(self, step: UndoStep, force: bool = False) -> None:
        self.screen.run_worker(self._undo(step, force), group="write", exit_on_error=False)

    async def _undo(self, step: UndoStep, force: bool) -> None:
        screen = self.screen
        async with screen.io_lock:
            session = screen.session
            if session is None:
                return
            try:
                fresh = await asyncio.to_thread(_restored, screen.path, step.original, force)
            except trash.TrashError as exc:
                screen.state.undo.append(step)  # still there to undo
                if "--force" in str(exc) and not force:
                    reason = str(exc).split(" (use --force")[0]
                    self._ask(
                        "The session changed since the prune",
                        f"{reason}.\n\nRestore the original anyway? The file as it is now goes "
                        "to the trash first.",
                        "Restore anyway",
                        partial(self._undo_forced, step),
                    )
                else:
                    self._error(f"Prune not undone: {exc}")
                return
            except (SessionError, OSError) as exc:
                screen.state.undo.append(step)
                self._error(f"Prune not undone: {exc}")
                return
            install(session, screen.file, fresh)
            screen.replaced()
            if step.target is not None:
                screen.branch_tree.select_uid(step.target)
        screen.notify("Prune undone: the file is back as it was")
