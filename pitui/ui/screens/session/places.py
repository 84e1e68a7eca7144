"""The session view's ways of getting somewhere: back and forward through the history, the leaf
and the leaf before this branch, and the two panes (tab between them, zoom one, size the tree).

Like :mod:`.writes`, a helper the screen's actions call; the rules themselves are plain state in
:mod:`.state` (the history, the previous leaf) and :mod:`.panes` (the layout).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pitui.ui.screens.session import panes
from pitui.ui.screens.session.panes import PaneLayout
from pitui.ui.screens.session.state import previous_leaf

if TYPE_CHECKING:
    from pitui.ui.screens.session.screen import SessionScreen


class SessionPlaces:
    def __init__(self, screen: SessionScreen) -> None:
        self.screen = screen
        settings = screen.settings
        self.layout = PaneLayout(settings.tree_width, settings.tree_height, settings.session_panes)

    def _ready(self, action: str) -> bool:
        """A session is shown (in the raw-lines view the key says why it does nothing)."""
        screen = self.screen
        return not screen._not_a_session(action) and screen.session is not None

    # ---------------------------------------------------------------------------- going places
    def go_in_history(self, *, forward: bool) -> None:
        screen, session = self.screen, self.screen.session
        if not self._ready("forward" if forward else "back") or session is None:
            return
        history = screen.state.history

        def in_file(uid: str) -> bool:  # (a file read again may have lost it)
            return session.get(uid) is not None

        uid = history.forward(in_file) if forward else history.back(in_file)
        if uid is None:
            screen.notify("Nothing further forward" if forward else "Nothing further back")
            return
        screen.branch_tree.select_uid(uid, how="history", reveal=True)

    def leaf(self) -> None:
        screen, session = self.screen, self.screen.session
        if not self._ready("leaf") or session is None:
            return
        if session.leaf is None:
            screen.notify("This session has no leaf yet: pi starts a new root", severity="warning")
            return
        screen.branch_tree.select_uid(session.leaf.uid, reveal=True)

    def previous_leaf(self) -> None:
        screen, session = self.screen, self.screen.session
        if not self._ready("previous_leaf") or session is None:
            return
        meta = previous_leaf(session)
        if meta is None:
            screen.notify("No previous leaf: this session has one branch")
            return
        screen.branch_tree.select_uid(meta.uid, reveal=True)
        screen.notify("The leaf before this branch: enter continues from there")

    # ---------------------------------------------------------------------------- the panes
    @property
    def stacked(self) -> bool:
        """The context pane is under the tree (a narrow terminal)."""
        return self.screen.has_class("-narrow")

    def lay_out(self) -> None:
        screen = self.screen
        if screen.session is None:
            return  # (the raw-lines view and a file that failed have one pane)
        panes.apply(self.layout, screen.query_one("#tree-pane"), screen.context_pane,
                    stacked=self.stacked)  # fmt: skip

    def other_pane(self) -> None:
        """Tab: the tree ⇄ the context pane (zoomed: the other one, zoomed)."""
        screen = self.screen
        if screen.session is None:
            return
        if self.layout.panes != "both":
            self._show(self.layout.other())
        elif screen.branch_tree.has_focus:
            screen.context_lines.focus()
        else:
            screen.branch_tree.focus()

    def zoom(self) -> None:
        if self._ready("zoom"):
            self._show(
                self.layout.zoom("context" if self.screen.context_lines.has_focus else "tree")
            )

    def resize_tree(self, step: int) -> None:
        if not self._ready("resize_tree"):
            return
        share = self.layout.resize(step, stacked=self.stacked)
        self._show("both")
        along = "height" if self.stacked else "width"
        self.screen.notify(f"Tree: {share}% of the {along}", timeout=2)

    def _show(self, shown: panes.Panes) -> None:
        screen = self.screen
        self.lay_out()
        if shown == "context":
            screen.context_lines.focus()
        elif shown == "tree" or not screen.context_lines.has_focus:
            screen.branch_tree.focus()
        uid = screen.branch_tree.selected_uid
        if shown != "tree" and uid is not None and screen.session is not None:
            screen.context_pane.show_entry(screen.session, uid)  # (not built while hidden)

    def for_tree(self, action: str, text: str) -> None:
        """A key pressed in the context pane that belongs to the tree: act there, focused."""
        screen = self.screen
        if screen.session is None:
            return
        tree = screen.branch_tree
        if self.layout.panes == "context":  # (zoomed: the tree comes back, zoomed)
            self._show(self.layout.other())
        tree.focus()
        if action == "type":
            tree.type_text(text)
        elif action == "edit_label":
            tree.action_edit_label()
        elif action == "toggle_label_times":
            tree.action_toggle_label_times()
