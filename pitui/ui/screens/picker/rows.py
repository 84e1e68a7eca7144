"""What the picker's list shows for the query: the loaded sessions filtered and sorted, a row per
label (``label:``), or a row per full-text hit (``fts:``).

Like :mod:`.writes`, a helper the screen calls: it starts the work (on the event loop for a small
listing, else in a worker of :mod:`.loader` or :mod:`.labels`) and puts the rows the workers post
into the list once the state (:mod:`.state`) says they are still wanted.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.timer import Timer
from textual.worker import get_current_worker

from pitui.core.js import js_trim
from pitui.ui.messages import HitsFound, IndexProgress, LabelsListed, RowsFiltered
from pitui.ui.screens.picker import labels
from pitui.ui.screens.picker.loader import hit_rows
from pitui.ui.screens.picker.state import FULL_TEXT_EMPTY, LOADING_TEXT, entry_mode, kept_index

if TYPE_CHECKING:
    from pitui.ui.screens.picker.screen import PickerScreen

IN_PLACE_ROWS = 500  # up to this many sessions (and no search) are filtered on the event loop
FULL_TEXT_DELAY = 0.15  # full-text queries wait for typing to pause


def worker_cancelled() -> bool:
    """Whether the worker running this (in its thread) was cancelled: a newer one took over."""
    return get_current_worker().is_cancelled


class PickerRows:
    """The rows of one picker screen's list."""

    def __init__(self, screen: PickerScreen) -> None:
        self.screen = screen
        self._fts_timer: Timer | None = None
        self._keys_have_selection: bool | None = None  # what the footer's keys last showed

    def _in_thread(self, work: Callable[[], None], group: str = "filter") -> None:
        self.screen.in_thread(group, work, exclusive=True)

    # ---------------------------------------------------------------------------- filtering
    def refilter(self, keep: str | None) -> None:
        """See :meth:`PickerScreen.refilter`."""
        screen = self.screen
        state, loader = screen.state, screen.loader
        words = state.full_text
        if words is not None:
            if self._fts_timer is not None:
                self._fts_timer.stop()
            self._fts_timer = screen.set_timer(FULL_TEXT_DELAY, lambda: self._full_text(words))
            if not state.shown.hits:
                self._show_hits_empty(words)
            return
        label_words = state.label_query
        if label_words is not None:
            self._list_labels(label_words)
            return
        request = state.filter_request(keep)
        loader.wanted = request.key
        lock = loader.filter_lock
        small = not js_trim(request.query) and len(request.items) <= IN_PLACE_ROWS
        if small and lock.acquire(False):
            # a first page and no search (no texts to read): a worker's round trip would cost
            # more than the work, and the first rows wait for it
            try:
                screen.workers.cancel_group(screen, "filter")
                self.filtered(loader.filtered(request, screen.live_paths))
            finally:
                lock.release()
        else:
            run = partial(loader.filter, request, screen.live_paths, screen.post_message)
            self._in_thread(partial(run, worker_cancelled))
        screen.render_header()

    def filtered(self, message: RowsFiltered) -> None:
        screen = self.screen
        state = screen.state
        screen.trim_due = True
        if message.key != state.filter_request().key or entry_mode(state.query):
            return  # an older request: a newer one is on its way
        if screen.search.value != state.query:
            # typed since, its change not yet seen here (keys that come in one read reach the
            # screen one message at a time): the rows of the query in the box come next
            return
        shown = state.shown
        shown.hits, shown.items = [], message.items
        session_list = screen.session_list
        selected = kept_index(message.items, message.keep, session_list.selected)
        empty = state.empty_text() if message.error is None else f"  {message.error}"
        session_list.set_rows(message.rows, selected=selected, empty_text=empty)
        if message.error is not None:
            screen.show_status(message.error, "error")
        self.after_rows()
        loader = screen.loader
        if loader.prepare_due is not None:  # (a search read the texts: phrase forms next)
            run = partial(loader.prepare_phrases, worker_cancelled)
            screen.in_thread("prepare", run, exclusive=True)

    def after_rows(self) -> None:
        screen = self.screen
        screen.panes.follow_selection()
        if screen.listed and not screen.loader.rows_painted.is_set():
            screen.call_after_refresh(screen.first_rows_drawn)
        screen.panes.update_position()
        # the footer is rebuilt on every refresh of the bindings: only when what check_action
        # answers changes (rows arrive on every key and twice a second under appends)
        has_selection = screen.selected_item is not None
        if has_selection != self._keys_have_selection:
            self._keys_have_selection = has_selection
            screen.refresh_bindings()

    # ------------------------------------------------------------------------------- labels
    def _list_labels(self, words: str) -> None:
        """``label:words``: a row per label of the scope's sessions (from the listing, so it
        is quick; in a worker all the same: 10,000 labels are narrowed by the search)."""
        screen = self.screen
        state = screen.state
        run = partial(
            labels.list_labels, screen.catalog, words, state.scope, state.visible.items,
            current=screen.current_session, live=screen.live_paths, post=screen.post_message,
            cancelled=worker_cancelled,
        )  # fmt: skip
        self._in_thread(run)
        screen.render_header()

    def labels_listed(self, message: LabelsListed) -> None:
        screen = self.screen
        state = screen.state
        if not state.take_labels(
            message.query, message.scope, message.items, message.hits, message.sessions
        ):
            return  # made for another query or list: a newer one is on its way
        # the row selected before stays selected (a reload, a label added), else its index
        session_list = screen.session_list
        before = session_list.current_row
        keys = [row.key for row in message.rows]
        selected = keys.index(before.key) if before is not None and before.key in keys else None
        if state.visible.loading and not message.rows:
            empty = LOADING_TEXT
        else:
            empty = labels.empty_text(message.query, all_scope=message.scope == "all")
        session_list.set_rows(message.rows, selected=selected, empty_text=empty)
        self.after_rows()

    # ---------------------------------------------------------------------------- full text
    def _full_text(self, words: str) -> None:
        screen = self.screen
        failed = partial(screen.app.call_from_thread, screen.show_status, kind="error")
        run = partial(screen.loader.full_text, words, screen.state.scope, screen.post_message)
        self._in_thread(partial(run, worker_cancelled, failed), group="fts")

    def index_progress(self, message: IndexProgress) -> None:
        state = self.screen.state
        words = state.full_text
        if state.note_indexing(message.done, message.total) and words is not None:
            self._show_hits_empty(words)

    def _show_hits_empty(self, words: str) -> None:
        screen = self.screen
        screen.state.shown.items = []
        empty = screen.state.waiting_text(words)
        screen.session_list.set_rows([], selected=0, empty_text=empty)
        self.after_rows()

    def hits_found(self, message: HitsFound) -> None:
        screen = self.screen
        state = screen.state
        if not state.take_hits(message.query, message.scope, message.hits):
            return
        shown = state.shown
        rows = hit_rows(
            shown.hits, shown.items, message.query, current=screen.current_session,
            live=screen.marks.live,
        )  # fmt: skip
        empty = "  No message matches." if js_trim(message.query) else FULL_TEXT_EMPTY
        screen.session_list.set_rows(rows, selected=0, empty_text=empty)
        self.after_rows()
