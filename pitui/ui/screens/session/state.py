"""The session view's own state, apart from the widgets: follow mode, the session's facts shown
in the header, the undo stack, and where the selection stands relative to the leaf. Plain
classes over the core, tested without Textual.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pitui.core.live_facts import LiveFacts
from pitui.core.session import EntryMeta, Session
from pitui.core.treeview import TreeView


@dataclass(frozen=True, slots=True)
class UndoStep:
    """One write the user can take back: a label change or a branch switch."""

    kind: Literal["label", "switch"]
    target: str | None  # label: the entry's uid; switch: the previous leaf's uid
    previous: str | None = None  # label: the previous label


@dataclass(slots=True)
class SessionState:
    follow: bool  # the selection moves to each new leaf pi writes (while it is on the leaf)
    facts: LiveFacts | None = None  # None: still counting
    undo: list[UndoStep] = field(default_factory=list)

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
