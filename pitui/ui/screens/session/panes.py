"""How the session view shares its room between the tree and the context pane: side by side
(the tree's share of the width) or, on a narrow terminal, one above the other (its share of the
height), and which panes show (both, or one zoomed to the whole view).

:class:`PaneLayout` is plain state with the rules of the keys (tested without Textual);
:func:`apply` sets the two panes' styles from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from textual.widget import Widget

Panes = Literal["both", "tree", "context"]
SHARE_STEP = 10
SHARE_MIN, SHARE_MAX = 20, 80


@dataclass(slots=True)
class PaneLayout:
    tree_width: int = 50  # percent of the width, side by side
    tree_height: int = 60  # percent of the height, stacked (narrow terminals)
    panes: Panes = "both"

    def resize(self, step: int, *, stacked: bool) -> int:
        """Give the tree ``step`` points more (or fewer) of the room in use; the new share.
        Zoomed, the two panes come back first."""
        self.panes = "both"
        share = (self.tree_height if stacked else self.tree_width) + step
        share = max(SHARE_MIN, min(SHARE_MAX, share))
        if stacked:
            self.tree_height = share
        else:
            self.tree_width = share
        return share

    def zoom(self, focused: Literal["tree", "context"]) -> Panes:
        """The pane with focus fills the view; again, both panes show."""
        self.panes = focused if self.panes == "both" else "both"
        return self.panes

    def other(self) -> Panes:
        """Tab while zoomed: the other pane, zoomed."""
        self.panes = "context" if self.panes == "tree" else "tree"
        return self.panes


def apply(layout: PaneLayout, tree: Widget, context: Widget, *, stacked: bool) -> None:
    """Show and size the two panes as ``layout`` says."""
    tree.display = layout.panes != "context"
    context.display = layout.panes != "tree"
    share = layout.tree_height if stacked else layout.tree_width
    along, across = ("height", "width") if stacked else ("width", "height")
    setattr(tree.styles, along, f"{share}fr")
    setattr(context.styles, along, f"{100 - share}fr")
    setattr(tree.styles, across, "1fr")
    setattr(context.styles, across, "1fr")
