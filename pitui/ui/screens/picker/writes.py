"""The picker's writes: delete (to the trash), rename, their undo, and pins.

Each one asks first where pi does (a modal), writes through :mod:`pitui.core.actions` (the guards
every writer shares; a picker delete is a trash batch ``pitui restore`` gives back) in a thread
worker of the ``write`` group, and tells the screen what changed (it drops or re-reads the
sessions and says so in the status line). A pin is pitui's own data (:mod:`pitui.core.pins`),
never written to the session.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text

from pitui.core import trash
from pitui.core.paths import shorten_home
from pitui.core.pins import PinError
from pitui.render.safe_text import one_line
from pitui.ui.catalog import PickerItem
from pitui.ui.modals import call_if
from pitui.ui.modals.confirm import ConfirmModal
from pitui.ui.modals.text_input import TextInputModal
from pitui.ui.screens.picker.state import UndoStep, display_title

if TYPE_CHECKING:
    from pitui.ui.screens.picker.screen import PickerScreen


class PickerWrites:
    """The write flows of one picker screen (its state, status line and reloads)."""

    def __init__(self, screen: PickerScreen) -> None:
        self.screen = screen

    def _in_thread(self, name: str, work: Callable[[], None]) -> None:
        self.screen.run_worker(work, name=name, group="write", thread=True, exit_on_error=False)

    def _later(self, callback: Callable[..., object], *args: object) -> None:
        """Run ``callback`` on the event loop (from a worker thread)."""
        self.screen.app.call_from_thread(callback, *args)

    # -------------------------------------------------------------------------------- delete
    def delete(self, item: PickerItem, row_key: str) -> None:
        """Ask, then move ``item`` to the trash (``row_key``: its row, marked meanwhile)."""
        screen = self.screen
        screen.confirm_delete(row_key)
        body = Text("Move this session to the trash?\n\n")
        body.append(one_line(display_title(item), 200), "bold")
        body.append(f"\n{one_line(shorten_home(item.path))}", "dim")
        screen.app.push_screen(
            ConfirmModal("Delete session?", body, confirm_label="Move to trash"),
            callback=lambda ok: self._delete_answered(item, bool(ok)),
        )

    def _delete_answered(self, item: PickerItem, ok: bool) -> None:
        self.screen.confirm_delete(None)
        if ok:
            self._in_thread("delete", lambda: self._trash(item))

    def _trash(self, item: PickerItem) -> None:
        from pitui.core import actions  # (the write layer is not needed to show the list)

        outcome = actions.trash([item.path])
        if outcome.failed:
            self._later(self._trash_failed, item, outcome.failed[0][1])
            return
        self._later(self._trashed, item, outcome.trashed[0][1])

    def _trashed(self, item: PickerItem, trashed: trash.TrashedItem | None) -> None:
        screen = self.screen
        screen.state.undo.append(UndoStep("delete", item.path, trashed=trashed))
        screen.forget(item.path)
        screen.show_status("Session moved to trash")
        screen.reload_visible()

    def _trash_failed(self, item: PickerItem, reason: str) -> None:
        self.screen.show_status(f"Failed to delete: {reason}", "error")
        body = Text()
        body.append_text(Text(one_line(reason, 400)))
        body.append("\n\nDelete it permanently instead? This cannot be undone.\n\n", "bold")
        body.append(one_line(display_title(item), 200))
        self.screen.app.push_screen(
            ConfirmModal(
                "The trash did not take the session", body, confirm_label="Delete forever"
            ),
            callback=lambda ok: call_if(
                ok, lambda: self._in_thread("delete forever", lambda: self._delete_forever(item))
            ),
        )

    def _delete_forever(self, item: PickerItem) -> None:
        try:
            trash.delete_permanently(item.path)
        except trash.TrashError as exc:
            self._later(self.screen.show_status, f"Failed to delete: {exc}", "error")
            return
        self._later(self._deleted_forever, item)

    def _deleted_forever(self, item: PickerItem) -> None:
        self.screen.forget(item.path)
        self.screen.show_status("Session deleted")
        self.screen.reload_visible()

    # -------------------------------------------------------------------------------- rename
    def rename(self, item: PickerItem) -> None:
        self.screen.app.push_screen(
            TextInputModal(
                "Rename Session",
                value=item.name or "",
                hint="Enter to save · Esc/Ctrl+C to cancel",
            ),
            callback=lambda name: call_if(bool(name), lambda: self._rename(item.path, name or "")),
        )

    def _rename(
        self, path: str, name: str, force: bool = False, undo: UndoStep | None = None
    ) -> None:
        self._in_thread("rename", lambda: self._write_name(path, name, force, undo))

    def _write_name(self, path: str, name: str, force: bool, undo: UndoStep | None) -> None:
        # imported here: the write layer (pydantic models) is not needed to show the list
        from pitui.core import actions
        from pitui.core.session import Session, SessionError

        try:
            with Session.open(path) as session:
                previous = session.name
                self.screen.marks.own_write(path, time.monotonic())
                # (an undo right after the rename is not refused as "pi wrote seconds ago":
                # actions knows the file is as its own last write left it)
                actions.rename(session, name, force=force)
        except actions.FileBusyError as exc:
            self._later(self._confirm_busy, str(exc), partial(self._rename, path, name, True, undo))
            return
        except (actions.WriteError, SessionError, OSError) as exc:
            self._later(self.screen.show_status, f"Failed to rename: {exc}", "error")
            return
        self._later(self._renamed, path, previous, undo)

    def _confirm_busy(self, reason: str, retry: Callable[[], object]) -> None:
        body = Text(
            one_line(reason, 400) + "\n\nWrite anyway? pi will read it, but a write while pi is "
            "mid-reply can leave your entry on a side branch."
        )
        self.screen.app.push_screen(
            ConfirmModal(
                "pi may be writing this session", body, confirm_label="Write anyway", danger=False
            ),
            callback=lambda ok: call_if(ok, retry),
        )

    def _renamed(self, path: str, previous: str | None, undo: UndoStep | None) -> None:
        screen = self.screen
        if undo is None:
            screen.state.undo.append(UndoStep("rename", path, previous_name=previous))
        screen.show_status("Session renamed" if undo is None else "Rename undone")
        screen.reload_visible(keep=path)

    # ---------------------------------------------------------------------------------- undo
    def undo(self) -> None:
        screen = self.screen
        if not screen.state.undo:
            screen.show_status("Nothing to undo")
            return
        step = screen.state.undo.pop()
        if step.kind == "rename":
            if not os.path.exists(step.path):
                screen.show_status("The renamed session is gone; nothing to undo", "error")
                return
            self._rename(step.path, step.previous_name or "", False, step)
            return
        if not trash.restore_supported():
            screen.show_status(
                "Undo is not available on this platform: restore it from the trash", "error"
            )
            return
        self._in_thread("restore", lambda: self._restore(step))

    def _restore(self, step: UndoStep) -> None:
        from pitui.core import actions

        try:
            # the file appearing again is our write, not pi working in it: no live mark
            self.screen.marks.own_write(step.path, time.monotonic())
            actions.restore(step.path, step.trashed)
        except trash.TrashError as exc:
            self._later(self.screen.show_status, f"Cannot undo: {exc}", "error")
            return
        self._later(self._restored, step.path)

    def _restored(self, path: str) -> None:
        self.screen.show_status("Session restored from the trash")
        self.screen.reload_visible(keep=path)

    # ---------------------------------------------------------------------------------- pins
    def toggle_pin(self, item: PickerItem) -> None:
        """Pin ``item`` to the top of its scope, or unpin it."""
        screen = self.screen
        title = one_line(display_title(item), 40)
        try:
            pinned = screen.pins.toggle(item.path)
        except PinError as exc:
            screen.show_status(f"Could not pin: {exc}", "error")
            return
        screen.state.pinned = frozenset(screen.pins.load())
        screen.show_status(f"Pinned {title}" if pinned else f"Unpinned {title}")
        screen.refilter(keep=item.path)
