"""The shape of the tree selector's visible rows: parents, children, indentation, prefixes.

Given the flattened rows of a session (:mod:`pitui.core.tree_rows`) and which of them a filter,
a search and the folds leave visible, :class:`VisibleTree` answers what pi's tree draws for each
visible row (spec/ui-behaviour.md §3.4) and where the fold keys jump (§3.11). Nothing walks
every entry: the visible rows are a sorted list, so "the visible rows below row r" is a binary
search, and the ancestors of a row inside its chain are the contiguous range ``[chain start, r]``
(one step per branch point, not per entry). Layouts are memoised until the visible rows change,
which is when :class:`~pitui.core.treeview.TreeView` builds a new :class:`VisibleTree`.

Indexes named ``index`` are positions in the visible rows; ``row`` is a row of the flat tree.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Container
from typing import NamedTuple

from pitui.core.tree_rows import FlatTree

__all__ = ["ROW_TEXT_COLUMNS", "Layout", "VisibleTree", "prefix_cap", "subtree_end"]

#: Columns a row keeps for its text however deep it is (its prefix is capped: see ``prefix``).
ROW_TEXT_COLUMNS = 40
#: The pointer (``› ``) and the active marker (``• ``) a row draws besides its prefix.
_ROW_MARKS = 4


def prefix_cap(width: int) -> int:
    """The most columns a row's prefix may take when the row is ``width`` columns wide."""
    return max(7, width - _ROW_MARKS - ROW_TEXT_COLUMNS)


def subtree_end(flat: FlatTree, row: int) -> int:
    """Where the subtree of ``row`` ends (exclusive): where its chain's subtree ends."""
    return flat.chain_end[flat.chain_of[row]]


class Layout(NamedTuple):
    """Indentation of one visible row (§3.4)."""

    indent: int
    just_branched: bool
    connector: bool  # pi's showConnector: the visible parent has several visible children
    is_last: bool
    gutters: tuple[tuple[int, bool], ...]  # (position, draw "│")
    virtual_root: bool  # a root in multi-root mode (never draws its connector)


