"""pi's tree selector (``/tree``) as a model: rows, filters, search, folding, selection, row text.

Everything here follows spec/ui-behaviour.md §3; a widget draws what :class:`TreeView` says and
forwards keys to its methods, and tests drive it without any UI.

A session can be a chain 100,000 entries deep, so nothing recurses and no filter change walks the
tree in Python:

- The tree is flattened once per leaf into *rows* (:mod:`pitui.core.tree_rows`; pi's order: the
  branch holding the leaf first at every node). Because the active child always comes first, the
  active path is exactly rows ``0 .. leaf_row``.
- Rows are grouped into *chains*: runs of entries where each has exactly one child. In pre-order a
  chain is a contiguous range of rows, so "the ancestors of row r inside its chain" is the range
  ``[chain_start(r), r]`` and every subtree ends where its chain's subtree ends.
- A filter change only computes the sorted list of visible rows, with C-speed byte operations
  (``bytes.translate``, slice assignment, ``itertools.compress``). Visible parents, children and
  the indentation of §3.4 are derived on demand for the rows actually drawn or navigated
  (:mod:`pitui.core.tree_shape`), with binary searches over the visible rows and a walk over
  chains (one step per branch point, not per entry), memoised until the next change.

Entry content (message text, tool call arguments) is not in the index: it is read with
:meth:`Session.raw` for the rows that are drawn and cached (how a row reads:
:class:`pitui.core.tree_text.RowTexts`). Search needs the text of every entry
(:mod:`pitui.core.tree_search`): :meth:`TreeView.compute_search_texts` builds it (meant for a
worker thread) and :meth:`TreeView.set_search_texts` installs it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from itertools import compress
from typing import Final, Literal

from pitui.core.js import parse_iso_ms
from pitui.core.session import EntryMeta, Session
from pitui.core.tree_rows import FlatTree, extend_at_leaf, filter_mask, flatten
from pitui.core.tree_search import RowMatcher, SearchIndex, read_search_index
from pitui.core.tree_shape import ROW_TEXT_COLUMNS, Layout, VisibleTree, prefix_cap, subtree_end
from pitui.core.tree_text import RowTexts, TextPart, query_words, spaces_for_controls
from pitui.core.units import format_label_time

__all__ = [
    "FILTER_MODES",
    "FILTER_TAGS",
    "ROW_TEXT_COLUMNS",
    "FilterMode",
    "Layout",
    "RowView",
    "TreeView",
    "prefix_cap",
    "typeable",
]

FilterMode = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
#: The order ``ctrl+o`` cycles through (§3.8).
FILTER_MODES: Final[tuple[FilterMode, ...]] = (
    "default",
    "no-tools",
    "user-only",
    "labeled-only",
    "all",
)
FILTER_TAGS: Final[dict[FilterMode, str]] = {
    "default": "",
    "no-tools": " [no-tools]",
    "user-only": " [user]",
    "labeled-only": " [labeled]",
    "all": " [all]",
}
LABEL_TIME_TAG: Final = " [+label time]"


@dataclass(frozen=True, slots=True)
class RowView:
    """Everything a widget needs to draw one visible row; :meth:`plain` is the row as text."""

    index: int
    uid: str
    selected: bool
    prefix: str  # connectors and gutters (dim)
    fold_marker: bool  # "⊞ " (accent): folded row that shows no connector
    active: bool  # "• " (accent): on the active path
    label: str | None  # "[label] " (warning)
    label_time: str | None  # "<time> " (muted), only while label times are shown
    parts: tuple[TextPart, ...]

    def plain(self) -> str:
        """The whole row as pi prints it (before cutting to the width)."""
        out = ["› " if self.selected else "  ", self.prefix]
        if self.fold_marker:
            out.append("⊞ ")
        if self.active:
            out.append("• ")
        if self.label is not None:
            out.append(f"[{self.label}] ")
        if self.label_time is not None:
            out.append(f"{self.label_time} ")
        out.extend(part.text for part in self.parts)
        return "".join(out)


# ------------------------------------------------------------------------------------------------


def typeable(text: str) -> bool:
    """Text that may be typed into the tree's query (§3.10): no control character (C0, DEL, C1)."""
    return not any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in text)


