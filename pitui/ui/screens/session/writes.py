"""The session view's writes: a label, a branch switch (with or without a summary), their undo,
and extracting a branch as a new session.

Each asks first where pi does (a modal), then writes in a worker of the ``write`` group through
:mod:`pitui.core.actions`, with its guards: a file pi wrote a moment ago asks before writing
(pitui's own last write does not count), a v1/v2 file is migrated first. The index is brought up
to date before and after, under the screen's lock; the append itself runs in a thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.text import Text

from pitui.core import actions
from pitui.core.actions import FileBusyError, WriteError
from pitui.core.paths import shorten_home
from pitui.core.session import EntryMeta, Session, SessionError
from pitui.render.safe_text import one_line
from pitui.ui.modals import call_if
from pitui.ui.modals.confirm import ConfirmModal
from pitui.ui.modals.switch import SwitchChoice, SwitchModal
from pitui.ui.modals.text_input import TextInputModal
from pitui.ui.screens.session.follow import install
from pitui.ui.screens.session.state import UndoStep

if TYPE_CHECKING:
    from pitui.ui.screens.session.screen import SessionScreen


def _migrated(path: str) -> Session:
    """Rewrite a v1/v2 file as version 3 (atomic) and return its new index (worker thread)."""
    session = Session.open(path)
    actions.migrate(session)
    return session


class SessionWrites:
    """The write flows of one session screen (its index, lock, tree and undo stack)."""

    def __init__(self, screen: SessionScreen) -> None:
        self.screen = screen

    def _run(self, work: Coroutine[Any, Any, None]) -> None:
        self.screen.run_worker(work, group="write", exit_on_error=False)

    def _notify_error(self, text: str) -> None:
        self.screen.notify(one_line(text, 300), severity="error")

    # ---------------------------------------------------------------------------- appending
    async def _append(
        self, failure: str, build: actions.Build, *, force: bool, retry: Callable[[], object]
    ) -> bool:
        """Append what ``build`` makes from the up-to-date index; False if nothing was written
        (the user was told why, or asked whether to write to a busy file)."""
        screen = self.screen
        if screen.read_only:
            self._notify_error(
                f"{failure}: the file was deleted on disk; pitui does not write to it"
            )
            return False
        async with screen.io_lock:
            session = screen.session
            if (
                session is None
                or await screen.bring_up_to_date(follow=False) == "gone"
                or screen.read_only
            ):
                if screen.read_only:
                    self._notify_error(f"{failure}: the file was deleted on disk")
                return False
            try:
                clock = screen.clock()
                end_line = await asyncio.to_thread(  # "write anyway" is not "linearize it"
                    partial(actions.check_write, linearize=False), session, force=force, clock=clock
                )
            except FileBusyError as exc:
                self._confirm_busy(str(exc), retry)
                return False
            except WriteError as exc:
                self._notify_error(f"{failure}: {exc}")
                return False
            if session.original_version < 3:
                try:
                    fresh = await asyncio.to_thread(_migrated, screen.path)
                except (WriteError, SessionError, OSError) as exc:
                    self._notify_error(f"{failure}: {exc}")
                    return False
                install(session, screen.file, fresh)
                screen.replaced()
                end_line = False  # the rewrite ended every line
                screen.notify("The file was migrated to format version 3 first, as pi does")
            try:
                entries = build(session)
                await asyncio.to_thread(actions.append_entries, session, entries, end_line=end_line)
            except WriteError as exc:  # also: pi appended in between (nothing written)
                self._notify_error(f"{failure}: {exc}")
                await screen.bring_up_to_date(follow=False)
                return False
            await screen.bring_up_to_date(follow=False)
            return True

    def _confirm_busy(self, reason: str, retry: Callable[[], object]) -> None:
        body = Text(reason + "\n\nWrite anyway?")
        self.screen.app.push_screen(
            ConfirmModal(
                "pi may be writing this session", body, confirm_label="Write anyway", danger=False
            ),
            callback=lambda ok: call_if(ok, retry),
        )

    # ---------------------------------------------------------------------------- switching
    def choose(self, meta: EntryMeta) -> None:
        """The user chose ``meta`` in the tree: offer to continue from there (pi's rule)."""
        screen, session = self.screen, self.screen.session
        if session is None:
            return
        try:
            plan = actions.plan_switch(session, meta)
        except OSError as exc:
            self._notify_error(f"Cannot read the entry: {exc}")
            return
        if plan.already_there:
            screen.notify("Already at this point")
            return
        model = screen.branch_tree.model

        def describe(entry: EntryMeta) -> str:
            text = " ".join("".join(part.text for part in model.entry_text(entry)).split())
            return text if len(text) <= 150 else text[:149] + "…"

        new_leaf = plan.resume_at
        screen.app.push_screen(
            SwitchModal(
                describe(meta),
                describe(new_leaf) if new_leaf is not None else None,
                plan.editor_text,
                same=new_leaf is meta,
            ),
            callback=lambda choice: self._switch_chosen(new_leaf, choice),
        )

    def _switch_chosen(self, new_leaf: EntryMeta | None, choice: SwitchChoice | None) -> None:
        target = new_leaf.uid if new_leaf is not None else None
        if choice == "switch":
            self.switch(target, None)
        elif choice == "summary":
            self.screen.app.push_screen(
                TextInputModal(
                    "Branch summary",
                    hint="What was the abandoned branch about? It goes into the model's context. "
                    "Enter to switch (empty: no summary) · Esc to cancel",
                    allow_empty=True,
                ),
                callback=lambda text: self._summary_typed(target, text),
            )

    def _summary_typed(self, target: str | None, text: str | None) -> None:
        if text is not None:  # None: cancelled; "": switch without a summary
            self.switch(target, text or None)

    def switch(
        self, target: str | None, summary: str | None, force: bool = False, undoing: bool = False
    ) -> None:
        self._run(self._write_switch(target, summary, force, undoing))

    async def _write_switch(
        self, target: str | None, summary: str | None, force: bool, undoing: bool
    ) -> None:
        screen, session = self.screen, self.screen.session
        if session is None:
            return
        previous = session.leaf.uid if session.leaf is not None else None
        written = await self._append(
            "Not switched",
            actions.switch_build(target, summary, clock=screen.clock()),
            force=force,
            retry=lambda: self.switch(target, summary, True, undoing),
        )
        if not written:
            return
        if undoing:
            screen.notify("Switch undone: pi will continue where it was")
            return
        screen.state.undo.append(UndoStep("switch", previous))
        if target is not None:
            screen.branch_tree.select_uid(target)
        screen.notify("Switched: pi will continue from here")
        if screen.can_resume:
            screen.app.push_screen(
                ConfirmModal(
                    "Resume pi now?",
                    Text("Start pi on this branch now? (Esc: stay here)"),
                    confirm_label="Resume",
                    danger=False,
                ),
                callback=lambda ok: call_if(ok, screen.resume_now),
            )

    # ---------------------------------------------------------------------------- labels
    def ask_label(self, uid: str, label: str | None) -> None:
        """Ask for the label of entry ``uid`` (``label``: the one it has), then write it."""
        screen, session = self.screen, self.screen.session
        meta = session.get(uid) if session is not None else None
        if meta is not None and meta.id is None:
            screen.notify("This entry has no id, so it cannot carry a label", severity="warning")
            return
        screen.app.push_screen(
            TextInputModal(
                "Label (empty to remove)",
                value=label or "",
                hint="Enter to save · Esc/Ctrl+C to cancel",
                allow_empty=True,
            ),
            callback=lambda text: self._label_typed(uid, text),
        )

    def _label_typed(self, uid: str, text: str | None) -> None:
        if text is not None:  # "" clears the label; None is a cancel
            self.label(uid, text)

    def label(self, uid: str, label: str, force: bool = False, undoing: bool = False) -> None:
        self._run(self._write_label(uid, label, force, undoing))

    async def _write_label(self, uid: str, label: str, force: bool, undoing: bool) -> None:
        previous: list[str | None] = []
        entries = actions.label_build(uid, label or None, clock=self.screen.clock())

        def build(session: Session) -> list[dict[str, Any]]:
            made = entries(session)  # (it refuses an entry that is gone or has no id)
            target = session.get(uid)
            previous.append(session.labels.get(target.id) if target and target.id else None)
            return made

        written = await self._append(
            "Label not saved",
            build,
            force=force,
            retry=lambda: self.label(uid, label, True, undoing),
        )
        if written and not undoing:
            self.screen.state.undo.append(UndoStep("label", uid, previous[0] if previous else None))
        elif written:
            self.screen.notify("Label change undone")

    # ---------------------------------------------------------------------------- undo, extract
    def undo(self) -> None:
        step = self.screen.state.take_undo()
        if step is None:
            self.screen.notify("Nothing to undo")
            return
        if step.kind == "label" and step.target is not None:
            self.label(step.target, step.previous or "", undoing=True)
        elif step.kind == "switch":
            self.switch(step.target, None, undoing=True)
        elif step.kind == "prune":
            self.screen.pruning.undo(step)

    def extract(self, uid: str) -> None:
        self._run(self._extract(uid))

    async def _extract(self, uid: str) -> None:
        screen = self.screen
        async with screen.io_lock:
            session = screen.session
            if session is None or session.get(uid) is None:
                return
            try:
                extracted = await asyncio.to_thread(actions.extract, session, uid)
            except (WriteError, SessionError, OSError) as exc:
                self._notify_error(f"Not extracted: {exc}")
                return
        screen.notify(
            one_line(f"Branch saved as a new session: {shorten_home(extracted.path)}", 300),
            timeout=8,
        )
        body = Text("Open it now? (Esc: stay here; it is in the picker too)\n\n")
        body.append(one_line(shorten_home(extracted.path), 300), "dim")
        screen.app.push_screen(
            ConfirmModal("Open the new session?", body, confirm_label="Open", danger=False),
            callback=lambda ok: call_if(ok, lambda: screen.open_other(extracted.path)),
        )