class VisibleTree:
    """The visible rows ``vis`` (ascending rows of ``flat``) as a tree."""

    __slots__ = ("_chain_of", "_chain_parent", "_end", "_layouts", "flat", "multi", "vis")

    def __init__(self, flat: FlatTree, vis: list[int]) -> None:
        self.flat = flat
        self.vis = vis
        self._chain_of = flat.chain_of
        self._chain_parent = flat.chain_parent
        self._layouts: dict[int, Layout] = {}
        chain_end, chain_of = flat.chain_end, flat.chain_of

        def end(row: int) -> int:
            return chain_end[chain_of[row]]

        self._end = end
        #: several visible roots (pi's multi-root mode): the first visible subtree is not all
        self.multi = bool(vis) and bisect_left(vis, end(vis[0])) < len(vis)

    # ------------------------------------------------------------------------- ancestors

    def real_parent(self, row: int) -> int:
        """The row of the entry's parent (-1: a root)."""
        start = self._chain_of[row]
        return row - 1 if row > start else self._chain_parent[start]

    def nearest(self, row: int) -> int:
        """Visible index of ``row`` or its nearest visible ancestor, else the last row."""
        found = self.ancestor_or_self(row)
        return found if found >= 0 else len(self.vis) - 1

    def ancestor_or_self(self, row: int) -> int:
        """Visible index of the nearest visible ancestor-or-self of ``row`` (-1: none).

        The ancestors of ``row`` inside its chain are the rows ``[chain start, row]``: one binary
        search per chain instead of one step per entry."""
        vis = self.vis
        chain_of, chain_parent = self._chain_of, self._chain_parent
        while row >= 0:
            start = chain_of[row]
            index = bisect_right(vis, row) - 1
            if index >= 0 and vis[index] >= start:
                return index
            row = chain_parent[start]
        return -1

    def index_of_row(self, row: int) -> int | None:
        """Visible index of ``row``, None when it is not visible."""
        vis = self.vis
        index = bisect_left(vis, row)
        return index if index < len(vis) and vis[index] == row else None

    # ------------------------------------------------------------------------- the visible tree

    def parent(self, index: int) -> int:
        """Visible index of the row's visible parent (its nearest visible ancestor), -1 if none."""
        parent = self.real_parent(self.vis[index])
        return self.ancestor_or_self(parent) if parent >= 0 else -1

    def first_child(self, index: int) -> int:
        vis = self.vis
        nxt = index + 1
        if nxt < len(vis) and vis[nxt] < self._end(vis[index]):
            return nxt
        return -1

    def next_sibling(self, child: int, parent: int) -> int:
        """The visible row after ``child`` under the same visible parent (-1: none)."""
        vis = self.vis
        after = bisect_left(vis, self._end(vis[child]), child + 1)
        limit = self._end(vis[parent]) if parent >= 0 else None
        if after < len(vis) and (limit is None or vis[after] < limit):
            return after
        return -1

    def children(self, index: int) -> list[int]:
        """Visible indexes of the visible children of a row, in row order."""
        kids = []
        child = self.first_child(index)
        while child >= 0:
            kids.append(child)
            child = self.next_sibling(child, index)
        return kids

    def branches(self, index: int) -> bool:
        """More than one visible child (only two binary searches, whatever the fan-out)."""
        first = self.first_child(index)
        return first >= 0 and self.next_sibling(first, index) >= 0

    def chain_head(self, index: int) -> int:
        """First visible row of the chain segment holding visible row ``index``: the rows from it
        to ``index`` are each the only visible child of the previous one."""
        return bisect_left(self.vis, self._chain_of[self.vis[index]], 0, index + 1)

    def is_foldable(self, index: int) -> bool:
        """Has visible children and is a root or the first row of a branch (§3.11)."""
        if self.first_child(index) < 0:
            return False
        parent = self.parent(index)
        return parent < 0 or self.branches(parent)

    # ------------------------------------------------------------------------- indentation

    def layout(self, index: int) -> Layout:
        """Indent, connector, last-sibling flag and gutters of a visible row (§3.4)."""
        memo = self._layouts
        done = memo.get(index)
        if done is not None:
            return done
        pending = [index]
        while pending:
            current = pending[-1]
            if current in memo:
                pending.pop()
                continue
            head = self.chain_head(current)
            if current >= head + 2:
                # deep inside a chain: the same layout as the second row of the segment
                if head + 1 not in memo:
                    pending.append(head + 1)
                    continue
                memo[current] = memo[head + 1]
                pending.pop()
                continue
            parent = head if current == head + 1 else self.parent(current)
            if parent >= 0 and parent not in memo:
                pending.append(parent)
                continue
            memo[current] = self._derive_layout(current, parent)
            pending.pop()
        return memo[index]

    def display_indent(self, layout: Layout) -> int:
        return max(0, layout.indent - 1) if self.multi else layout.indent

    def _derive_layout(self, index: int, parent: int) -> Layout:
        vis = self.vis
        if parent < 0:
            multi = self.multi
            last = bisect_left(vis, self._end(vis[index]), index + 1) >= len(vis)
            return Layout(1 if multi else 0, multi, multi, last, (), multi)
        above = self._layouts[parent]
        several = self.branches(parent)
        indent = above.indent
        if several or (above.just_branched and indent > 0):
            indent += 1
        gutters = above.gutters
        if above.connector and not above.virtual_root:
            position = max(0, self.display_indent(above) - 1)
            gutters = (*gutters, (position, not above.is_last))
        last = not several or self.next_sibling(index, parent) < 0
        return Layout(indent, several, several, last, gutters, False)

    def prefix(self, index: int, folded: Container[str], cap: int | None = None) -> str:
        """The connector and gutter cells of a row (§3.4), 3 characters per display level;
        ``folded`` holds the uids of the folded rows (their connector shows ``⊞``).

        With ``cap``, a prefix longer than ``cap`` characters keeps its innermost levels behind
        a marker that says how deep the row is (``┊12 ``): in a deep tree every branch point
        above a row costs 3 columns, and the rows' own text would be all gutters. A prefix that
        fits is pi's, unchanged."""
        lay = self.layout(index)
        width = self.display_indent(lay)
        if width == 0:
            return ""
        full = self._prefix_cells(index, lay, width, folded)
        if cap is None or 3 * width <= cap:
            return "".join(full)
        marker = f"┊{width} "
        keep = max(1, (cap - len(marker)) // 3)
        return marker + "".join(full[width - keep :])

    def _prefix_cells(
        self, index: int, lay: Layout, width: int, folded: Container[str]
    ) -> list[str]:
        cells = ["   "] * width
        taken: set[int] = set()
        for position, draw in lay.gutters:
            if position not in taken and position < width:  # pi uses the first gutter found
                taken.add(position)
                cells[position] = "│  " if draw else "   "
        if lay.connector and not lay.virtual_root and width - 1 not in taken:
            if self.flat.rows[self.vis[index]].uid in folded:
                fold = "⊞"
            else:
                fold = "⊟" if self.is_foldable(index) else "─"
            cells[width - 1] = ("└" if lay.is_last else "├") + fold + " "
        return cells

    # ------------------------------------------------------------------------- fold-key jumps

    def segment_start_up(self, selected: int) -> int:
        """Where ``ctrl+left`` goes when it does not fold: the previous segment start (or the
        root) above ``selected`` (§3.11)."""
        current = selected
        while True:
            # inside a chain segment no row's parent branches: skip to its head at once
            current = self.chain_head(current)
            parent = self.parent(current)
            if parent < 0:
                return current
            if current < selected and self.branches(parent):
                return current
            current = parent

    def segment_start_down(self, selected: int) -> int:
        """Where ``ctrl+right`` goes when it does not unfold: the next segment start or the end
        of the branch (§3.11)."""
        vis = self.vis
        chain_last, chain_of = self.flat.chain_last, self._chain_of
        current = selected
        while True:
            # follow the rest of this real chain in one step: each row there has one child
            last_row = chain_last[chain_of[vis[current]]]
            deepest = bisect_right(vis, last_row) - 1
            if deepest > current:
                current = deepest
            first = self.first_child(current)
            if first < 0:
                return current
            if self.next_sibling(first, current) >= 0:
                return first
            current = first