class TreeView:
    """The tree selector over one session: what is visible, selected, folded, and how rows read.

    Args:
        session: the index of the file.
        leaf: the current leaf (``"default"`` = the file's leaf, ``None`` = no leaf).
        selected: uid to select first (§3.9); default the leaf.
        filter_mode: initial filter (pi's ``treeFilterMode`` setting).
        home: home directory for ``~`` in tool-call paths (default: the real one).
        now: clock for label times (tests freeze it).
    """

    def __init__(
        self,
        session: Session,
        *,
        leaf: EntryMeta | str | Literal["default"] | None = "default",
        selected: str | None = None,
        filter_mode: FilterMode = "default",
        home: str | None = None,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.session = session
        self.home = home
        self._now = now or datetime.now
        self._leaf: EntryMeta | None = self._resolve_leaf(leaf)
        self._filter: FilterMode = filter_mode
        self._query = ""
        self._tokens: list[str] = []
        self.show_label_times = False
        self._folded: dict[str, int] = {}  # uid -> row
        self.generation = 0  # bumped on every change of rows, filter, folds, labels or leaf
        self._texts = RowTexts(session, home)
        self._search: SearchIndex | None = None
        self._matcher: RowMatcher | None = None  # over the texts of the current rows
        self._labeled: list[int] | None = None  # rows with a resolved label (cached)
        self._vis: list[int] = []  # visible rows, ascending
        self._sel = 0
        self._remembered: int | None = None  # pi's lastSelectedId, as a row
        self._flatten()
        self._shape = VisibleTree(self._flat, [])
        self._apply(keep_selection=False)
        target = self._row_for_uid(selected) if selected is not None else self._leaf_row
        self._sel = self._shape.nearest(target) if self._vis else 0
        self._remembered = self._vis[self._sel] if self._vis else None

    # -------------------------------------------------------------------------- flattening

    def _resolve_leaf(self, leaf: EntryMeta | str | None) -> EntryMeta | None:
        if leaf is None:
            return None
        if isinstance(leaf, EntryMeta):
            return leaf
        if leaf == "default":
            return self.session.leaf
        return self.session.get(leaf)

    def _flatten(self) -> None:
        """Rows in pi's order (§3.3) and the chain structure (see :func:`flatten`)."""
        self._install(flatten(self.session, self._leaf))

    def _install(self, flat: FlatTree) -> None:
        self._flat = flat
        self._rows = flat.rows
        self._kinds = flat.kinds
        self._leaf_row = flat.leaf_row
        self._labeled = None
        self._matcher = None

    def _row_for_uid(self, uid: str | None) -> int:
        """Row of an entry (-1: unknown). ``list.index`` compares identities in C: a few ms for
        100k rows, cheaper than keeping a uid → row dict (building one costs ~10× more)."""
        meta = self.session.get(uid) if uid is not None else None
        if meta is None:
            return -1
        try:
            return self._rows.index(meta)
        except ValueError:
            return -1

    # -------------------------------------------------------------------------- filtering

    def _labeled_rows(self) -> list[int]:
        """Rows whose entry has a resolved label (every copy of a duplicated id shows it)."""
        if self._labeled is None:
            labels = self.session.labels
            self._labeled = (
                [row for row, meta in enumerate(self._rows) if meta.id in labels] if labels else []
            )
        return self._labeled

    def _apply(self, *, keep_selection: bool = True) -> None:
        """Recompute the visible rows, then the selection (§3.8 rule)."""
        if keep_selection and self._vis:
            self._remembered = self._vis[self._sel]
        n = len(self._rows)
        labeled = self._labeled_rows() if self._filter == "labeled-only" else []
        mask = filter_mask(self._kinds, self._filter, labeled)
        for row in self._folded.values():
            end = subtree_end(self._flat, row)
            mask[row + 1 : end] = bytes(end - row - 1)  # real descendants (§3.11)
        visible = self._matches(mask) if self._tokens else list(compress(range(n), mask))
        self._vis = visible
        self._shape = VisibleTree(self._flat, visible)
        self.generation += 1
        if not keep_selection:
            return
        if self._remembered is not None:
            self._sel = self._shape.nearest(self._remembered) if visible else 0
        elif self._sel >= len(visible):
            self._sel = max(0, len(visible) - 1)
        if visible:
            self._remembered = visible[self._sel]

    # -------------------------------------------------------------------------- the visible tree

    @property
    def count(self) -> int:
        """Number of visible rows."""
        return len(self._vis)

    @property
    def total_rows(self) -> int:
        """Number of rows before filtering (every entry of the session)."""
        return len(self._rows)

    @property
    def multi_root(self) -> bool:
        return self._shape.multi

    def entry(self, index: int) -> EntryMeta:
        """The entry of visible row ``index``."""
        return self._rows[self._vis[index]]

    def index_of(self, uid: str) -> int | None:
        """Visible index of an entry, None when it is not visible."""
        row = self._row_for_uid(uid)
        return self._shape.index_of_row(row) if row >= 0 else None

    def visible_parent(self, index: int) -> int:
        """Visible index of the row's visible parent (its nearest visible ancestor), -1 if none."""
        return self._shape.parent(index)

    def visible_children(self, index: int) -> list[int]:
        """Visible indexes of the visible children of a row, in row order."""
        return self._shape.children(index)

    def layout(self, index: int) -> Layout:
        """Indent, connector, last-sibling flag and gutters of a visible row (§3.4)."""
        return self._shape.layout(index)

    def is_foldable(self, index: int) -> bool:
        """Has visible children and is a root or the first row of a branch (§3.11)."""
        return self._shape.is_foldable(index)

    def is_folded(self, index: int) -> bool:
        return self.entry(index).uid in self._folded

    def is_active(self, index: int) -> bool:
        """On the path from the leaf to its root (independent of filters)."""
        return self._vis[index] <= self._leaf_row

    def prefix(self, index: int, cap: int | None = None) -> str:
        """The connector and gutter cells of a row (§3.4); ``cap``: see
        :meth:`VisibleTree.prefix <pitui.core.tree_shape.VisibleTree.prefix>`."""
        return self._shape.prefix(index, self._folded, cap)

    # -------------------------------------------------------------------------- rows

    def row(self, index: int, width: int | None = None) -> RowView:
        """What to draw for visible row ``index``; drawn ``width`` columns wide, its prefix is
        capped so that the row keeps :data:`ROW_TEXT_COLUMNS` for its text (None: pi's)."""
        meta = self.entry(index)
        lay = self.layout(index)
        label = self.session.labels.get(meta.id) if meta.id is not None else None
        label_time = None
        if label is not None and self.show_label_times:
            stamp = self.session.label_times.get(meta.id or "")
            label_time = format_label_time(parse_iso_ms(stamp), self._now())
        folded = meta.uid in self._folded
        return RowView(
            index=index,
            uid=meta.uid,
            selected=index == self._sel,
            prefix=self.prefix(index, None if width is None else prefix_cap(width)),
            fold_marker=folded and not (lay.connector and not lay.virtual_root),
            active=self.is_active(index),
            label=spaces_for_controls(label) if label is not None else None,
            label_time=label_time,
            parts=self.entry_text(meta),
        )

    def rows(self, start: int = 0, stop: int | None = None) -> list[RowView]:
        stop = self.count if stop is None else min(stop, self.count)
        return [self.row(index) for index in range(max(0, start), stop)]

    def render_plain(self, height: int | None = None) -> list[str]:
        """The rows window and status line as pi prints them (§3.1 point 5), for tests and dumps."""
        if not self._vis:
            return ["  No entries found", "  " + self.status_text()]
        size = self.count if height is None else height
        start = self.window_start(size)
        lines = [view.plain() for view in self.rows(start, start + size)]
        return [*lines, "  " + self.status_text()]

    def status_text(self) -> str:
        """``(<selected>/<count>)<filter tag>[ +label time]`` (without pi's two leading spaces)."""
        position = f"({self._sel + 1}/{self.count})" if self._vis else "(0/0)"
        tags = FILTER_TAGS[self._filter] + (LABEL_TIME_TAG if self.show_label_times else "")
        return position + tags

    def window_start(self, height: int) -> int:
        """pi's first visible row: the selection kept in the middle (§3.1)."""
        return max(0, min(self._sel - height // 2, self.count - height))

    def entry_text(self, meta: EntryMeta) -> tuple[TextPart, ...]:
        """The text of an entry in the tree (§3.6), control characters already spaces."""
        return self._texts.text(meta)

    # -------------------------------------------------------------------------- selection & moves

    @property
    def selected_index(self) -> int:
        """Visible index of the selection, -1 when nothing is visible."""
        return self._sel if self._vis else -1

    @property
    def selected(self) -> EntryMeta | None:
        return self.entry(self._sel) if self._vis else None

    @property
    def selected_uid(self) -> str | None:
        meta = self.selected
        return meta.uid if meta is not None else None

    def select_index(self, index: int) -> None:
        if self._vis:
            self._sel = max(0, min(index, len(self._vis) - 1))

    def select_uid(self, uid: str) -> bool:
        """Select an entry, or its nearest visible ancestor; False when neither is visible."""
        row = self._row_for_uid(uid)
        found = self._shape.ancestor_or_self(row) if row >= 0 else -1
        if found < 0:
            return False
        self._sel = found
        return True

    def move_up(self) -> None:
        """Up one row, wrapping from the first to the last (§3.11)."""
        if self._vis:
            self._sel = len(self._vis) - 1 if self._sel == 0 else self._sel - 1

    def move_down(self) -> None:
        if self._vis:
            self._sel = 0 if self._sel == len(self._vis) - 1 else self._sel + 1

    def page_up(self, height: int) -> None:
        """Up one window height, clamped (no wrap)."""
        if self._vis:
            self._sel = max(0, self._sel - max(1, height))

    def page_down(self, height: int) -> None:
        if self._vis:
            self._sel = min(len(self._vis) - 1, self._sel + max(1, height))

    # -------------------------------------------------------------------------- folding

    def fold_or_up(self) -> None:
        """``ctrl+left``: fold the selected row if foldable, else jump to the previous segment
        start (or the root) above the selection (§3.11)."""
        if not self._vis:
            return
        index = self._sel
        if self.is_foldable(index) and not self.is_folded(index):
            self._folded[self.entry(index).uid] = self._vis[index]
            self._apply()
            return
        self._sel = self._shape.segment_start_up(index)

    def unfold_or_down(self) -> None:
        """``ctrl+right``: unfold the selected row if folded, else jump down to the next segment
        start or the end of the branch (§3.11)."""
        if not self._vis:
            return
        index = self._sel
        if self.is_folded(index):
            del self._folded[self.entry(index).uid]
            self._apply()
            return
        self._sel = self._shape.segment_start_down(index)

    def reveal(self, uid: str) -> bool:
        """Unfold the folded ancestors of entry ``uid`` (not the entry itself), so that it can be
        selected; True if a fold was opened."""
        meta = self.session.get(uid)
        if not self._folded or meta is None:
            return False
        opened = False
        node = meta.parent
        while node is not None:
            if self._folded.pop(node.uid, None) is not None:
                opened = True
            node = node.parent
        if opened:
            self._apply()
        return opened

    def clear_folds(self) -> None:
        if self._folded:
            self._folded.clear()
            self._apply()

    @property
    def folded_uids(self) -> frozenset[str]:
        return frozenset(self._folded)

    # -------------------------------------------------------------------------- filters

    @property
    def filter_mode(self) -> FilterMode:
        return self._filter

    def set_filter(self, mode: FilterMode) -> None:
        """Switch filter; every filter key clears the folds (§3.8)."""
        self._filter = mode
        self._folded.clear()
        self._apply()

    def toggle_filter(self, mode: FilterMode) -> None:
        """``ctrl+t/u/l/a``: that mode, or back to default when it is already on."""
        self.set_filter("default" if self._filter == mode else mode)

    def cycle_filter(self, step: int = 1) -> None:
        """``ctrl+o`` (step 1) / ``shift+ctrl+o`` (step -1)."""
        position = FILTER_MODES.index(self._filter)
        self.set_filter(FILTER_MODES[(position + step) % len(FILTER_MODES)])

    def toggle_label_times(self) -> None:
        self.show_label_times = not self.show_label_times
        self.generation += 1

    # -------------------------------------------------------------------------- search

    @property
    def query(self) -> str:
        return self._query

    @property
    def search_ready(self) -> bool:
        """Whether searchable texts are installed (a query needs them)."""
        return self._search is not None

    def set_query(self, query: str) -> None:
        """Replace the query; folds are cleared and the selection follows §3.8 (§3.10).

        Searching needs every entry's text: install it first with :meth:`set_search_texts`
        (computed in a worker); otherwise it is computed here, synchronously."""
        self._query = query
        self._tokens = query_words(query)
        self._folded.clear()
        self._apply()

    def type_text(self, text: str) -> bool:
        """Append printable input to the query; text with a control character is refused."""
        if not text or not typeable(text):
            return False
        self.set_query(self._query + text)
        return True

    def backspace(self) -> bool:
        if not self._query:
            return False
        self.set_query(self._query[:-1])
        return True

    def clear_query(self) -> bool:
        """``escape``: clear a non-empty query (True); an empty query means "close" (False)."""
        if not self._query:
            return False
        self.set_query("")
        return True

    def compute_search_texts(
        self,
        metas: Iterable[EntryMeta] | None = None,
        *,
        cancelled: Callable[[], bool] | None = None,
    ) -> SearchIndex:
        """Read every entry (or just ``metas``): searchable texts and the tool-call map.

        Only reads the file and returns a new object, so it can run in a worker thread while the
        view is used (the rows are the snapshot taken at the start). A partial index comes back
        if ``cancelled()`` turns true (asked every 256 entries; a worker can also use the call to
        let other threads run).
        """
        if metas is None:
            return read_search_index(self.session, self._rows, rows=True, cancelled=cancelled)
        return read_search_index(self.session, list(metas), rows=False, cancelled=cancelled)

    def set_search_texts(self, index: SearchIndex) -> None:
        """Install searchable texts (from :meth:`compute_search_texts`, usually run in a worker),
        merged with those already installed; re-filters when a query is active."""
        if self._search is not None and self._search.texts is not index.texts:
            index = self._search.merged(index, self._rows)
        self._search = index
        self._texts.add_tool_calls(index.tool_calls, index.covers)
        self._matcher = None
        if self._tokens:
            self._apply()

    def _search_texts_by_row(self) -> list[str]:
        """Searchable text of every row: the label (§3.10: it comes first), then the rest."""
        if self._search is None:
            self._search = self.compute_search_texts()
        index = self._search
        if index.by_row is not None and index.rows is self._rows:
            rows = list(index.by_row)
        else:
            texts = index.texts
            missing = [meta for meta in self._rows if meta.uid not in texts]
            if missing:
                texts.update(self.compute_search_texts(missing).texts)
            rows = [texts[meta.uid] for meta in self._rows]
        labels = self.session.labels
        if labels:
            for row in self._labeled_rows():
                label = labels.get(self._rows[row].id or "")
                if label is not None:
                    rows[row] = f"{label.lower()} {rows[row]}"
        return rows

    def _matches(self, mask: bytearray) -> list[int]:
        """Rows allowed by ``mask`` whose searchable text holds every query word (§3.10)."""
        if self._matcher is None:
            self._matcher = RowMatcher(self._search_texts_by_row())
        key = (self._filter, tuple(sorted(self._folded.values())))
        return self._matcher.matches(self._tokens, mask, key)

    # -------------------------------------------------------------------------- changes

    @property
    def leaf(self) -> EntryMeta | None:
        return self._leaf

    def labels_changed(self) -> None:
        """The session's labels changed without new rows (call :meth:`rebuild` when entries were
        added: a label entry is an entry too)."""
        self._labeled = None
        self._matcher = None
        self._apply()

    def set_leaf(self, leaf: EntryMeta | str | None, *, replaced: bool = False) -> None:
        """Move the leaf (branch switch, or the file grew): the active path and row order change.
        ``replaced`` as for :meth:`rebuild` (one re-flatten for both changes).

        The usual growth, pi appending entries one after another below the leaf, is applied in
        place without flattening the session again (see :meth:`_extend_at_leaf`)."""
        new = self._resolve_leaf(leaf)
        if not replaced and self._extend_at_leaf(new):
            return
        self._leaf = new
        self.rebuild(replaced=replaced)

    def _extend_at_leaf(self, new: EntryMeta | None) -> bool:
        """Insert the rows of entries appended as one chain below the leaf, ``new`` being the
        last of them (see :func:`extend_at_leaf`); False (nothing changed) when the session
        changed in any other way."""
        old = self._leaf
        if new is None or old is None:
            return False
        grown = extend_at_leaf(self._flat, old, new, len(self.session.entries) - len(self._rows))
        if grown is None:
            return False
        r, k = self._leaf_row, grown.leaf_row - self._leaf_row
        keep = self._vis[self._sel] if self._vis else self._remembered

        def shift(row: int) -> int:
            return row + k if row > r else row

        self._install(grown)
        self._leaf = new
        self._folded = {uid: shift(row) for uid, row in self._folded.items()}
        self._remembered = shift(keep) if keep is not None else None
        self._show_again()
        return True

    def _show_again(self) -> None:
        """The visible rows for new rows: the remembered row selected, else the leaf's."""
        self._vis = []
        self._sel = 0
        self._apply()
        if self._remembered is None and self._vis:
            self._sel = self._shape.nearest(self._leaf_row)
            self._remembered = self._vis[self._sel]

    def rebuild(self, *, replaced: bool = False) -> None:
        """Re-flatten after the session grew or was replaced, or the leaf moved, keeping the
        filter, query, folds and selected entry. ``replaced``: contents may differ, so the
        caches (row texts, search texts, tool calls) are dropped."""
        if self._vis:
            keep: str | None = self.entry(self._sel).uid
        else:
            keep = self._rows[self._remembered].uid if self._remembered is not None else None
        if self._leaf is not None and self.session.get(self._leaf.uid) is not self._leaf:
            self._leaf = self.session.get(self._leaf.uid) or self.session.leaf
        if replaced:
            self._texts.forget()
            self._search = None
        folded = list(self._folded)
        self._flatten()
        self._folded = {}
        for uid in folded:
            folded_row = self._row_for_uid(uid)
            if folded_row >= 0:
                self._folded[uid] = folded_row
        row = self._row_for_uid(keep)
        self._remembered = row if row >= 0 else None
        self._show_again()
