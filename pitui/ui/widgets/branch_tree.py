"""The session's branch tree, drawn with the Line API from a :class:`~pitui.core.treeview.TreeView`.

Not Textual's ``Tree`` (it recurses per level and fails on a 1,000-deep chain): the model flattens
the session once and this widget only draws the rows on screen (``render_line``), caching each
row's :class:`Strip` under everything that changes it. Keys are pi's tree keys (ui-behaviour §3.14):
printable characters and backspace edit the search query, ``L``/``T`` are commands. The widget
requests, the screen decides: enter, ``L``, escape on an empty query and every change of selection,
filter or query are posted as messages.

The search line (``Type to search: …``) is the border title and the status line (``(3/40) [all]``)
the border subtitle, built as ``Text`` so session text is never read as markup. How a row is
drawn is :mod:`.tree_row`; which keys type into the query, and the query while the searchable texts
are read, :mod:`.tree_query`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import ClassVar, Literal

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pitui.core.session import Session
from pitui.core.treeview import FILTER_MODES, FilterMode, TreeView, typeable
from pitui.render.safe_text import one_line
from pitui.ui.commands import bindings_for
from pitui.ui.rendering import has_plugin_compact_forms, plugin_compact_line
from pitui.ui.widgets.tree_query import TextsRead, TreeQuery, typed_text
from pitui.ui.widgets.tree_row import ROLE_CLASS, empty_strip, row_strip

_EXTENSION_TYPES = frozenset({"custom", "custom_message"})  # what plug-ins draw

#: How the selection moved, told with each :class:`BranchTree.EntryHighlighted`: ``jump`` (a
#: branch jump, Home/End, a click, a selection made by the screen), ``step`` (up/down, a page,
#: the selection following a search or filter change), ``follow`` (pi wrote and the selection
#: followed), ``history`` (back/forward). The screen's history keeps the jumps as stops.
Move = Literal["jump", "step", "follow", "history"]


class BranchTree(ScrollView, can_focus=True):
    """pi's tree selector over one session (ui-behaviour §3), for 100,000 entries and more."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "branch-tree--cursor",  # the selected row: background over the full width, bold text
        "branch-tree--pointer",  # the "› " in front of the selected row
        "branch-tree--prefix",  # connectors and gutters
        "branch-tree--marker",  # fold marker "⊞ ", active-path marker "• ", diff mark "◆ "
        "branch-tree--label",  # "[label] "
        "branch-tree--label-time",
        "branch-tree--query",  # the query in the search line
        "branch-tree--empty",  # "No entries found"
        *ROLE_CLASS.values(),
    }

    BINDINGS: ClassVar[list[BindingType]] = list(bindings_for("tree"))

    #: Sessions up to this many entries get their searchable texts read as soon as the tree is
    #: shown (under a second); bigger ones on the first search keystroke.
    PREFETCH_ENTRIES: ClassVar[int] = 20_000

    filter_mode: reactive[FilterMode] = reactive("default", init=False)
    """The filter (§3.8); setting it applies it like the filter keys do (folds cleared)."""
    search_query: reactive[str] = reactive("", init=False)
    """The search query (§3.10); setting it searches."""
    show_label_times: reactive[bool] = reactive(False, init=False)

    # ------------------------------------------------------------------------------ messages

    class _TreeMessage(Message):
        """Something happened in the tree (it is the ``control``: ``@on(…, "#id")`` works)."""

        def __init__(self, tree: BranchTree) -> None:
            super().__init__()
            self.branch_tree = tree

        @property
        def control(self) -> BranchTree:
            return self.branch_tree

    class EntryHighlighted(_TreeMessage):
        """The selection moved (keys, mouse, filter or search change). ``uid`` is None when no
        row is visible."""

        def __init__(
            self, tree: BranchTree, uid: str | None, index: int, count: int, how: Move = "step"
        ) -> None:
            super().__init__(tree)
            self.uid = uid
            self.index = index
            self.count = count
            self.how: Move = how

        def can_replace(self, message: Message) -> bool:
            # a jump is never dropped unseen: the history keeps it as a stop
            return (
                isinstance(message, BranchTree.EntryHighlighted)
                and message.branch_tree is self.branch_tree
                and message.how != "jump"
            )

    class EntrySelected(_TreeMessage):
        """``enter`` (or a double click) on an entry: the screen applies §3.13."""

        def __init__(self, tree: BranchTree, uid: str) -> None:
            super().__init__(tree)
            self.uid = uid

    class LabelRequested(_TreeMessage):
        """``L`` on an entry: the screen opens the label editor (prefilled with ``label``)."""

        def __init__(self, tree: BranchTree, uid: str, label: str | None) -> None:
            super().__init__(tree)
            self.uid = uid
            self.label = label

    class SearchChanged(_TreeMessage):
        def __init__(self, tree: BranchTree, query: str) -> None:
            super().__init__(tree)
            self.query = query

    class FilterChanged(_TreeMessage):
        def __init__(self, tree: BranchTree, mode: FilterMode) -> None:
            super().__init__(tree)
            self.mode = mode

    class LabelTimesToggled(_TreeMessage):
        def __init__(self, tree: BranchTree, shown: bool) -> None:
            super().__init__(tree)
            self.shown = shown

    class CloseRequested(_TreeMessage):
        """``escape`` / ``ctrl+c`` with an empty query: pi closes the tree here."""

    # ------------------------------------------------------------------------------ setup

    def __init__(
        self,
        session: Session,
        *,
        leaf: str | None = "default",
        selected: str | None = None,
        filter_mode: FilterMode = "default",
        search_in_background: bool = True,
        home: str | None = None,
        now: Callable[[], datetime] | None = None,
        model: TreeView | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """``leaf`` is a uid, ``None`` (no leaf) or ``"default"`` (the file's leaf); ``selected``
        the uid to start on (§3.9); ``now`` the clock label times are shown against. ``model``
        is a :class:`TreeView` of ``session`` built beforehand (flattening a big session takes a
        while: a screen can do it in a worker); the other model options are then ignored.

        Searching needs the text of every entry. With ``search_in_background`` a thread worker
        reads them: at once for sessions up to :attr:`PREFETCH_ENTRIES` entries, otherwise on the
        first search keystroke (a query typed meanwhile waits, shown with ``…``), so opening a
        big session is not slowed by a thread competing for the interpreter. Without it the
        first query reads them on the spot."""
        super().__init__(name=name, id=id, classes=classes)
        if model is None:
            model = TreeView(session, leaf=leaf, selected=selected, filter_mode=filter_mode,
                             home=home, now=now)  # fmt: skip
        self._tree = model
        self._query = TreeQuery(self, in_background=search_in_background)
        self._line_cache: LRUCache[tuple[object, ...], Strip] = LRUCache(1024)
        self._base_style: Style | None = None
        self.set_reactive(BranchTree.filter_mode, model.filter_mode)
        self._last_highlight: tuple[str | None, int, int] | None = None
        self.marked: str | None = None  # the entry marked to compare: its row has the mark

    def set_marked(self, uid: str | None) -> None:
        """Draw the diff mark (``tree_row.DIFF_MARK``) in ``uid``'s row (None: in no row)."""
        if uid != self.marked:
            self.marked = uid
            self._line_cache.clear()
            self.refresh()

    @property
    def model(self) -> TreeView:
        """The model (read it freely; change it through this widget's methods)."""
        return self._tree

    def on_mount(self) -> None:
        self._sync(scroll=True, how="jump")
        if self._query.small_session():
            self.prefetch_search_texts()

    def prefetch_search_texts(self) -> None:
        """Start reading the searchable texts now (in a thread worker) if not done or running."""
        self._query.prefetch()

    def on_resize(self) -> None:
        self._sync(scroll=True)  # pi keeps the selection in the middle of the window

    @on(TextsRead)
    def _search_texts_arrived(self, message: TextsRead) -> None:
        message.stop()
        outcome = self._query.texts_read(message)
        if outcome == "stale":
            return
        if outcome == "dropped":
            self.set_reactive(BranchTree.search_query, "")
            self.post_message(self.SearchChanged(self, ""))
        self._sync(scroll=True)

    # ------------------------------------------------------------------------------ public API

    @property
    def selected_uid(self) -> str | None:
        return self._tree.selected_uid

    def select_uid(self, uid: str, *, how: Move = "jump", reveal: bool = False) -> bool:
        """Select an entry (or its nearest visible ancestor); False if neither is visible.
        ``reveal`` first unfolds the folds that hide it."""
        if reveal:
            self._tree.reveal(uid)
        found = self._tree.select_uid(uid)
        self._sync(scroll=True, how=how)
        return found

    def set_leaf(self, leaf: str | None) -> None:
        """The leaf moved (branch switch): the `•` path and the row order change at once."""
        self._tree.set_leaf(leaf)
        self._sync(scroll=True)

    def labels_changed(self) -> None:
        """The session's labels changed but no entry was added."""
        self._tree.labels_changed()
        self._sync(scroll=True)

    def session_changed(
        self, *, replaced: bool = False, leaf: str | Literal["keep"] | None = "keep"
    ) -> None:
        """The session was refreshed (grew, or ``replaced``): re-flatten, keep the selection.

        ``leaf`` moves the leaf in the same pass (``"default"``: the file's leaf, as after a
        growth, since pi's leaf is the last line); ``"keep"`` leaves it where it is."""
        if replaced:
            self._query.file_replaced()  # (read again below if wanted)
        if leaf == "keep":
            self._tree.rebuild(replaced=replaced)
        else:
            self._tree.set_leaf(leaf, replaced=replaced)
        if replaced and (self._query.pending is not None or self._query.small_session()):
            self.prefetch_search_texts()
        self._sync(scroll=True)

    @property
    def page_size(self) -> int:
        return max(1, self.scrollable_content_region.height)

    # ------------------------------------------------------------------------------ reactives

    def watch_filter_mode(self, mode: FilterMode) -> None:
        if mode != self._tree.filter_mode:
            self._tree.set_filter(mode)
            self._sync(scroll=True)
            self.post_message(self.FilterChanged(self, mode))

    def watch_search_query(self, query: str) -> None:
        if query != self._query.text:
            self._search(query)

    def watch_show_label_times(self, shown: bool) -> None:
        if shown != self._tree.show_label_times:
            self._tree.toggle_label_times()
            self._sync()
            self.post_message(self.LabelTimesToggled(self, shown))

    # ------------------------------------------------------------------------------ actions

    def action_cursor_up(self) -> None:
        self._tree.move_up()
        self._sync(scroll=True)

    def action_cursor_down(self) -> None:
        self._tree.move_down()
        self._sync(scroll=True)

    def action_page_up(self) -> None:
        self._tree.page_up(self.page_size)
        self._sync(scroll=True)

    def action_page_down(self) -> None:
        self._tree.page_down(self.page_size)
        self._sync(scroll=True)

    def action_first(self) -> None:
        self._tree.select_index(0)
        self._sync(scroll=True, how="jump")

    def action_last(self) -> None:
        self._tree.select_index(self._tree.count - 1)
        self._sync(scroll=True, how="jump")

    def action_fold_or_up(self) -> None:
        self._tree.fold_or_up()
        self._sync(scroll=True, how="jump")

    def action_unfold_or_down(self) -> None:
        self._tree.unfold_or_down()
        self._sync(scroll=True, how="jump")

    def action_select(self) -> None:
        uid = self._tree.selected_uid
        if uid is not None:
            self.post_message(self.EntrySelected(self, uid))

    def action_escape(self) -> None:
        if self._query.drop_pending():
            self._sync()
            self.post_message(self.SearchChanged(self, ""))
        elif self._tree.clear_query():
            self._sync(scroll=True)
            self.post_message(self.SearchChanged(self, ""))
        else:
            self.post_message(self.CloseRequested(self))

    def action_filter(self, mode: str) -> None:
        self._set_filter(self._mode(mode))

    def action_toggle_filter(self, mode: str) -> None:
        wanted = self._mode(mode)
        self._set_filter("default" if self._tree.filter_mode == wanted else wanted)

    def action_cycle_filter(self, step: int) -> None:
        position = FILTER_MODES.index(self._tree.filter_mode)
        self._set_filter(FILTER_MODES[(position + step) % len(FILTER_MODES)])

    def action_edit_label(self) -> None:
        meta = self._tree.selected
        if meta is not None:
            label = self._tree.session.labels.get(meta.id) if meta.id is not None else None
            self.post_message(self.LabelRequested(self, meta.uid, label))

    def action_toggle_label_times(self) -> None:
        self.show_label_times = not self.show_label_times

    def action_backspace(self) -> None:
        query = self._query.text
        if query:
            self._search(query[:-1])

    # ------------------------------------------------------------------------------ keys, mouse

    def on_key(self, event: events.Key) -> None:
        """Printable input goes to the search (§3.10), but for the command keys
        (:func:`~.tree_query.typed_text`)."""
        text = typed_text(event)
        if text is not None and self.type_text(text):
            event.stop()
            event.prevent_default()

    def type_text(self, text: str) -> bool:
        """Add ``text`` to the search query as if typed; False (nothing added) for text with a
        control character."""
        if not typeable(text):
            return False
        self._search(self._query.text + text)
        return True

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = offset.y + round(self.scroll_offset.y)
        if not 0 <= index < self._tree.count:
            return
        self._tree.select_index(index)
        self._sync(how="jump")
        if event.chain >= 2:
            self.action_select()

    # ------------------------------------------------------------------------------ internals

    @staticmethod
    def _mode(name: str) -> FilterMode:
        for mode in FILTER_MODES:
            if mode == name:
                return mode
        raise ValueError(f"unknown filter mode {name!r}")

    def _set_filter(self, mode: FilterMode) -> None:
        # every filter key applies (and clears folds) even when the mode does not change
        self._tree.set_filter(mode)
        self.set_reactive(BranchTree.filter_mode, mode)
        self._sync(scroll=True)
        self.post_message(self.FilterChanged(self, mode))

    def _search(self, query: str) -> None:
        self._query.set(query)
        self.set_reactive(BranchTree.search_query, query)
        self._sync(scroll=True)
        self.post_message(self.SearchChanged(self, query))

    def _sync(self, *, scroll: bool = False, how: Move = "step") -> None:
        """After any change: sizes, titles, scroll position, highlight message (saying ``how``
        the selection moved), redraw."""
        tree = self._tree
        self.virtual_size = Size(0, max(tree.count, 1))
        self.set_reactive(BranchTree.search_query, self._query.text)
        self.set_reactive(BranchTree.show_label_times, tree.show_label_times)
        self._update_titles()
        if scroll and tree.count:
            height = self.page_size
            # (forced: rows that fitted the window, after a search, left the widget unable to
            # scroll until the next layout, and the scroll would be dropped)
            self.scroll_to(y=tree.window_start(height), animate=False, immediate=True, force=True)
        highlight = (tree.selected_uid, tree.selected_index, tree.count)
        if highlight != self._last_highlight:
            self._last_highlight = highlight
            self.post_message(self.EntryHighlighted(self, *highlight, how=how))
        self.refresh()

    @property
    def search_line(self) -> Text:
        """pi's search line: ``Type to search:`` and the query (accent); ``…`` while the
        searchable texts are still being read. Shown as the border title."""
        search = Text("Type to search:", no_wrap=True, end="")
        query = self._query.text
        if query:
            search.append(" ")
            search.append(one_line(query), self.get_component_rich_style("branch-tree--query"))
            if self._query.pending is not None:
                search.append(" …")
        return search

    @property
    def status_line(self) -> str:
        """pi's status line without its indent: ``(8/11) [all] [+label time]``. Shown as the
        border subtitle."""
        return self._tree.status_text()

    def _update_titles(self) -> None:
        self.border_title = self.search_line
        self.border_subtitle = Text(self.status_line, no_wrap=True, end="")

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._line_cache.clear()
        self._base_style = None

    @property
    def _base(self) -> Style:
        # the widget's own style, looked up once per style change (not once per line)
        if self._base_style is None:
            self._base_style = self.rich_style
        return self._base_style

    def render_line(self, y: int) -> Strip:
        tree = self._tree
        width = self.scrollable_content_region.width
        index = y + round(self.scroll_offset.y)
        if 0 <= index < tree.count:
            selected = index == tree.selected_index
            key = (tree.generation, index, selected, width)
            cached = self._line_cache.get(key)
            if cached is not None:
                return cached
        base = self._base
        if tree.count == 0:
            if y != 0:
                return Strip.blank(width, base)
            empty = base + self.get_component_rich_style("branch-tree--empty")
            return empty_strip(width, empty, base)
        if not 0 <= index < tree.count:
            return Strip.blank(width, base)
        row = tree.row(index, width)
        strip = row_strip(
            row,
            width,
            base,
            self.get_component_rich_style,
            self._compact(index, width),
            marked=row.uid == self.marked,
        )
        self._line_cache[key] = strip
        return strip

    def _compact(self, index: int, width: int) -> list[Segment] | None:
        """A plug-in's one-line form of an extension entry's row, drawn instead of its text."""
        meta = self._tree.entry(index)
        if meta.type not in _EXTENSION_TYPES or not has_plugin_compact_forms():
            return None
        try:
            raw = self._tree.session.raw(meta)
        except OSError:
            return None
        compact = plugin_compact_line(raw, width)
        return None if compact is None else list(compact.render(self.app.console))
