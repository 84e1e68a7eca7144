"""The session view's own state, apart from the widgets: follow mode, the session's facts shown
in the header, the undo stack, the back/forward history, and where the selection stands relative
to the leaf (and to the leaf before it). Plain classes over the core, tested without Textual.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pitui.core.live_facts import LiveFacts
from pitui.core.session import EntryMeta, Session
from pitui.core.trash import TrashedItem
from pitui.core.treeview import TreeView


@dataclass(frozen=True, slots=True)
class UndoStep:
    """One write the user can take back: a label change, a branch switch or a prune."""

    kind: Literal["label", "switch", "prune"]
    target: str | None  # label: the entry's uid; switch: the previous leaf's uid; prune: the top
    previous: str | None = None  # label: the previous label
    original: TrashedItem | None = None  # prune: the original file, in the trash


@dataclass(slots=True)
class History:
    """The entries visited, for back and forward as in a browser.

    A *jump* (a branch jump, Home/End, the leaf keys, a click, a branch switch) is a new stop. A
    *step* (up/down, a page, the selection following a search, a filter or pi's new entries) is
    not a stop of its own: a run of steps is one stop, the place the walk ended. Going back then
    moving (a jump, or the first step of a walk) drops the stops ahead, as a browser does.
    """

    LIMIT = 1000

    stops: list[str] = field(default_factory=list)  # entry uids, oldest first
    at: int = -1  # the stop shown now
    walking: bool = False  # the stop shown now is where a run of steps stands

    def visit(self, uid: str, *, jump: bool) -> None:
        """The selection moved to ``uid`` (by a jump, or by a step)."""
        if self.at >= 0 and self.stops[self.at] == uid:
            return
        if not jump and self.walking and self.at == len(self.stops) - 1:
            self.stops[self.at] = uid  # the walk goes on: its stop moves with it
            return
        del self.stops[self.at + 1 :]
        self.stops.append(uid)
        if len(self.stops) > self.LIMIT:
            del self.stops[0]
        self.at = len(self.stops) - 1
        self.walking = not jump

    def back(self, exists: Callable[[str], bool]) -> str | None:
        """The stop before this one that still ``exists`` (it becomes the stop shown), or None."""
        return self._go(-1, exists)

    def forward(self, exists: Callable[[str], bool]) -> str | None:
        return self._go(1, exists)

    def _go(self, step: int, exists: Callable[[str], bool]) -> str | None:
        index = self.at + step
        while 0 <= index < len(self.stops):
            if exists(self.stops[index]):
                self.at, self.walking = index, False
                return self.stops[index]
            del self.stops[index]  # gone from the file (it was read again): forget it
            if step < 0:
                self.at -= 1
                index -= 1
        return None

    @property
    def position(self) -> tuple[int, int]:
        """(stops behind, stops ahead) of the one shown now."""
        return max(self.at, 0), len(self.stops) - 1 - self.at


@dataclass(slots=True)
class SessionState:
    follow: bool  # the selection moves to each new leaf pi writes (while it is on the leaf)
    facts: LiveFacts | None = None  # None: still counting
    undo: list[UndoStep] = field(default_factory=list)
    history: History = field(default_factory=History)

    def recount(self, session: Session) -> None:
        """The facts from scratch (at the start, after a reload; any thread, index still)."""
        self.facts = LiveFacts.count(session)

    def count_new(self, session: Session, new: Sequence[EntryMeta]) -> None:
        """Bring the facts up to date with ``new`` appended entries (once counted at all)."""
        if self.facts is not None:
            self.facts = self.facts.grown(session, new)

    def take_undo(self) -> UndoStep | None:
        return self.undo.pop() if self.undo else None


def selection_at_leaf(model: TreeView, selected: str | None) -> bool:
    """Whether the selected row is the leaf (or, when the leaf is hidden, its nearest visible
    ancestor: where the tree puts the selection for the leaf)."""
    node = model.leaf
    while node is not None and selected is not None:
        if model.index_of(node.uid) is not None:
            return node.uid == selected
        node = node.parent
    return False


def previous_leaf(session: Session) -> EntryMeta | None:
    """Where pi stood before it came to the current branch: the last entry written (in file
    order) that is not on the active path. pi only appends, so that entry was the leaf when
    pi (or a pitui switch, or pi's ``/tree``) moved to another branch; None with one branch."""
    active = {id(meta) for meta in session.path_to(session.leaf)}
    for meta in reversed(session.entries):
        if id(meta) not in active:
            return meta
    return None
