"""The session view's branch diff: the entry marked to compare, and opening the diff screen.

``alt+m`` marks the selected entry (again: clears the mark); its row in the tree shows ``◆``.
``alt+d`` compares the marked entry (A) with the selected one (B); without a mark, the leaf (the
active branch) is A. The two sides are read in a thread under the view's lock on the index, so
an append from pi never changes the tree halfway through a read.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from pitui.core.diff import BranchDiff, branch_diff
from pitui.render.safe_text import one_line
from pitui.ui.commands import COMMANDS, effective_keys
from pitui.ui.screens.diff import DiffScreen
from pitui.ui.widgets.tree_row import DIFF_MARK

if TYPE_CHECKING:
    from pitui.ui.screens.session.screen import SessionScreen

__all__ = ["DiffMark"]


class DiffMark:
    """The mark of one session screen (a uid) and the diff it opens."""

    def __init__(self, screen: SessionScreen) -> None:
        self.screen = screen
        self.uid: str | None = None

    def _key(self, command_id: str) -> str:
        command = next(c for c in COMMANDS if c.id == command_id)
        return effective_keys(command, self.screen.settings.keymap).split(",")[0]

    def toggle(self, uid: str | None) -> None:
        """Mark ``uid``, or clear the mark when it is the marked one."""
        session = self.screen.session
        meta = session.get(uid) if session is not None and uid is not None else None
        if meta is None:
            return
        if self.uid == meta.uid:
            self.clear()
            self.screen.notify("Mark cleared")
            return
        self.uid = meta.uid
        self.screen.branch_tree.set_marked(meta.uid)
        self.screen.notify(
            f"Marked {one_line(meta.uid)} ({DIFF_MARK} in its row): "
            f"{self._key('session.diff')} compares it with the selected entry "
            f"({self._key('session.mark')} on it again unmarks)",
            markup=False,
        )

    def clear(self) -> None:
        self.uid = None
        self.screen.branch_tree.set_marked(None)

    def open(self, selected: str | None) -> None:
        """The diff screen for the mark (or the leaf) and ``selected``."""
        screen = self.screen
        session = screen.session
        if session is None or selected is None:
            return
        screen.app.clear_notifications()  # (the mark's hint is done with)
        first = self.uid
        if first is not None and session.get(first) is None:
            self.clear()  # the file was replaced and the entry is gone
            screen.notify("The marked entry is no longer in the file", severity="warning")
            return
        if first is None:
            first = session.leaf_id
            screen.notify(
                f"Comparing with the leaf (no entry marked: {self._key('session.mark')} marks one)"
            )
        if first is None:
            return
        a_uid, b_uid = first, selected

        async def compute() -> BranchDiff:
            async with screen.io_lock:
                a, b = session.get(a_uid), session.get(b_uid)
                if a is None or b is None:
                    raise LookupError("the entry is no longer in the file")
                return await asyncio.to_thread(branch_diff, session, a, b)

        screen.app.push_screen(DiffScreen(compute))
